"""Training a torchvision model with olla: the user's own model, loss and
torch.optim.SGD, a few steps in olla's plan, and the memory measured before and after.

    python examples/train_with_olla.py [--model resnet18] [--batch 16]
    python examples/train_with_olla.py --resident   # also the peak resident
                                       # memory of eager and olla steps, each in a fresh
                                       # process
"""

import argparse
import subprocess
import sys
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
    parser.add_argument("--work-limit", type=int,
                        help="deterministic work units for planning (the same plan on "
                             "any machine)")
    parser.add_argument("--resident", action="store_true",
                        help="also measure peak resident memory, each way in a fresh process")
    parser.add_argument("--only", choices=("eager", "olla"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        return resident(args)

    model, optimizer, images, labels = setup(args)
    started = time.monotonic()
    step = plan(args, model, optimizer, images, labels)
    report = step.report
    print(f"planned {args.model} at batch {args.batch} in "
          f"{time.monotonic() - started:.1f} s: {len(step.plan.order)} ops, arena "
          f"{report['arena_bytes'] / 2**20:.1f} MiB for the eager order's "
          f"{report['eager_peak_live_bytes'] / 2**20:.1f} MiB of live tensors")

    for i in range(args.steps):
        loss = step(images, targets=[labels])
        print(f"step {i}: loss {loss.item():.4f}")

    print()
    olla.torch.measure(step, [images], [labels])
    if args.resident:
        print()
        peaks = {}
        for way in ("eager", "olla"):
            child = subprocess.run([sys.executable, __file__, "--only", way] + sys.argv[1:],
                                   capture_output=True, text=True, check=True)
            peaks[way] = int(child.stdout.split()[-1])
        print(f"resident memory added by {args.steps} steps, each way in a fresh process:\n"
              f"  eager PyTorch {peaks['eager'] / 2**20:.1f} MiB, olla "
              f"{peaks['olla'] / 2**20:.1f} MiB: "
              f"{100 * (1 - peaks['olla'] / peaks['eager']):.1f} % less")


def setup(args):
    torch.manual_seed(0)
    model = torchvision.models.get_model(args.model, num_classes=10)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9,
                                weight_decay=1e-4)
    images = torch.randn(args.batch, 3, args.image, args.image)
    labels = torch.randint(0, 10, (args.batch,))
    return model, optimizer, images, labels


def plan(args, model, optimizer, images, labels):
    limits = {"work_limit": args.work_limit} if args.work_limit else {}
    return olla.torch.optimize(model, [images], torch.nn.functional.cross_entropy,
                               optimizer, targets=[labels], time_limit=args.time_limit,
                               **limits)


def resident(args):
    """One way of running the steps, in this fresh process: prints how far resident
    memory rises above where it was before the first step (set-up and planning
    excluded; the optimizer's state, created by the first step, included)."""
    model, optimizer, images, labels = setup(args)
    loss_fn = torch.nn.functional.cross_entropy
    if args.only == "olla":
        step = plan(args, model, optimizer, images, labels)
        run = lambda: step(images, targets=[labels])  # noqa: E731
    else:
        run = lambda: olla.torch.eager_step(  # noqa: E731
            model, optimizer, loss_fn, [images], [labels])
    peak = olla.torch.resident_peak_bytes(
        lambda: [run() for _ in range(args.steps)])
    print(peak)


if __name__ == "__main__":
    main()
