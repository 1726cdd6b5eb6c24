simulate examples/figure3.json --json
