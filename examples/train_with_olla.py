"""Training a torchvision model with olla: the user's own model, loss and
torch.optim.SGD, a few steps in olla's plan, and the memory measured before and after.

    /usr/bin/python3 examples/train_with_olla.py [--model resnet18] [--batch 16]
"""

import argparse
import time

import torch
import torchvision

import olla.torch


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet18", help="a torchvision model name")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--image", type=int, default=128, help="image side in pixels")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--time-limit", type=float, default=10.0,
                        help="seconds olla may plan for")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = torchvision.models.get_model(args.model, num_classes=10)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9,
                                weight_decay=1e-4)
    loss_fn = torch.nn.functional.cross_entropy
    images = torch.randn(args.batch, 3, args.image, args.image)
    labels = torch.randint(0, 10, (args.batch,))

    started = time.monotonic()
    step = olla.torch.optimize(model, [images], loss_fn, optimizer, targets=[labels],
                               time_limit=args.time_limit)
    print(f"planned {args.model} at batch {args.batch} in "
          f"{time.monotonic() - started:.1f} s: {step.plan}")

    for i in range(args.steps):
        loss = step(images, targets=[labels])
        print(f"step {i}: loss {loss.item():.4f}")

    print()
    olla.torch.measure(step, [images], [labels])


if __name__ == "__main__":
    main()
