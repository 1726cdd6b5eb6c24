check examples/figure3.json examples/figure3.recompute.plan.json
