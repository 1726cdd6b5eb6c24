place examples/placement/training_step.csv --method best-fit
