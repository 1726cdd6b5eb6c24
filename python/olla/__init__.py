"""olla's Python side: capture PyTorch training steps as olla graphs (olla.capture), and
plan them in process (olla.optimize_graph, olla.tradeoff_graph, olla.simulate,
olla.op_costs, olla.options, olla.Plan, olla.NoPlanError:
olla.planning, on the C++ extension olla._olla that `make build` builds)."""

__version__ = "0.1.0"

_PLANNING = ("NoPlanError", "Plan", "Tradeoff", "op_costs", "optimize_graph", "options",
             "simulate", "tradeoff_graph")
__all__ = list(_PLANNING)


def __getattr__(name):
    # Imported on first use, so olla.capture works without the extension.
    if name in _PLANNING:
        from . import planning
        return getattr(planning, name)
    raise AttributeError(f"module 'olla' has no attribute '{name}'")
