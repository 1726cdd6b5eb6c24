schedule examples/mlp_sgd.json --json
