schedule examples/mlp_sgd.json --json --work-limit 1000000
