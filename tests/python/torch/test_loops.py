"""The training loops people write around the update, through olla.torch.optimize's
loop options (olla/capture/loop.py): gradient clipping, accumulation over micro-batches
and autocast, three steps bitwise equal to the same eager loop; and a loop olla cannot
follow is refused, never silently run otherwise."""

import copy
import functools

import pytest
import torch
from torch import nn

import olla.torch as olla_torch
from olla.capture.loop import Loop

from torch_models import TinyGPT, gpt_loss


def cnn():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.SiLU(),
                         nn.Conv2d(8, 8, 3, stride=2), nn.GELU(), nn.Flatten(),
                         nn.Linear(8 * 3 * 3, 5))


def image_batch(rows=8):
    generator = torch.Generator().manual_seed(4)
    return (torch.randn(rows, 3, 8, 8, generator=generator),
            torch.randint(0, 5, (rows,), generator=generator))


def clip_norm(model, max_norm):
    return lambda: nn.utils.clip_grad_norm_(model.parameters(), max_norm)


def clip_value(model, value):
    return lambda: nn.utils.clip_grad_value_(model.parameters(), value)


def run_both(make_model, batch, loss_fn, loop_of, make_optimizer, steps=3):
    """Three olla steps and three eager steps of the same loop, compared bitwise.
    loop_of(model) -> the Loop's keyword arguments for that model."""
    model = make_model()
    reference = copy.deepcopy(model)
    optimizer = make_optimizer(model.parameters())
    reference_optimizer = make_optimizer(reference.parameters())
    x, y = batch
    step = olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                               work_limit=10_000, **loop_of(model))
    eager_loop = Loop(**loop_of(reference))
    for seed in range(steps):
        torch.manual_seed(seed)
        loss = step(x, targets=[y])
        torch.manual_seed(seed)
        expected = eager_loop.eager_step(reference, reference_optimizer, loss_fn, [x], [y])
        assert torch.equal(loss, expected), f"step {seed}: {loss} != {expected}"
        assert step.last_stats.fell_through == 0
    for (name, ours), theirs in zip(model.state_dict().items(),
                                    reference.state_dict().values()):
        assert torch.equal(ours, theirs), f"{name} differs"
    return step


sgd = functools.partial(torch.optim.SGD, lr=0.1, momentum=0.9)
adamw = functools.partial(torch.optim.AdamW, lr=1e-2, weight_decay=0.1)
cross_entropy = nn.functional.cross_entropy


@pytest.mark.parametrize("loop_of", [
    lambda model: dict(before_update=clip_norm(model, 0.5)),
    lambda model: dict(before_update=clip_norm(model, 1e6)),  # clips nothing
    lambda model: dict(before_update=clip_value(model, 0.01)),
], ids=["clip-norm", "clip-norm-above", "clip-value"])
def test_gradient_clipping_equals_eager(loop_of):
    run_both(cnn, image_batch(), cross_entropy, loop_of, sgd)


def test_clipping_through_the_optimizers_param_groups_on_the_tied_gpt():
    def clip(optimizer):
        def clip_every_group():
            for group in optimizer.param_groups:
                nn.utils.clip_grad_norm_(group["params"], 0.1)
        return clip_every_group

    torch.manual_seed(0)
    model = TinyGPT()
    reference = copy.deepcopy(model)
    optimizer, reference_optimizer = adamw(model.parameters()), adamw(reference.parameters())
    generator = torch.Generator().manual_seed(2)
    tokens = torch.randint(0, 96, (4, 16), generator=generator)
    targets = torch.randint(0, 96, (4, 16), generator=generator)
    step = olla_torch.optimize(model, [tokens], gpt_loss, optimizer, targets=[targets],
                               work_limit=10_000, before_update=clip(optimizer))
    eager = Loop(before_update=clip(reference_optimizer))
    for _ in range(3):
        loss = step(tokens, targets=[targets])
        expected = eager.eager_step(reference, reference_optimizer, gpt_loss, [tokens],
                                    [targets])
        assert torch.equal(loss, expected)
    for ours, theirs in zip(model.parameters(), reference.parameters()):
        assert torch.equal(ours, theirs)


@pytest.mark.parametrize("micro_batches", [2, 4])
def test_accumulating_micro_batches_equals_eager(micro_batches):
    def loss_fn(output, target):  # The mean over the whole batch, as loops scale it.
        return cross_entropy(output, target) / micro_batches

    step = run_both(cnn, image_batch(), loss_fn,
                    lambda model: dict(accumulate=micro_batches), sgd)
    assert step.graph.metadata["loop"]["accumulate"] == micro_batches


def test_accumulation_with_clipping_and_adamw_equals_eager():
    run_both(cnn, image_batch(), cross_entropy,
             lambda model: dict(accumulate=2, before_update=clip_norm(model, 0.5)), adamw)


def test_autocast_around_the_forward_pass_equals_eager():
    run_both(cnn, image_batch(), cross_entropy,
             lambda model: dict(autocast=torch.bfloat16), sgd)


def test_autocast_is_for_the_steps_device_type():
    # An autocast region of the CPU's type around a CUDA step casts nothing: the step
    # would train in float32 where the user asked for bfloat16, the same way eager and
    # traced, so no comparison would catch it (it did so before CUDA steps).
    import warnings
    loop = Loop(autocast=torch.bfloat16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "CUDA is not available" on a CPU machine
        for device in ("cpu", "cuda", torch.device("cuda", 0)):
            context = loop.autocast_context(device)
            assert context.device == torch.device(device).type
            assert context.fast_dtype == torch.bfloat16


def test_an_autocast_region_around_optimize_or_the_step_is_refused():
    x, y = image_batch()
    model = cnn()
    optimizer = sgd(model.parameters())
    with torch.autocast("cpu", dtype=torch.bfloat16), pytest.raises(
            ValueError, match="autocast: olla.torch.optimize runs inside torch.autocast; "
                              "pass autocast=torch.bfloat16"):
        olla_torch.optimize(model, [x], cross_entropy, optimizer, targets=[y])
    step = olla_torch.optimize(model, [x], cross_entropy, optimizer, targets=[y],
                               work_limit=10_000, autocast=torch.bfloat16)
    with torch.autocast("cpu", dtype=torch.bfloat16), pytest.raises(
            ValueError, match="autocast: the step runs inside torch.autocast"):
        step(x, targets=[y])


def test_clipping_a_list_of_the_real_parameters_is_caught_by_the_self_check():
    model = cnn()
    parameters = list(model.parameters())  # Not what the traced step updates.
    x, y = image_batch()
    with pytest.raises(olla_torch.SelfCheckError, match="does not compute what eager"):
        olla_torch.optimize(
            model, [x], cross_entropy, sgd(model.parameters()), targets=[y],
            work_limit=10_000,
            before_update=lambda: nn.utils.clip_grad_norm_(parameters, 0.01))


@pytest.mark.parametrize("options, words", [
    ({"accumulate": 3}, r"accumulate=3: inputs\[0\] has 8 rows along dimension 0, "
                        r"not a multiple of 3 micro-batches"),
    ({"accumulate": 0}, "accumulate: expected a positive number of micro-batches"),
    ({"autocast": torch.float64}, "autocast: expected torch.bfloat16, torch.float16"),
    ({"before_update": 3}, "before_update: expected a function of no arguments"),
])
def test_a_bad_loop_is_refused_before_the_capture(options, words):
    x, y = image_batch()
    model = cnn()
    with pytest.raises(ValueError, match=words):
        olla_torch.optimize(model, [x], cross_entropy, sgd(model.parameters()),
                            targets=[y], **options)
