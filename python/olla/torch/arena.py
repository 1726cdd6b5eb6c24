"""The planned arena and the counting allocator as context managers.

Both install olla's allocator (the C++ extension olla.torch._arena, built against the
torch of its environment by `pip install .` or `make build`) as PyTorch's CPU allocator
for the duration of a `with` block, and restore the previous one on the way out, also
when the block raises.
"""

import contextlib
import os

import torch

from . import _arena


def check_build(built_for, loaded_c10, torch_version, torch_c10):
    """Raises ImportError unless the extension was built for the torch that runs (its
    version `torch_version`, its libc10 the file `torch_c10`) and loaded that torch's
    libc10: an extension of another torch would install olla's allocator into a second
    libc10 that this torch never asks, and every planned step would run outside the
    plan without a word."""
    if built_for != torch_version:
        raise ImportError(
            f"olla.torch: olla's arena extension was built for PyTorch {built_for}, but "
            f"this environment runs PyTorch {torch_version}; reinstall olla in this "
            f"environment (pip install . or make build)")
    if not (loaded_c10 and os.path.exists(loaded_c10)
            and os.path.samefile(loaded_c10, torch_c10)):
        raise ImportError(
            f"olla.torch: olla's arena extension loaded the c10 library "
            f"'{loaded_c10}', not PyTorch {torch_version}'s '{torch_c10}'; reinstall "
            f"olla in this environment (pip install . or make build)")


check_build(_arena.torch_version, _arena.c10_library(), torch.__version__,
            os.path.join(os.path.dirname(torch.__file__), "lib", "libc10.so"))


class ArenaStats(dict):
    """What an arena served: arena_bytes, served (count) and served_bytes, fell_through
    and fell_through_bytes (allocations the plan did not know or could not serve),
    fall_through_peak_bytes, blocked (planned addresses refused because their bytes
    were still live), unclaimed (planned buffers never requested), peak_bytes (arena
    plus the fall-through peak)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


@contextlib.contextmanager
def installed(arena):
    """Every CPU allocation inside the block goes through `arena` (an _arena.Arena)."""
    _arena.install(arena)
    try:
        yield arena
    finally:
        _arena.uninstall()


@contextlib.contextmanager
def counting():
    """Counts every CPU allocation inside the block; yields a function returning the
    ArenaStats so far (fall_through_peak_bytes: the peak of live bytes allocated inside
    the block)."""
    arena = _arena.Arena(0)
    with installed(arena):
        yield lambda: ArenaStats(arena.stats())


def new_arena(arena_bytes):
    return _arena.Arena(arena_bytes)
