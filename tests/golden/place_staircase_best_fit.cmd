place examples/placement/staircase.csv --method best-fit --work-limit 1000000
