optimize examples/figure3.json --work-limit 100000
