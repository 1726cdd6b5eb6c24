"""The memory of an eager step against olla's, through PyTorch's
CPU allocator."""

from ..capture.loop import Loop
from . import arena as arenas


def eager_step(model, optimizer, loss_fn, inputs, targets=(), kwargs=None):
    """One eager training step as users write it; returns the loss."""
    return Loop().eager_step(model, optimizer, loss_fn, inputs, targets, kwargs)


def measure_eager(model, optimizer, loss_fn, inputs, targets=(), kwargs=None, loop=None):
    """Peak bytes allocated through PyTorch's CPU allocator during one eager step (of
    `loop`, a capture.loop.Loop, when given), the state (parameters, optimizer state,
    inputs) allocated beforehand."""
    with arenas.counting() as stats:
        (loop or Loop()).eager_step(model, optimizer, loss_fn, inputs, targets, kwargs)
        optimizer.zero_grad(set_to_none=True)  # Inside: the gradients' bytes are ours.
    return stats().fall_through_peak_bytes


def measure(olla_step, inputs, targets=(), kwargs=None, print_result=True):
    """Runs one eager step and one olla step of `olla_step`'s model and optimizer (both
    update them, as training would) and returns a dict: eager_peak_bytes (the peak of
    live bytes PyTorch allocated), olla_arena_bytes, olla_fall_through_peak_bytes,
    olla_peak_bytes (their sum), saving (1 - olla / eager), predicted_saving
    (OllaStep.predicted_saving) and the arena's stats."""
    model, optimizer = olla_step.model, olla_step.optimizer
    inputs = list(inputs)
    targets = list(targets)
    eager = measure_eager(model, optimizer, olla_step.graph.step.loss_fn, inputs, targets,
                          kwargs, olla_step.loop)
    olla_step(*inputs, targets=targets, **(kwargs or {}))
    stats = olla_step.last_stats
    result = dict(
        eager_peak_bytes=eager, olla_arena_bytes=stats.arena_bytes,
        olla_fall_through_peak_bytes=stats.fall_through_peak_bytes,
        olla_peak_bytes=stats.peak_bytes, saving=1 - stats.peak_bytes / eager,
        predicted_saving=olla_step.predicted_saving(), stats=stats)
    if print_result:
        print(f"eager PyTorch step:  {eager / 2**20:10.1f} MiB at peak\n"
              f"olla step:           {stats.peak_bytes / 2**20:10.1f} MiB at peak "
              f"(arena {stats.arena_bytes / 2**20:.1f} MiB + "
              f"{stats.fall_through_peak_bytes / 2**20:.1f} MiB outside the plan)\n"
              f"saving:              {100 * result['saving']:10.1f} % "
              f"(the plan predicted {100 * result['predicted_saving']:.1f} %)")
    return result


def _status_bytes(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return None


def resident_peak_bytes(run):
    """How far the process's resident memory rises above where it was while `run()`
    runs, from Linux's peak (VmHWM) after resetting it (/proc/self/clear_refs): what
    the step costs the machine, the system allocator's fragmentation included. Compare
    runs in fresh processes (examples/train_with_olla.py --resident); None where Linux
    cannot reset the peak."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    except OSError:
        return None
    before = _status_bytes("VmRSS")
    run()
    peak = _status_bytes("VmHWM")
    return None if before is None or peak is None else peak - before
