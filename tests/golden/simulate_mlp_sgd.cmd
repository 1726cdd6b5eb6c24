simulate examples/mlp_sgd.json
