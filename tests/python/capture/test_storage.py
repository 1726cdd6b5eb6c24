"""Storage semantics of the capture on small hand-made modules: what is a buffer, who
allocates it, which ops alias or write it, and the ordering edges writes need."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from olla.capture import capture_training_step, storage, verify


class Lambda(nn.Module):

    def __init__(self, function, width=4):
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.function = function

    def forward(self, x):
        return self.function(self.linear(x))


def capture_eval(function, x=None):
    x = torch.randn(3, 4) if x is None else x
    return capture_training_step(Lambda(function), (x,), mode="eval")


def ops_of_type(graph, type_name):
    return [op for op in graph.ops if op.type == type_name]


def test_a_view_allocates_nothing_and_uses_its_base():
    graph = capture_eval(lambda y: y.t() * 2)
    (addmm,) = ops_of_type(graph, "aten::addmm")
    transpose = ops_of_type(graph, "aten::t")[-1]  # the first one transposes the weight
    (mul,) = ops_of_type(graph, "aten::mul.Tensor")
    assert transpose.allocates == [] and transpose.uses == addmm.allocates
    assert mul.uses == addmm.allocates and len(mul.allocates) == 1


def test_in_place_write_orders_the_readers_of_old_and_new_contents():

    def function(y):
        before = y * 2  # reads the old contents
        y.add_(1)  # writes
        after = y * 3  # reads the new contents
        return before + after

    graph = capture_eval(function)
    (write,) = ops_of_type(graph, "aten::add_.Tensor")
    old_reader, new_reader = ops_of_type(graph, "aten::mul.Tensor")
    assert write.allocates == [] and write.writes == write.uses
    assert (old_reader.id, write.id) in graph.precedence
    assert (write.id, new_reader.id) in graph.precedence


def test_every_output_of_a_multi_output_op_is_allocated_even_unused():
    graph = capture_eval(lambda y: torch.sort(y)[0])
    (sort,) = ops_of_type(graph, "aten::sort")
    values, indices = (graph.buffers[b] for b in sort.allocates)
    assert values.dtype == "float32" and indices.dtype == "int64"
    assert indices.size == 3 * 4 * 8 and not indices.output and values.output


def test_unsafe_view_is_a_view_although_its_schema_says_otherwise():
    graph = capture_eval(lambda y: torch.matmul(y.reshape(3, 1, 4), torch.ones(4, 4)),
                         torch.randn(3, 4))
    unsafe_views = ops_of_type(graph, "aten::_unsafe_view")
    assert unsafe_views, [op.type for op in graph.ops]
    assert all(op.allocates == [] for op in unsafe_views)


def bn_model():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))


def capture_bn(optimizer="sgd"):
    torch.manual_seed(0)
    return capture_training_step(bn_model(), (torch.randn(5, 4),), F.cross_entropy,
                                 targets=(torch.tensor([0, 1, 0, 1, 1]),),
                                 optimizer=optimizer)


def test_training_batch_norm_writes_its_running_statistics():
    graph = capture_bn()
    (bn,) = ops_of_type(graph, "aten::native_batch_norm")
    names = {graph.buffers[b].name for b in bn.writes}
    assert names == {"1.running_mean", "1.running_var"}


def test_persistent_buffers_kinds_and_outputs():
    graph = capture_bn("adam")
    by_name = {b.name: b for b in graph.buffers}
    assert by_name["0.weight"].kind == "parameter"
    assert by_name["1.running_var"].kind == "buffer"
    assert by_name["1.num_batches_tracked"].kind == "buffer"
    assert by_name["adam.exp_avg:0.weight"].kind == "optimizer_state"
    assert by_name["adam.exp_avg_sq:3.bias"].kind == "optimizer_state"
    assert by_name["input:0"].kind == by_name["target:0"].kind == "input"
    persistent = [b for b in graph.buffers if b.persistent]
    assert len(persistent) == 6 + 3 + 2 * 6 + 2
    # Updated parameters, state and the loss are outputs; no op allocates persistent ones.
    assert all(b.output for b in persistent if b.kind in ("parameter", "optimizer_state"))
    assert not any(graph.buffers[b].persistent for op in graph.ops for b in op.allocates)
    (loss_op,) = [op for op in graph.ops if any(graph.buffers[b].output and not
                                                 graph.buffers[b].persistent
                                                 for b in op.allocates)]
    assert loss_op.phase == "forward" and graph.buffers[loss_op.allocates[0]].shape == ()


def test_phases_follow_forward_backward_optimizer_with_module_names():
    graph = capture_bn("momentum")
    phases = [op.phase for op in graph.ops]
    order = {"forward": 0, "backward": 1, "optimizer": 2}
    assert [order[p] for p in phases] == sorted(order[p] for p in phases)
    assert set(phases) == {"forward", "backward", "optimizer"}
    assert ops_of_type(graph, "aten::native_batch_norm")[0].name.startswith("1/")
    assert all(graph.buffers[b].kind == "gradient" for op in graph.ops
               if op.phase == "backward" for b in op.allocates)


def batch_norm_model():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 2)), (5, 4)


def linear_3d_model():  # without bias, linear on 3-D input is matmul: mm, _unsafe_view
    return nn.Sequential(nn.Linear(4, 8, bias=False), nn.ReLU(), nn.Linear(8, 2)), (5, 3, 4)


@pytest.mark.parametrize("removed,model,message", [
    (torch.ops.aten.native_batch_norm, batch_norm_model, "changed but is not declared written"),
    (torch.ops.aten._unsafe_view, linear_3d_model, "declared fresh shares storage"),
])
def test_the_storage_check_catches_each_schema_lie(monkeypatch, removed, model, message):
    """Without its correction, each lying schema produces a graph the real-mode storage
    check rejects: the check can fail, and the corrections are what make it pass."""
    torch.manual_seed(0)
    module, shape = model()
    graph = capture_training_step(module, (torch.randn(*shape),), lambda out: out.pow(2).mean())
    verify.check_storage(graph)
    monkeypatch.delitem(storage.SCHEMA_CORRECTIONS, removed)
    graph = capture_training_step(module, (torch.randn(*shape),), lambda out: out.pow(2).mean())
    with pytest.raises(verify.FaithfulnessError, match=message):
        verify.check_storage(graph)


def test_a_tensor_on_another_device_than_the_steps_takes_no_planned_bytes():
    # The plan places the step device's memory: a CPU tensor in a CUDA step (a scalar
    # made from a Python number) is served by the CPU's allocator, not the arena.
    values = {}
    on_cuda = storage._Builder(values, {}, False, torch.device("cuda", 0))
    on_cpu = storage._Builder(values, {}, False, torch.device("cpu"))
    tensor = torch.ones(8)
    assert on_cuda.buffers[on_cuda.new_buffer("t", tensor, "activation")].size == 0
    assert on_cpu.buffers[on_cpu.new_buffer("t", tensor, "activation")].size == 32


def attention_call(target, *args):
    graph = torch.fx.Graph()
    q, k, v = (graph.placeholder(name) for name in "qkv")
    return graph.call_function(target, (q, k, v, *args))


# The attention kernels' schemas are tagged as drawing random numbers for their
# dropout; without it (dropout_p 0, what nn.MultiheadAttention passes by default) a
# second run gives the same values, so budget mode may recompute them.
def test_attention_draws_random_numbers_only_with_dropout():
    flash_cpu = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default
    efficient = torch.ops.aten._scaled_dot_product_efficient_attention.default
    assert not storage.draws_random_numbers(attention_call(flash_cpu))  # the default
    assert not storage.draws_random_numbers(attention_call(flash_cpu, 0.0))
    assert storage.draws_random_numbers(attention_call(flash_cpu, 0.1))
    assert storage.draws_random_numbers(attention_call(efficient, None, True, 0.1))
    assert not storage.draws_random_numbers(attention_call(efficient, None, True, 0.0))
    dropout = torch.fx.Graph()
    x = dropout.placeholder("x")
    assert storage.draws_random_numbers(
        dropout.call_function(torch.ops.aten.native_dropout.default, (x, 0.0, True)))
    graph = capture_training_step(
        Lambda(lambda y: F.scaled_dot_product_attention(y[None, None], y[None, None],
                                                       y[None, None]).sum()),
        (torch.randn(3, 4),), lambda out: out)
    (attention,) = [op for op in graph.ops if "attention" in op.type and op.phase == "forward"]
    assert not attention.random
