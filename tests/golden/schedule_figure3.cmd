schedule examples/figure3.json --work-limit 1000000
