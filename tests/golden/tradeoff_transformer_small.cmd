tradeoff models/transformer_small.train.b32.json.gz --points 5 --work-limit 400000 --time-limit 3600
