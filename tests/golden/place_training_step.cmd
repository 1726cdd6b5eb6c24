place examples/placement/training_step.csv --work-limit 1000000
