"""python -m olla.torch.max_batch MODEL --memory 16GiB: the largest training batch of a
zoo or torchvision model that fits, for eager PyTorch, for olla, and for olla with
recomputation within --recompute-overhead (batch.py).

Exit codes: 0 success; 1 bad usage, unknown model or a step olla cannot capture (one
line on stderr)."""

import argparse
import json
import signal
import sys

from .. import zoo
from .batch import max_batch_size, parse_bytes


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"olla.torch.max_batch: error: {message}", file=sys.stderr)
        raise SystemExit(1)


def _parser():
    parser = _Parser(prog="python -m olla.torch.max_batch",
                     description="The largest training batch that fits a memory.")
    parser.add_argument("model", help="a zoo model or torchvision classifier "
                                      "(python -m olla.capture --list)")
    parser.add_argument("--memory", required=True,
                        help="bytes: 16GiB, 16G, 16GB (decimal), 512MiB, 1000000")
    parser.add_argument("--optimizer", choices=("sgd", "momentum", "adam"),
                        help="default: the zoo's choice for the model, else sgd")
    parser.add_argument("--max-batch", type=int, default=1 << 16)
    parser.add_argument("--recompute-overhead", type=float, default=0.1,
                        help="the compute recomputation may add, a fraction of the "
                             "step's (default 0.1)")
    parser.add_argument("--time-limit", type=float, default=10.0,
                        help="seconds for each plan (default 10)")
    parser.add_argument("--work-limit", type=int,
                        help="deterministic work units for each plan (as olla optimize)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main(argv=None):
    arguments = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        memory = parse_bytes(arguments.memory)
        entry = zoo.ZOO.get(arguments.model)
        first = zoo.workload(arguments.model, 2, "train")

        def make_inputs(batch):
            work = zoo.workload(arguments.model, batch, "train")
            return work.inputs, work.targets

        result = max_batch_size(
            first.model, make_inputs, first.loss_fn,
            arguments.optimizer or (entry.optimizer if entry else "sgd"), memory,
            max_batch=arguments.max_batch,
            min_batch=entry.min_train_batch if entry else 1,
            time_limit=arguments.time_limit, recompute_overhead=arguments.recompute_overhead,
            **({} if arguments.work_limit is None else {"work_limit": arguments.work_limit}))
    except (zoo.UnknownModel, ValueError) as error:
        print(f"olla.torch.max_batch: error: {error}", file=sys.stderr)
        return 1
    if arguments.json:
        def fit(f):
            return {"batch": f.batch, "bytes": f.bytes, "next_bytes": f.next_bytes,
                    "added_compute": f.added_compute.get(f.batch)}
        print(json.dumps({"model": arguments.model, "memory": memory,
                          "eager": fit(result.eager), "olla": fit(result.olla),
                          "olla_recompute": fit(result.olla_recompute),
                          "recompute_overhead": result.recompute_overhead,
                          "seconds": result.seconds}))
    else:
        print(f"{arguments.model}: " + result.text())
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
