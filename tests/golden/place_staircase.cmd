place examples/placement/staircase.csv
