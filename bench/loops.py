"""olla.torch on models and loops outside the test suite: is every step eager's (or
refused), is the promised saving the measured one, what the self-check costs, and how
an olla step's time compares with eager's.

    .venv/bin/python bench/loops.py [--quick]

Writes bench/results/loops.md. Four tables:
  - fidelity: three olla steps against three eager steps of the same loop, bitwise, or
    the error olla refused with (maxvit_t at 224 px, a batch in another layout,
    efficientnet_v2_s, RNNs, clipping, accumulation, autocast, more optimizers);
  - prediction: step.predicted_saving() (against the eager peak the self-check
    measured) and the graph's own model of eager (the report's eager_peak_live_bytes)
    beside the saving olla.torch.measure measures;
  - cost: the self-check's share of optimize()'s seconds;
  - speed: the median step time of olla and of eager over 60 interleaved steps,
    small models at batch 4 (the executor's dispatch per op is Python).
"""

import argparse
import copy
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests" / "python" / "torch"))

import torch  # noqa: E402
import torchvision  # noqa: E402
from torch import nn  # noqa: E402

import olla.torch as olla_torch  # noqa: E402
from machine import machine  # noqa: E402
from olla.capture.loop import Loop  # noqa: E402
from torch_models import TinyGPT, gpt_loss  # noqa: E402

cross_entropy = nn.functional.cross_entropy


def images(batch, side, classes=10, seed=1):
    generator = torch.Generator().manual_seed(seed)
    return (torch.randn(batch, 3, side, side, generator=generator),
            torch.randint(0, classes, (batch,), generator=generator))


def segmentation_loss(output, target):
    return cross_entropy(output["out"], target)


def pixels(batch, side, classes=21):
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(batch, 3, side, side, generator=generator),
            torch.randint(0, classes, (batch, side, side), generator=generator))


def tokens(batch=4):
    generator = torch.Generator().manual_seed(2)
    return (torch.randint(0, 96, (batch, 16), generator=generator),
            torch.randint(0, 96, (batch, 16), generator=generator))


def sgd(parameters):
    return torch.optim.SGD(parameters, lr=0.01, momentum=0.9, weight_decay=1e-4)


class FlattensItsInput(nn.Module):
    """A model that reads its input's memory as laid out: flattened first."""

    def __init__(self):
        super().__init__()
        self.head = nn.Linear(3 * 16 * 16, 10)

    def forward(self, x):
        return self.head(x.flatten(1))


def three_steps(make_model, batch, loss_fn, make_optimizer=sgd, loop=None,
                step_batch=None):
    """'equal over 3 steps' or the error: olla's steps against eager's, bitwise.
    loop: Loop options, before_update as a function of the model; step_batch: the
    batch in another layout (the same values) for the olla steps."""
    torch.manual_seed(0)
    model = make_model()
    reference = copy.deepcopy(model)
    optimizer, reference_optimizer = (make_optimizer(model.parameters()),
                                      make_optimizer(reference.parameters()))

    def loop_for(m):
        return {k: v(m) if k == "before_update" else v for k, v in (loop or {}).items()}

    x, y = batch
    eager = Loop(**loop_for(reference))
    try:
        step = olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                                   time_limit=5, **loop_for(model))
        for seed in range(3):
            torch.manual_seed(seed)
            loss = step(x if step_batch is None else step_batch, targets=[y])
            torch.manual_seed(seed)
            expected = eager.eager_step(reference, reference_optimizer, loss_fn, [x], [y])
            if not torch.equal(loss, expected):
                return f"**differs** at step {seed}: {loss.item()} vs {expected.item()}"
    except ValueError as error:
        return f"refused: {str(error).splitlines()[0][:160]}"
    same = all(torch.equal(a, b) for a, b in zip(model.state_dict().values(),
                                                  reference.state_dict().values()))
    return "equal over 3 steps" if same else "**state differs** after 3 steps"


def clip(model):
    return lambda: nn.utils.clip_grad_norm_(model.parameters(), 1.0)


def fidelity(quick):
    cases = [
        ("maxvit_t, 224 px, batch 2", lambda: torchvision.models.maxvit_t(num_classes=10),
         images(2, 224), cross_entropy, sgd, None, None),
        ("flattening model, channels_last batch", FlattensItsInput, images(4, 16),
         cross_entropy, sgd, None,
         images(4, 16)[0].to(memory_format=torch.channels_last)),
        ("efficientnet_v2_s (SiLU), 64 px, batch 2",
         lambda: torchvision.models.efficientnet_v2_s(num_classes=10), images(2, 64),
         cross_entropy, sgd, None, None),
        ("resnet18, clip_grad_norm_ 1.0", lambda: torchvision.models.resnet18(
            num_classes=10), images(4, 64), cross_entropy, sgd,
         {"before_update": clip}, None),
        ("resnet18, 4 micro-batches", lambda: torchvision.models.resnet18(
            num_classes=10), images(8, 64), lambda o, t: cross_entropy(o, t) / 4, sgd,
         {"accumulate": 4}, None),
        ("resnet18, bfloat16 autocast", lambda: torchvision.models.resnet18(
            num_classes=10), images(4, 64), cross_entropy, sgd,
         {"autocast": torch.bfloat16}, None),
        ("tied GPT, RMSprop centered", TinyGPT, tokens(), gpt_loss,
         lambda ps: torch.optim.RMSprop(ps, lr=1e-3, centered=True, momentum=0.5), None,
         None),
        ("tied GPT, Adagrad", TinyGPT, tokens(), gpt_loss,
         lambda ps: torch.optim.Adagrad(ps, lr=1e-2, lr_decay=0.01), None, None),
        ("tied GPT, NAdam", TinyGPT, tokens(), gpt_loss,
         lambda ps: torch.optim.NAdam(ps, lr=1e-3, weight_decay=0.01), None, None),
        ("tied GPT, AdamW foreach=True", TinyGPT, tokens(), gpt_loss,
         lambda ps: torch.optim.AdamW(ps, lr=1e-3, foreach=True), None, None),
    ]
    if quick:
        cases = cases[1:2] + cases[6:7]
    rows = []
    for name, make, batch, loss_fn, optimizer, loop, step_batch in cases:
        started = time.perf_counter()
        result = three_steps(make, batch, loss_fn, optimizer, loop, step_batch)
        rows.append(f"| {name} | {result} | {time.perf_counter() - started:.1f} |")
        print(rows[-1], flush=True)
    return ["| model and loop | olla against eager | seconds |", "|---|---|---:|"] + rows


def prediction(quick):
    vision = torchvision.models
    cases = [
        ("resnet18, two param groups", lambda: vision.resnet18(num_classes=10),
         images(4, 64), cross_entropy,
         lambda ps: torch.optim.SGD([{"params": list(ps)[:30], "lr": 0.01},
                                     {"params": [], "lr": 0.001}], lr=0.01,
                                    momentum=0.9)),
        ("deeplabv3_mobilenet_v3_large, 128 px", lambda: vision.segmentation.
         deeplabv3_mobilenet_v3_large(num_classes=21, weights_backbone=None),
         pixels(2, 128), segmentation_loss, sgd),
        ("fcn_resnet50, 128 px", lambda: vision.segmentation.fcn_resnet50(
            num_classes=21, weights_backbone=None), pixels(2, 128), segmentation_loss,
         sgd),
        ("convnext_tiny", lambda: vision.convnext_tiny(num_classes=10), images(4, 64),
         cross_entropy, sgd),
        ("swin_t", lambda: vision.swin_t(num_classes=10), images(4, 64), cross_entropy,
         sgd),
        ("regnet_y_400mf", lambda: vision.regnet_y_400mf(num_classes=10), images(4, 64),
         cross_entropy, sgd),
        ("densenet121", lambda: vision.densenet121(num_classes=10), images(4, 64),
         cross_entropy, sgd),
        ("squeezenet1_0", lambda: vision.squeezenet1_0(num_classes=10), images(4, 64),
         cross_entropy, sgd),
        ("efficientnet_v2_s", lambda: vision.efficientnet_v2_s(num_classes=10),
         images(4, 64), cross_entropy, sgd),
        ("mobilenet_v3_large", lambda: vision.mobilenet_v3_large(num_classes=10),
         images(4, 64), cross_entropy, sgd),
        # Planned as one step: against eager's loop of four backward passes into .grad.
        ("resnet18, batch 16 as 4 micro-batches", lambda: vision.resnet18(num_classes=10),
         images(16, 64), cross_entropy, sgd, {"accumulate": 4}),
    ]
    if quick:
        cases = cases[-4:-3]
    rows, costs = [], []
    for name, make, (x, y), loss_fn, make_optimizer, *loop in cases:
        torch.manual_seed(0)
        model = make()
        optimizer = make_optimizer(model.parameters())
        if len(optimizer.param_groups) == 2:  # The rest of the parameters, lr / 10.
            optimizer.param_groups[1]["params"] = list(model.parameters())[30:]
        started = time.perf_counter()
        step = olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                                   time_limit=5, **(loop[0] if loop else {}))
        seconds = time.perf_counter() - started
        olla_torch.eager_step(model, optimizer, loss_fn, [x], [y])  # State exists.
        result = olla_torch.measure(step, [x], [y], print_result=False)
        graph_model = 1 - step.plan.arena_bytes / step.report["eager_peak_live_bytes"]
        measured, predicted = 100 * result["saving"], 100 * result["predicted_saving"]
        rows.append(f"| {name} | {result['eager_peak_bytes'] / 2**20:.1f} | "
                    f"{result['olla_peak_bytes'] / 2**20:.1f} | {measured:.1f} % | "
                    f"{predicted:.1f} % | {predicted - measured:+.1f} | "
                    f"{100 * graph_model:.1f} % |")
        share = step.timings["self_check"] / seconds
        costs.append(f"| {name} | {seconds:.2f} | {step.timings['capture']:.2f} | "
                     f"{step.timings['calibrate']:.2f} | "
                     f"{step.timings['self_check']:.2f} | {100 * share:.0f} % |")
        print(rows[-1], costs[-1], sep="\n", flush=True)
    return (["| model (SGD, batch as shown) | eager MiB | olla MiB | measured saving | "
             "predicted | points off | graph's model of eager |",
             "|---|---:|---:|---:|---:|---:|---:|"] + rows,
            ["| model | optimize s | capture | calibrate | self-check | share |",
             "|---|---:|---:|---:|---:|---:|"] + costs)


def speed(quick):
    cases = [
        ("tied GPT (2 blocks, width 32), batch 4", TinyGPT, tokens(), gpt_loss),
        ("small CNN (3 conv), batch 4, 32 px", lambda: nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, stride=2),
            nn.ReLU(), nn.Conv2d(32, 32, 3, stride=2), nn.ReLU(), nn.Flatten(),
            nn.LazyLinear(10)), images(4, 32), cross_entropy),
        ("resnet18, batch 4, 64 px", lambda: torchvision.models.resnet18(num_classes=10),
         images(4, 64), cross_entropy),
    ]
    rows = []
    for name, make, (x, y), loss_fn in cases:
        torch.manual_seed(0)
        model = make()
        model(x)  # Initializes a lazy layer.
        reference = copy.deepcopy(model)
        step = olla_torch.optimize(model, [x], loss_fn, sgd(model.parameters()),
                                   targets=[y], time_limit=5)
        reference_optimizer = sgd(reference.parameters())
        runs = {"eager": lambda: olla_torch.eager_step(reference, reference_optimizer,
                                                       loss_fn, [x], [y]),
                "olla": lambda: step(x, targets=[y])}
        times = {name: [] for name in runs}
        # Interleaved, so that a slow spell of the shared machine hits both alike.
        for _ in range(5 if quick else 60):
            for variant, run in runs.items():
                started = time.perf_counter()
                run()
                times[variant].append(time.perf_counter() - started)
        eager, olla = (statistics.median(times[v]) for v in ("eager", "olla"))
        ops = len(step.plan.order)
        rows.append(f"| {name} | {ops} | {1000 * eager:.2f} | {1000 * olla:.2f} | "
                    f"{olla / eager:.2f} | {1e6 * (olla - eager) / ops:.1f} |")
        print(rows[-1], flush=True)
    return (["| model | ops | eager ms | olla ms | olla / eager | extra µs per op |",
             "|---|---:|---:|---:|---:|---:|"] + rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few cases, for a check")
    quick = parser.parse_args().quick
    table_fidelity = fidelity(quick)
    table_prediction, table_cost = prediction(quick)
    table_speed = speed(quick)
    lines = [
        "# olla.torch on models and loops outside the tests", "",
        f"Machine: {machine()}; torch {torch.__version__}. "
        "Written by `bench/loops.py`.", "",
        "## Fidelity: three olla steps against three eager steps, bitwise", "",
        *table_fidelity, "",
        "## Prediction: the saving promised and the saving measured", "",
        "Measured: `olla.torch.measure` (an eager step's peak through PyTorch's CPU "
        "allocator against olla's arena plus what fell through). Predicted: "
        "`step.predicted_saving()`, against the eager peak the self-check measured. "
        "The last column is the plan against the graph's own model of eager "
        "(`eager_peak_live_bytes`), which misses kernels' scratch freed before their "
        "outputs exist.", "",
        *table_prediction, "",
        "## The self-check's cost", "",
        *table_cost, "",
        "## Step time", "",
        "Median of 60 steps' wall time each, olla's and eager's interleaved (a noisy "
        "shared machine: read the ratios). The executor runs the plan's order as one "
        "generated Python function, one call per ATen op, and announces each op's "
        "allocations to the arena by position; eager PyTorch's autograd engine runs the "
        "backward in C++.", "",
        *table_speed, ""]
    out = ROOT / "bench" / "results" / "loops.md"
    if not quick:
        out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
