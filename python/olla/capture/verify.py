"""Checks that a captured graph is faithful to what PyTorch really does.

Each check runs the model for real on CPU, so use them on small models and batches:
  check_storage(graph)      the traced graph, op by op: declared aliasing and read-only
                            inputs against real storages and checksums
  measure_eager_peak(graph) peak of live CPU allocations during a real eager step
  check_replay(graph)       the traced graph reproduces the eager step's loss and state
"""


import torch
from torch.profiler import ProfilerActivity, profile

from .storage import flatten


class FaithfulnessError(AssertionError):
    """The captured graph disagrees with a real run; the message names the op."""


def _fresh_copy(arguments):
    """Independent real tensors with the same values (leaves keep requires_grad)."""
    return torch.utils._pytree.tree_map(
        lambda t: t.detach().clone().requires_grad_(t.requires_grad)
        if isinstance(t, torch.Tensor) else t, arguments)


def _storage_key(tensor):
    storage = tensor.untyped_storage()
    return storage.data_ptr() if storage.nbytes() > 0 else None


def _same_values(before, after):
    if before.dtype.is_floating_point or before.dtype.is_complex:
        return torch.allclose(before, after, rtol=0, atol=0, equal_nan=True)
    return torch.equal(before, after)


def check_storage(graph, seed=0):
    """Runs the traced graph on real tensors and checks every op against the graph.

    For every op: each result the graph declares fresh lives in a storage that no
    earlier buffer uses, each result declared as an alias (a view or an in-place result)
    lives in the storage of the buffer it aliases, and every input the op does not
    declare as written holds the same values afterwards. All values are kept alive, so
    no storage address is reused during the run. Raises FaithfulnessError.
    """
    storage_of = {}  # buffer id -> storage address

    def claim(buffer, tensor, fresh, where):
        key = _storage_key(tensor)
        if key is None:
            return
        if fresh:
            owner = next((b for b, k in storage_of.items() if k == key), None)
            if owner is not None:
                raise FaithfulnessError(
                    f"{where}: result declared fresh shares storage with buffer {owner} "
                    f"'{graph.buffers[owner].name}'")
            storage_of[buffer] = key
        elif storage_of.setdefault(buffer, key) != key:
            raise FaithfulnessError(
                f"{where}: result declared to alias buffer {buffer} "
                f"'{graph.buffers[buffer].name}' lives in another storage")

    class Checker(torch.fx.Interpreter):

        def run_node(self, node):
            if node.name not in graph.op_of_node:
                result = super().run_node(node)
                if node.op in ("placeholder", "get_attr"):
                    claim(graph.node_buffers[node.name], result, True, node.name)
                return result
            op = graph.ops[graph.op_of_node[node.name]]
            where = f"op {op.id} '{op.name}' ({op.type})"
            args, kwargs = self.fetch_args_kwargs_from_env(node)
            read_only = [(n, t, t.clone()) for n, t in zip(
                [a for a in flatten((node.args, list(node.kwargs.values())))
                 if isinstance(a, torch.fx.Node)],
                [a for a in flatten((args, list(kwargs.values())))
                 if isinstance(a, torch.Tensor)])
                if graph.node_buffers[n.name] not in op.writes]
            result = super().run_node(node)
            for buffer, tensor in zip(flatten(graph.node_buffers[node.name]),
                                      flatten(result)):
                if buffer is not None:
                    claim(buffer, tensor, buffer in op.allocates, where)
            for n, tensor, before in read_only:
                if not _same_values(before, tensor):
                    raise FaithfulnessError(
                        f"{where}: input '{n.name}' changed but is not declared written")
            return result

    torch.manual_seed(seed)
    arguments = torch.utils._pytree.tree_flatten(_fresh_copy(graph.step.example_arguments()))[0]
    with torch.no_grad():
        Checker(graph.fx, garbage_collect_values=False).run(*arguments)


def measure_eager_peak(graph, seed=0):
    """Peak bytes of live CPU allocations while the eager step runs, persistent state
    (parameters, buffers, optimizer state, inputs) allocated beforehand. The step is the
    very function that was traced, run on real tensors."""
    arguments = _fresh_copy(graph.step.example_arguments())
    torch.manual_seed(seed)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as profiler:
        graph.step(*arguments)
    events = [e for e in profiler.profiler.kineto_results.events() if e.name() == "[memory]"]
    events.sort(key=lambda e: e.start_ns())  # stable: ties keep their recorded order
    live = peak = 0
    for event in events:
        live += event.nbytes()
        peak = max(peak, live)
    return peak


def check_replay(graph, seed=0, rtol=1e-4, atol=1e-5):
    """Runs the eager step and the traced graph from the same state; the loss (or the
    output) and every updated tensor must agree. Raises FaithfulnessError."""
    step = graph.step
    eager_arguments = _fresh_copy(step.example_arguments())
    traced_arguments = _fresh_copy(step.example_arguments())
    torch.manual_seed(seed)
    eager_result = step(*eager_arguments)
    torch.manual_seed(seed)
    with torch.no_grad():
        traced_result = graph.fx(*traced_arguments)
    eager_flat = torch.utils._pytree.tree_flatten((eager_result, eager_arguments))[0]
    traced_flat = torch.utils._pytree.tree_flatten((traced_result, traced_arguments))[0]
    names = ["result"] * len(flatten(eager_result)) + [
        name for name, _ in step.input_descriptions()]
    for name, eager, traced in zip(names, eager_flat, traced_flat):
        if not torch.allclose(eager.detach(), traced.detach(), rtol=rtol, atol=atol,
                              equal_nan=True):
            difference = (eager.detach() - traced.detach()).abs().max().item()
            raise FaithfulnessError(f"'{name}' differs between the eager step and the "
                                    f"traced graph (max abs difference {difference:g})")
