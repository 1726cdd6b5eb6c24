schedule examples/residual_inplace_view.json --method eager
