tradeoff models/transformer_small.train.b32.json.gz --points 5 --work-limit 20000 --time-limit 3600
