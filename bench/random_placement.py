#!/usr/bin/env python3
"""Writes a random placement problem in MiniMalloc's CSV format to stdout.

Usage: bench/random_placement.py BUFFERS SEED [HORIZON]

Lifetimes are half-open intervals in [0, HORIZON) (default 16) and sizes lie in
1..40, as in the test suite's random problems: with 30 buffers about 15 are live at
once, enough to make the placement order matter. The same arguments give the same file.
"""
import random
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[2])
    buffers, seed = int(sys.argv[1]), int(sys.argv[2])
    horizon = int(sys.argv[3]) if len(sys.argv) == 4 else 16
    rng = random.Random(seed)
    print("id,lower,upper,size")
    for i in range(buffers):
        lower = rng.randint(0, horizon - 2)
        upper = rng.randint(lower + 1, horizon)
        print(f"b{i},{lower},{upper},{rng.randint(1, 40)}")


if __name__ == "__main__":
    main()
