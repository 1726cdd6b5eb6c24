place examples/placement/training_step.csv --method best-fit --work-limit 1000000
