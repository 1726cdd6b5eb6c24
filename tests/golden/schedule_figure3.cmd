schedule examples/figure3.json
