place examples/placement/staircase.csv --method best-fit
