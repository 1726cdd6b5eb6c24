#!/usr/bin/env python3
"""Writes a random placement problem in MiniMalloc's CSV format to stdout.

Usage: bench/random_placement.py random BUFFERS SEED [HORIZON]
       bench/random_placement.py training LAYERS SEED
       bench/random_placement.py stream BUFFERS SEED

random: lifetimes are half-open intervals in [0, HORIZON) (default 16) and sizes lie in
1..40, as in the test suite's random problems: with 30 buffers about 15 are live at
once, enough to make the placement order matter.

training: a trace shaped like one training step, two time steps per layer: forward
activations kept until their layer's backward step (nested lifetimes), short
temporaries in both passes, and per layer a state made in the forward pass and a
gradient made in the backward pass, both kept to the end. Sizes are powers of two from
16 to 2048, some multiplied. (tests/support/placement_fixtures.h makes the same shape.)

stream: a long run of short-lived buffers, four starting at each time step and each
living 1 to 64 steps (about 130 live at once), sizes as in training: a trace of a
million buffers whose conflicts stay local, to time the greedy placers at scale.

The same arguments give the same file.
"""
import random
import sys


def random_rows(rng, buffers, horizon=16):
    for _ in range(buffers):
        lower = rng.randint(0, horizon - 2)
        yield lower, rng.randint(lower + 1, horizon), rng.randint(1, 40)


def training_rows(rng, layers):
    def size():
        return 16 << rng.randint(0, 7)

    end = 4 * layers + 3
    rows, activations, t = [], [], 0
    for _ in range(layers):
        activations.append((t, size() * rng.randint(1, 3)))
        rows.append((t, end, size() // 4))  # State.
        for _ in range(rng.randint(1, 3)):
            rows.append((t, t + rng.randint(1, 4), size() * rng.randint(1, 4)))
        t += 2
    for start, bytes_ in reversed(activations):
        rows.append((start, t + 1, bytes_))
        for _ in range(rng.randint(1, 3)):
            rows.append((t, t + rng.randint(1, 4), size() * rng.randint(1, 4)))
        rows.append((t, end, size() // 2))  # Gradient.
        t += 2
    return [(lower, min(upper, end), bytes_) for lower, upper, bytes_ in rows]


def stream_rows(rng, buffers):
    for i in range(buffers):
        lower = i // 4
        yield lower, lower + rng.randint(1, 64), 16 << rng.randint(0, 7)


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[0] not in ("random", "training", "stream"):
        sys.exit(__doc__.strip().split("\n\n")[1])
    rng = random.Random(int(args[2]))
    if args[0] == "random":
        rows = random_rows(rng, int(args[1]), *[int(a) for a in args[3:4]])
    elif args[0] == "training":
        rows = training_rows(rng, int(args[1]))
    else:
        rows = stream_rows(rng, int(args[1]))
    print("id,lower,upper,size")
    for i, (lower, upper, bytes_) in enumerate(rows):
        print(f"b{i},{lower},{upper},{bytes_}")


if __name__ == "__main__":
    main()
