check examples/figure3.json examples/figure3.eager.plan.json
