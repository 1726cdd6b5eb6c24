place examples/placement/training_step.csv
