schedule examples/residual_inplace_view.json --method eager --work-limit 1000000
