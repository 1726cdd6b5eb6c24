"""python -m olla.capture MODEL --batch N --mode train|eval --optimizer ... -o FILE

Captures one step of a zoo model or any torchvision classification model and writes
the olla graph. Exit codes as olla's: 0 success, 1 bad input or usage (one line on
stderr), 3 internal error.
"""

import argparse
import signal
import sys
import time

from .. import zoo
from .graph import save
from .optimizers import OPTIMIZERS
from .step import MODES, capture_training_step
from .storage import CaptureError


class _Parser(argparse.ArgumentParser):

    def error(self, message):
        self.exit(1, f"olla.capture: error: {message}\n")


def _parser():
    parser = _Parser(prog="python -m olla.capture",
                     description="Capture one PyTorch training step as an olla graph.")
    parser.add_argument("model", nargs="?", help="a zoo model or torchvision classifier")
    parser.add_argument("--batch", type=int, default=1, help="batch size (default 1)")
    parser.add_argument("--mode", choices=MODES, default="train")
    parser.add_argument("--optimizer", choices=OPTIMIZERS,
                        help="train mode only (default: the zoo's choice, else sgd)")
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--copy-elimination", action="store_true",
                        help="apply the exact rewrites of olla.capture.rewrites (an "
                             "in-place ReLU6's saved input copy): the graph then "
                             "differs from what eager PyTorch runs")
    parser.add_argument("--self-check", action="store_true",
                        help="train mode: run the traced step once and one eager step "
                             "of the model and compare them bit for bit (olla.torch's "
                             "self-check); a difference is an error, exit code 1")
    parser.add_argument("--measure-costs", action="store_true",
                        help="time every op on this machine (four runs of the traced "
                             "step) and write each op's cost in seconds: budget mode "
                             "then minimises measured compute")
    parser.add_argument("-o", "--output", help="FILE.json or FILE.json.gz")
    parser.add_argument("--list", action="store_true", help="list the models and exit")
    return parser


def _list():
    print("zoo:")
    for entry in zoo.ZOO.values():
        print(f"  {entry.name:18} {entry.description}")
    print("torchvision classifiers (any of):")
    print("  " + " ".join(zoo.torchvision_classifiers()))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    arguments = _parser().parse_args(argv)
    if arguments.list:
        _list()
        return 0
    if not arguments.model or not arguments.output:
        _parser().error("MODEL and -o FILE are required (or --list)")
    if arguments.batch < 1:
        _parser().error(f"--batch must be at least 1, not {arguments.batch}")
    if not arguments.output.endswith((".json", ".json.gz")):
        _parser().error(f"output '{arguments.output}' must end in .json or .json.gz")
    entry = zoo.ZOO.get(arguments.model)
    if (arguments.mode == "train" and entry is not None and
            arguments.batch < entry.min_train_batch):
        _parser().error(f"{arguments.model} in train mode needs --batch "
                        f"{entry.min_train_batch} or more")
    if arguments.mode == "eval" and arguments.optimizer:
        _parser().error("--optimizer applies to train mode only (eval captures the "
                        "forward pass alone)")
    if arguments.mode == "eval" and arguments.self_check:
        _parser().error("--self-check applies to train mode only")
    optimizer = arguments.optimizer or (entry.optimizer if entry else "sgd")

    started = time.perf_counter()
    try:
        try:
            work = zoo.workload(arguments.model, arguments.batch, arguments.mode)
        except (RuntimeError, MemoryError) as error:  # torch: "Storage size ... overflowed"
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise CaptureError(f"cannot make example inputs for --batch {arguments.batch}: "
                               f"{first}") from error
        graph = capture_training_step(
            work.model, work.inputs, work.loss_fn, work.targets, optimizer=optimizer,
            lr=arguments.lr, mode=arguments.mode,
            copy_elimination=arguments.copy_elimination,
            name=f"{arguments.model}.{arguments.mode}.b{arguments.batch}",
            metadata={"model": arguments.model, "batch": arguments.batch,
                      "command": " ".join(["python -m olla.capture"] + argv)})
        checked = ""
        if arguments.self_check:
            from ..torch.self_check import SelfCheckError, check_captured
            try:
                result = check_captured(graph)
            except SelfCheckError as error:
                raise CaptureError(str(error)) from error
            checked = f", self-check: {result.tensors} tensors equal to eager's"
        if arguments.measure_costs:
            from ..torch.costs import measure_costs
            seconds = measure_costs(graph)
            checked += f", costs measured in {seconds:.1f} s"
        save(graph, arguments.output)
    except (zoo.UnknownModel, CaptureError, OSError) as error:
        print(f"olla.capture: error: {error}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - started
    rewrites = "".join(f", {count} x {name}" for name, count in
                       graph.metadata.get("rewrites", {}).items())
    print(f"{arguments.output}: {len(graph.ops)} ops, {len(graph.buffers)} buffers, "
          f"{graph.persistent_bytes()} persistent bytes{rewrites}{checked}, "
          f"{seconds:.1f} s")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `--list | head` ends quietly
    sys.exit(main())
