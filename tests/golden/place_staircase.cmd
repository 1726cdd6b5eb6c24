place examples/placement/staircase.csv --work-limit 1000000
