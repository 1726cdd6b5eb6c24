optimize examples/mlp_sgd.json --schedule-method joint --work-limit 100000
