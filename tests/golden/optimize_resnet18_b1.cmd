optimize models/resnet18.train.b1.json.gz --work-limit 100000
