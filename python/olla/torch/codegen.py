"""A list of executor steps as one straight-line Python function.

The executor's time per op was mostly Python around the kernel call: reading each
argument from a dictionary of values, building argument lists, announcing the op's
slots. Generated code does what fx's own GraphModule code does, a local variable per
value and one call per op, and eager PyTorch's forward pass costs no less. The
function is made once per plan (PlanExecutor) or per traced run (run_traced).

Every value lives in a local variable `v<i>` (the i-th step's) or `a<i>` (the i-th
flat argument) and is deleted right after its last use in this order, as the plan's
lifetimes assume. Constants are globals `k<i>`; the optimizer's scalars, rewritten in
the nodes before every step (capture.step.apply_scalars), are read from their node at
run time.
"""

import operator

import torch


def _holds_node(value):
    if isinstance(value, (list, tuple)):
        return any(_holds_node(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_node(v) for v in value.values())
    return isinstance(value, torch.fx.Node)


class _Writer:
    """Names and source lines of one generated function."""

    def __init__(self, placeholders, lifted, scalar_slots):
        self.names = {node: f"a{i}" for i, node in enumerate(placeholders)}
        self.scope = {"set_grad": torch._C._set_grad_enabled}
        for node, value in lifted.items():
            self.names[node] = self.constant(value)
        self.scalar_slots = scalar_slots  # {(node, arg index or kwarg name)}
        self.lines = []

    def constant(self, value):
        name = f"k{len(self.scope)}"
        self.scope[name] = value
        return name

    def value(self, value, refs):
        """An expression for an argument: a node's value (through refs), a list or
        tuple of them, or a constant."""
        if isinstance(value, torch.fx.Node):
            ref = refs.get(value)
            return self.names[value] if ref is None else self.ref(ref)
        if isinstance(value, (list, tuple)) and _holds_node(value):
            items = ", ".join(self.value(v, refs) for v in value)
            return f"[{items}]" if isinstance(value, list) else f"({items},)"
        if _holds_node(value):
            raise ValueError(f"olla cannot run this step: a node's argument holds its "
                             f"values in a {type(value).__name__}")
        return self.constant(value)

    def ref(self, ref):
        """executor._Step's references: ("env", key), or ("view", node, refs), the view
        made again from the values refs name."""
        if ref[0] == "env":
            return self.names[ref[1]]
        return self.call(ref[1], ref[2])

    def call(self, node, refs):
        target = node.target
        function = self.constant(getattr(target, "_op", target))  # OpOverload's kernel
        node_name = None
        arguments = []
        for index, value in enumerate(node.args):
            if (node, index) in self.scalar_slots:
                node_name = node_name or self.constant(node)
                arguments.append(f"{node_name}.args[{index}]")
            else:
                arguments.append(self.value(value, refs))
        for key, value in node.kwargs.items():
            if (node, key) in self.scalar_slots:
                node_name = node_name or self.constant(node)
                arguments.append(f"{key}={node_name}.kwargs[{key!r}]")
            else:
                arguments.append(f"{key}={self.value(value, refs)}")
        return f"{function}({', '.join(arguments)})"


def compile_steps(steps, placeholders, release, output, lifted, scalar_slots=(),
                  before=False, after=False):
    """The function run(flat_arguments, before=None, after=None) running `steps`
    (executor._Step) in order and returning the output node's value. release[i]: the
    keys whose last use is step i. lifted: {get_attr node: tensor}. scalar_slots:
    graph.scalar_slots. With `before`, the function calls before(position) before each
    op that is not an unpacking (`position` counts those ops); with `after`, it calls
    after(node, value) after it. Grad mode is each step's own, restored on the way
    out."""
    writer = _Writer(placeholders, lifted,
                     {(node, key) for node, key, _, _ in scalar_slots})
    scope = writer.scope
    lines = writer.lines
    if placeholders:
        lines.append(f"({', '.join(writer.names[p] for p in placeholders)},) = arguments")
    grad = None
    position = 0
    for i, (step, done) in enumerate(zip(steps, release)):
        node = step.node
        name = writer.names[step.key] = f"v{i}"
        if node.target is operator.getitem:
            source, index = node.args
            lines.append(f"{name} = {writer.value(source, step.refs)}[{index!r}]")
        else:
            if before:
                lines.append(f"before({position})")
            position += 1
            if step.grad is not grad:
                grad = step.grad
                lines.append(f"set_grad({grad})")
            lines.append(f"{name} = {writer.call(node, step.refs)}")
            if after:
                lines.append(f"after({writer.constant(node)}, {name})")
        if done:
            lines.append(f"del {', '.join(writer.names[key] for key in done)}")
    lines.append(f"return {writer.value(output.args[0], {})}")
    source = "def run(arguments, before, after):\n" + "".join(f"    {line}\n" for line in lines)
    exec(compile(source, "<olla step>", "exec"), scope)  # noqa: S102 (our own source)
    generated = scope["run"]

    def run(flat_arguments, before=None, after=None):
        outside = torch.is_grad_enabled()
        try:
            return generated(flat_arguments, before, after)
        finally:
            torch._C._set_grad_enabled(outside)

    run.source = source
    return run
