"""Copy elimination: rewrites of a traced step that change no value it computes.

Autograd sometimes copies a tensor that the backward could read from memory the step
keeps anyway. In PyTorch (1.13 to 2.11) an in-place ReLU6 (`hardtanh_`, as torchvision's
mobilenet_v2 uses) makes autograd save a clone of its input before clamping,
for `hardtanh_backward(grad, input, min, max)`; but that kernel only asks whether
min < input < max, and the clamped output answers the same for every value (inside the
interval it equals the input; at or beyond a bound it equals the bound; NaN stays
NaN), while the output stays live for the next layer's backward anyway. On
mobilenet_v2 the 35 clones are about a third of the activations live at the peak.

REWRITES is the table: a name, why it is exact, and the function that applies it to a
GraphModule and returns how many times it did. Each rewrite checks what makes it exact
(here: nothing writes the clamped tensor's storage between the clamp and the backward
read), so it is skipped wherever that does not hold. Kernels whose backward needs the
true input (silu_, hardswish_, hardsigmoid_'s rounding) have no entry.
"""

import torch

aten = torch.ops.aten


def _writes(node):
    """The argument nodes `node` writes in place (its schema's mutable arguments)."""
    schema = getattr(node.target, "_schema", None)
    if node.op != "call_function" or schema is None:
        return []
    written = []
    for position, argument in enumerate(schema.arguments):
        if argument.alias_info is not None and argument.alias_info.is_write:
            value = (node.args[position] if position < len(node.args)
                     else node.kwargs.get(argument.name))
            if isinstance(value, torch.fx.Node):
                written.append(value)
    return written


def _storage_root(node):
    """The node whose storage `node` views: through view ops (whose output aliases
    their first argument without writing it) and in-place ops (which return it)."""
    while node.op == "call_function":
        schema = getattr(node.target, "_schema", None)
        if schema is None or not schema.returns or schema.returns[0].alias_info is None:
            break
        if not node.args or not isinstance(node.args[0], torch.fx.Node):
            break
        node = node.args[0]
    return node


def _hardtanh_backward_from_output(gm):
    """clone(x) read only by hardtanh_backward(g, clone, lo, hi), where x is then
    clamped in place by hardtanh_(x, lo, hi): the backward reads the clamped x and the
    clone goes. Exact while nothing else writes x's storage until the last such read."""
    nodes = list(gm.graph.nodes)
    position = {node: index for index, node in enumerate(nodes)}
    # Per storage (the node it roots at), the positions of the nodes that write it: one
    # pass, which the rewrites below do not change (they write nothing).
    writes = {}
    for index, node in enumerate(nodes):
        for root in {_storage_root(w) for w in _writes(node)}:
            writes.setdefault(root, []).append(index)
    rewritten = 0
    for clone in nodes:
        if clone.op != "call_function" or clone.target is not aten.clone.default:
            continue
        if clone.kwargs or len(clone.args) != 1:
            continue
        source = clone.args[0]
        # The clamp: the first node after the clone that writes the source's storage.
        writers = writes.get(_storage_root(source), [])
        clamp = next((nodes[i] for i in writers if i > position[clone]), None)
        if (clamp is None or clamp.target is not aten.hardtanh_.default
                or clamp.args[0] is not source or clamp.kwargs):
            continue
        bounds = tuple(clamp.args[1:]) or (-1.0, 1.0)
        readers = list(clone.users)
        if not readers or not all(
                r.target is aten.hardtanh_backward.default and len(r.args) == 4
                and r.args[1] is clone and r.args[2:] == bounds
                and r.args[0] is not clone for r in readers):
            continue
        last = max(position[r] for r in readers)
        if any(position[clamp] < i < last for i in writers):
            continue  # The clamped values would be overwritten before a read.
        for reader in readers:
            reader.args = (reader.args[0], clamp, *reader.args[2:])
        gm.graph.erase_node(clone)
        rewritten += 1
    return rewritten


# (name, why it is exact, apply(gm) -> times applied)
REWRITES = [
    ("hardtanh_backward_from_output",
     "hardtanh_backward only tests min < x < max, which the clamped output answers "
     "alike for every x; the output stays live for the next op's backward",
     _hardtanh_backward_from_output),
]


def eliminate_copies(gm):
    """Applies every rewrite of REWRITES to the traced GraphModule in place; returns
    {name: times applied} for those that applied."""
    applied = {}
    for name, _, rewrite in REWRITES:
        count = rewrite(gm)
        if count:
            applied[name] = count
    if applied:
        gm.graph.lint()
        gm.recompile()
    return applied
