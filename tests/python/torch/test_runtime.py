"""olla.torch.optimize runs the user's model and optimizer in olla's plan: the same
losses, parameters, buffers and optimizer state as eager steps, every planned buffer at
its planned offset, and the memory the plan predicts."""

import collections
import copy

import pytest
import torch
import torchvision

import olla.torch as olla_torch
from olla.torch import _arena
from olla.torch.memory import eager_step, measure

from torch_models import ResidualMLP, TinyGPT, gpt_loss, linear_loss, residual_batch

cross_entropy = torch.nn.functional.cross_entropy


def image_batch(classes=10):
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(8, 3, 64, 64, generator=generator),
            torch.randint(0, classes, (8,), generator=generator))


def token_batch(batch=4, length=16):
    generator = torch.Generator().manual_seed(2)
    return (torch.randint(0, 96, (batch, length), generator=generator),
            torch.randint(0, 96, (batch, length), generator=generator))


CASES = {
    "resnet18": (lambda: torchvision.models.resnet18(num_classes=10),
                 lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True,
                                            weight_decay=1e-4),
                 image_batch, cross_entropy),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(num_classes=10),
                     lambda ps: torch.optim.Adam(ps, lr=1e-3, amsgrad=True,
                                                 weight_decay=1e-4),
                     image_batch, cross_entropy),
    "residual_mlp": (ResidualMLP,
                     lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9),
                     residual_batch, linear_loss),
    # 512 tokens: a peak of activations over twenty times the parameters, as in real steps.
    "tiny_gpt_long": (lambda: TinyGPT(context=64),
                      lambda ps: torch.optim.SGD(ps, lr=0.1),
                      lambda: token_batch(8, 64), gpt_loss),
    "tiny_gpt_tied": (TinyGPT,
                      lambda ps: torch.optim.AdamW(ps, lr=1e-3, weight_decay=0.1),
                      token_batch, gpt_loss),
}


def twins(case):
    make_model, make_optimizer, batch, loss_fn = CASES[case]
    torch.manual_seed(0)
    model = make_model()
    reference = copy.deepcopy(model)
    return (model, make_optimizer(model.parameters()), reference,
            make_optimizer(reference.parameters()), batch(), loss_fn)


def assert_same_state(model, optimizer, reference, reference_optimizer):
    for (name, a), b in zip(model.state_dict().items(), reference.state_dict().values()):
        assert torch.equal(a, b), f"{name} differs"
    for p, q in zip(model.parameters(), reference.parameters()):
        ours = {k: v for k, v in optimizer.state[p].items() if v is not None}
        theirs = {k: v for k, v in reference_optimizer.state[q].items() if v is not None}
        assert ours.keys() == theirs.keys()
        for key in ours:
            assert torch.equal(ours[key], theirs[key]), f"optimizer state {key} differs"


@pytest.mark.parametrize("case", sorted(CASES))
def test_three_olla_steps_equal_three_eager_steps(case):
    model, optimizer, reference, reference_optimizer, (x, y), loss_fn = twins(case)
    step = olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                               work_limit=100_000)
    for seed in range(3):
        torch.manual_seed(seed)  # mobilenet_v2's dropout draws the same mask
        loss = step(x, targets=[y])
        torch.manual_seed(seed)
        expected = eager_step(reference, reference_optimizer, loss_fn, [x], [y])
        assert torch.equal(loss, expected), f"step {seed}: {loss} != {expected}"
        stats = step.last_stats
        # Every planned buffer and every scratch allocation the calibration saw was
        # served at its planned offset; nothing was refused or left unclaimed.
        assert stats.blocked == 0 and stats.unclaimed == 0
        assert stats.fell_through == 0, stats
        assert stats.served > 0
    assert_same_state(model, optimizer, reference, reference_optimizer)


# The prediction is against the eager peak the self-check measured, so it holds on any
# CPU (torch 2.11's convolution backward frees its scratch before it allocates the
# weight gradient on some and not on others, which the graph's model of eager misses).
@pytest.mark.parametrize("case", sorted(CASES))
def test_measured_saving_is_the_predicted_one(case):
    model, optimizer, _, _, (x, y), loss_fn = twins(case)
    step = olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                               work_limit=100_000)
    eager_step(model, optimizer, loss_fn, [x], [y])  # The optimizer's state exists.
    result = measure(step, [x], [y], print_result=False)
    assert abs(result["saving"] - result["predicted_saving"]) <= 0.02, result


# Budgets that order and placement alone cannot meet: the plan recomputes, and the
# steps still equal eager PyTorch's bit for bit, every allocation inside the budget.
def run_budgeted(case, fraction, work_limit=20_000, most_added=0.5):
    model, optimizer, reference, reference_optimizer, (x, y), loss_fn = twins(case)
    probe = copy.deepcopy(model)
    # Only its bound is read, which more work does not change (100,000: 1.3 s more).
    unbudgeted = olla_torch.optimize(
        probe, [x], loss_fn, torch.optim.SGD(probe.parameters(), lr=0.1), targets=[y],
        work_limit=5_000, time_limit=3600)  # wall clock: far away, work stops it
    budget = int(unbudgeted.report["lower_bound_bytes"] * fraction)
    step = olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                               memory_budget=budget, work_limit=work_limit,
                               time_limit=3600)  # wall clock: far away, work stops it
    assert step.plan.recompute, "the budget needs recomputation"
    assert step.plan.arena_bytes <= budget
    assert 0 < step.report["added_compute"] < most_added
    for seed in range(3):
        torch.manual_seed(seed)
        loss = step(x, targets=[y])
        torch.manual_seed(seed)
        expected = eager_step(reference, reference_optimizer, loss_fn, [x], [y])
        assert torch.equal(loss, expected), f"step {seed}: {loss} != {expected}"
        stats = step.last_stats
        assert stats.fell_through == 0 and stats.blocked == 0, stats
        assert stats.peak_bytes <= budget
    assert_same_state(model, optimizer, reference, reference_optimizer)
    return step


# mobilenet_v2's search stops by work early: each of its measurements costs a
# millisecond, and 20,000 of them took 25 s of the suite.
@pytest.mark.parametrize("case, fraction, work_limit", [("tiny_gpt_tied", 0.7, 20_000),
                                                        ("mobilenet_v2", 0.6, 3_000)])
def test_a_plan_that_recomputes_runs_like_eager(case, fraction, work_limit):
    run_budgeted(case, fraction, work_limit)


# Well below half the peak the search runs some ops again once for each of their readers
# and others twice, parted at a cut (docs/budget.md): each run's copy serves its own
# readers, and the step is still eager's. The attention kernel (dropout_p 0) runs again
# too: its second run gives its values.
def test_ops_run_again_for_each_reader_or_at_a_cut_run_like_eager():
    step = run_budgeted("tiny_gpt_tied", 0.36, work_limit=20_000)
    runs = collections.defaultdict(list)  # op -> how many readers each of its runs serves
    for r in step.plan.recompute:
        runs[r["op"]].append(len(r["serves"]))
    again = {op: served for op, served in runs.items() if len(served) > 1}
    assert any(len(served) > 2 for served in again.values()), \
        f"no op runs for each of three readers: the test needs one ({again})"
    assert any(max(served) > 1 for served in again.values()), \
        f"no op's runs are parted at a cut: the test needs one ({again})"
    types = {step.graph.ops[op].type for op in again}
    assert "aten::_scaled_dot_product_flash_attention_for_cpu" in types, types


# Near its floor, a GPT's MLP run again while its GELU's gradients wait reads the block's
# residual sum twice: through the norm into the first linear layer, and at the add after
# the second. The search makes that sum once for each, by a chain of its own (the
# attention run again), so that neither waits across the MLP's wide outputs
# (docs/budget.md): the same op then runs twice between two steps of the order, and the
# step is still eager's bit for bit.
def test_runs_in_chains_of_their_own_run_like_eager():
    step = run_budgeted("tiny_gpt_long", 0.315, work_limit=100_000, most_added=1.0)
    runs_ahead = {r["id"] for r in step.plan.recompute}
    gap, gaps = 0, {}
    for op in step.plan.order:
        if op in runs_ahead:
            gaps[op] = gap
        else:
            gap += 1
    twice = collections.Counter((r["op"], gaps[r["id"]]) for r in step.plan.recompute)
    assert max(twice.values()) > 1, "no op runs twice in one gap: the test needs one"


# A gradient read on both sides of a long stretch of the backward pass (the residual
# block's output gradient, read by its branch and again where the skip joins it) is made
# again by running its backward ops again; the step is still eager's bit for bit.
def test_backward_ops_run_again_run_like_eager():
    step = run_budgeted("residual_mlp", 0.9)
    backward = {step.graph.ops[r["op"]].type for r in step.plan.recompute
                if step.graph.ops[r["op"]].phase == "backward"}
    assert backward, "no backward op runs again: the test needs one"
    assert step.plan.arena_bytes <= step.report["recompute_floor_bytes"] * 1.01


# The in-place residual add of a ResNet block (aten::add_) overwrites the branch's
# output only; the block's input, which it also reads, may be made again after it (the
# graph lists what each op writes; judged by the op's name, that input was kept and its
# reader's copy ran in the forward pass). Such a plan runs like eager bit for bit.
def test_an_input_an_in_place_op_only_reads_is_made_again_like_eager():
    step = run_budgeted("resnet18", 0.8)
    graph = step.graph
    only_read = set()  # Buffers an in-place op reads without overwriting them.
    for op in graph.ops:
        if op.type.split("::")[-1].split(".")[0].endswith("_") and op.writes:
            only_read.update(set(op.uses) - set(op.writes))
    remade = {b for r in step.plan.recompute for b in graph.ops[r["op"]].allocates}
    assert remade & only_read, "no such input is made again: the test needs one"


def test_tied_weights_are_one_buffer():
    model, optimizer, _, _, (x, y), loss_fn = twins("tiny_gpt_tied")
    step = olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                               work_limit=10_000)
    names = [b.name for b in step.graph.buffers if b.kind == "parameter"]
    assert "tok.weight" in names and "head.weight" not in names


def test_eager_and_olla_steps_alternate():
    model, optimizer, reference, reference_optimizer, (x, y), loss_fn = twins("resnet18")
    step = olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                               work_limit=10_000)
    for use_olla in (False, True, False, True):
        if use_olla:
            step(x, targets=[y])
        else:
            eager_step(model, optimizer, loss_fn, [x], [y])
        eager_step(reference, reference_optimizer, loss_fn, [x], [y])
    model.zero_grad(set_to_none=True)
    assert_same_state(model, optimizer, reference, reference_optimizer)


def test_a_learning_rate_change_reaches_the_traced_update():
    model, optimizer, reference, reference_optimizer, (x, y), loss_fn = twins("tiny_gpt_tied")
    step = olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                               work_limit=10_000)
    schedulers = [torch.optim.lr_scheduler.StepLR(o, step_size=1, gamma=0.5)
                  for o in (optimizer, reference_optimizer)]
    for _ in range(3):
        step(x, targets=[y])
        eager_step(reference, reference_optimizer, loss_fn, [x], [y])
        for scheduler in schedulers:
            scheduler.step()
    assert_same_state(model, optimizer, reference, reference_optimizer)


def test_keyword_inputs():
    class Scaled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(6, 3)

        def forward(self, x, *, scale):
            return self.linear(x) * scale

    torch.manual_seed(0)
    model = Scaled()
    reference = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    reference_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    x, scale, y = torch.randn(5, 6), torch.randn(5, 1), torch.randint(0, 3, (5,))
    step = olla_torch.optimize(model, [x], cross_entropy, optimizer, targets=[y],
                               example_kwargs={"scale": scale}, work_limit=1000)
    step(x, targets=[y], scale=scale)
    eager_step(reference, reference_optimizer, cross_entropy, [x], [y], {"scale": scale})
    assert_same_state(model, optimizer, reference, reference_optimizer)
    with pytest.raises(ValueError, match="keyword inputs"):
        step(x, targets=[y])


def small_step(optimizer_of=lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(),
                                torch.nn.Linear(8, 2))
    optimizer = optimizer_of(model.parameters())
    x, y = torch.randn(3, 4), torch.randint(0, 2, (3,))
    return model, optimizer, x, y


@pytest.mark.parametrize("optimizer_of", [
    lambda ps: torch.optim.SGD(ps, lr=0.1),
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.8, dampening=0.3),
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01, maximize=True),
    lambda ps: torch.optim.Adam(ps, lr=0.01, betas=(0.8, 0.95), eps=1e-6),
    lambda ps: torch.optim.Adam(ps, lr=0.01, maximize=True),
    lambda ps: torch.optim.AdamW(ps, lr=0.01, amsgrad=True),
    lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.0),
    # torch 2.x: Adam with decoupled weight decay is AdamW, not Adam with L2.
    lambda ps: torch.optim.Adam(ps, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
    lambda ps: torch.optim.Adam(ps, lr=0.01, weight_decay=0.1),
    lambda ps: torch.optim.SGD([{"params": list(ps)[:2], "lr": 0.2},
                                {"params": [], "lr": 0.1, "momentum": 0.5}], lr=0.1),
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, foreach=True),
    lambda ps: torch.optim.AdamW(ps, lr=0.01, amsgrad=True, foreach=True),
    # fused: torch.optim's one kernel, traced once per parameter (the same values).
    lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.1, fused=True),
    lambda ps: torch.optim.Adam(ps, lr=0.01, weight_decay=0.1, amsgrad=True,
                                maximize=True, fused=True),
    lambda ps: torch.optim.RMSprop(ps, lr=0.01),
    lambda ps: torch.optim.RMSprop(ps, lr=0.01, alpha=0.9, eps=1e-6, weight_decay=0.1,
                                   momentum=0.5, centered=True),
    lambda ps: torch.optim.RMSprop(ps, lr=0.01, centered=True, maximize=True,
                                   foreach=True),
    lambda ps: torch.optim.Adagrad(ps, lr=0.1),
    lambda ps: torch.optim.Adagrad(ps, lr=0.1, lr_decay=0.1, weight_decay=0.01,
                                   initial_accumulator_value=0.5, eps=1e-6,
                                   maximize=True),
    lambda ps: torch.optim.NAdam(ps, lr=0.01),
    lambda ps: torch.optim.NAdam(ps, lr=0.01, betas=(0.8, 0.9), weight_decay=0.1,
                                 momentum_decay=0.01),
    lambda ps: torch.optim.NAdam(ps, lr=0.01, weight_decay=0.1,
                                 decoupled_weight_decay=True, maximize=True),
    lambda ps: torch.optim.Adagrad(ps, lr=0.1, lr_decay=0.1, weight_decay=0.01,
                                   initial_accumulator_value=0.5, foreach=True),
])
def test_every_optimizer_option_matches_torch_optim(optimizer_of):
    model, optimizer, x, y = small_step(optimizer_of)
    reference = copy.deepcopy(model)
    reference_optimizer = optimizer_of(reference.parameters())
    if len(optimizer.param_groups) == 2:  # The last two parameters in the second group.
        for o, m in ((optimizer, model), (reference_optimizer, reference)):
            o.param_groups[1]["params"] = list(m.parameters())[2:]
    step = olla_torch.optimize(model, [x], cross_entropy, optimizer, targets=[y],
                               work_limit=1000)
    for _ in range(3):
        assert torch.equal(step(x, targets=[y]),
                           eager_step(reference, reference_optimizer, cross_entropy, [x], [y]))
    assert_same_state(model, optimizer, reference, reference_optimizer)


def test_inputs_of_another_shape_are_refused_by_name():
    model, optimizer, x, y = small_step()
    step = olla_torch.optimize(model, [x], cross_entropy, optimizer, targets=[y],
                               work_limit=1000)
    with pytest.raises(ValueError, match=r"inputs\[0\]: shape \(5, 4\) float32 differs "
                                         r"from the captured \(3, 4\) float32"):
        step(torch.randn(5, 4), targets=[y])
    with pytest.raises(ValueError, match=r"targets\[0\]: shape"):
        step(x, targets=[y.float()])


def test_untraceable_optimizers_and_options_are_named():
    model, _, x, y = small_step()
    with pytest.raises(ValueError, match="Adadelta cannot be traced by olla"):
        olla_torch.optimize(model, [x], cross_entropy,
                            torch.optim.Adadelta(model.parameters()), targets=[y])
    with pytest.raises(ValueError, match=r"param_groups\[0\] option fused=True is "
                                         r"traced by olla for torch.optim.Adam and AdamW"):
        olla_torch.optimize(model, [x], cross_entropy,
                            torch.optim.SGD(model.parameters(), lr=0.1, fused=True),
                            targets=[y])
    with pytest.raises(ValueError, match=r"param_groups\[0\] option foreach=True: "
                                         r"torch.optim's foreach NAdam rounds otherwise"):
        olla_torch.optimize(model, [x], cross_entropy,
                            torch.optim.NAdam(model.parameters(), foreach=True),
                            targets=[y])
    with pytest.raises(ValueError, match=r"param_groups\[0\] option lr is a tensor"):
        olla_torch.optimize(model, [x], cross_entropy,
                            torch.optim.Adam(model.parameters(), lr=torch.tensor(0.1)),
                            targets=[y])
    with pytest.raises(ValueError, match="optimizer: expected a torch.optim optimizer"):
        olla_torch.optimize(model, [x], cross_entropy, "sgd", targets=[y])


def test_an_option_that_changes_the_update_needs_a_new_plan():
    model, optimizer, x, y = small_step()
    step = olla_torch.optimize(model, [x], cross_entropy, optimizer, targets=[y],
                               work_limit=1000)
    optimizer.param_groups[0]["nesterov"] = True
    with pytest.raises(ValueError, match="call olla.torch.optimize again"):
        step(x, targets=[y])


def test_the_default_allocator_is_back_after_a_failing_step(monkeypatch):
    model, optimizer, x, y = small_step()
    step = olla_torch.optimize(model, [x], cross_entropy, optimizer, targets=[y],
                               work_limit=1000)

    def fail(flat, arena):
        assert _arena.installed()
        raise RuntimeError("a kernel failed")

    monkeypatch.setattr(step.executor, "run", fail)
    with pytest.raises(RuntimeError, match="a kernel failed"):
        step(x, targets=[y])
    assert not _arena.installed()
    torch.ones(10).sum()  # Allocates through the default allocator again.


def test_the_loss_survives_the_next_step():
    model, optimizer, x, y = small_step()
    step = olla_torch.optimize(model, [x], cross_entropy, optimizer, targets=[y],
                               work_limit=1000)
    first = step(x, targets=[y])
    kept = first.item()
    step(x, targets=[y])
    assert first.item() == kept  # Copied out of the arena, which the second step reused.


class DataDependent(torch.nn.Module):

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 2)

    def forward(self, x):
        if x.sum() > 0:  # The line the error names.
            return self.linear(x)
        return self.linear(-x)


class MaskedSelect(DataDependent):

    def forward(self, x):
        return self.linear(x[x > 0].reshape(-1, 4)[:1].expand(3, 4))


@pytest.mark.parametrize("model_class,words", [
    (DataDependent, r"test_runtime.py:\d+ in forward: a Python value is read from a "
                    r"tensor \(data-dependent control flow"),
    (MaskedSelect, r"aten.nonzero.default has an output shape that depends on the data"),
])
def test_a_model_that_cannot_be_captured_is_named_with_its_line(model_class, words):
    model = model_class()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="olla cannot capture this model's step: "
                                         "tracing failed at .*" + words):
        olla_torch.optimize(model, [torch.randn(3, 4)], cross_entropy, optimizer,
                            targets=[torch.randint(0, 2, (3,))], work_limit=100)


def test_copy_elimination_lowers_mobilenets_eager_order_peak_and_changes_nothing():
    """The issue's target: at batch 8, the measured peak of mobilenet_v2's step run in
    the eager order drops by a quarter without its ReLU6 input copies, and three steps
    update everything bit for bit as eager PyTorch does."""
    peaks = {}
    for copy_elimination in (False, True):
        model, optimizer, reference, reference_optimizer, (x, y), loss_fn = twins(
            "mobilenet_v2")
        step = olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                                   work_limit=100_000, schedule_method="eager",
                                   copy_elimination=copy_elimination)
        for seed in range(3):
            torch.manual_seed(seed)
            step(x, targets=[y])
            torch.manual_seed(seed)
            eager_step(reference, reference_optimizer, loss_fn, [x], [y])
            assert step.last_stats.fell_through == 0
        assert_same_state(model, optimizer, reference, reference_optimizer)
        peaks[copy_elimination] = step.last_stats.peak_bytes
    assert peaks[True] <= 0.75 * peaks[False], peaks


def test_copy_elimination_is_a_bool():
    model, optimizer, _, _, (x, y), loss_fn = twins("resnet18")
    with pytest.raises(ValueError, match="copy_elimination: expected True or False"):
        olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                            copy_elimination="yes")
