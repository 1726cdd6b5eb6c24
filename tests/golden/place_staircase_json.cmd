place examples/placement/staircase.csv --json --capacity 120 --method best-fit --work-limit 1000000
