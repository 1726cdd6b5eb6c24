"""The planned arena and the counting allocator as context managers.

Both install olla's allocator (the C++ extension olla.torch._arena, built by `make
build` against Debian's libtorch-dev) as PyTorch's CPU allocator for the duration of a
`with` block, and restore the previous one on the way out, also when the block raises.
"""

import contextlib

from . import _arena


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
