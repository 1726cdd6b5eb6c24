check examples/figure3.json examples/figure3.reordered.plan.json
