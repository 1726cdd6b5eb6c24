"""The planned arena and the counting allocator as context managers.

Both install olla's allocator (the C++ extension olla.torch._arena, built against the
torch of its environment by `pip install .` or `make build`) for the duration of a
`with` block, and restore the previous one on the way out, also when the block raises:
on the CPU as PyTorch's CPU allocator, on a CUDA device in the place of PyTorch's CUDA
caching allocator, which then serves the arena's block and everything the plan does
not know (docs/gpu.md).
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
    check_library("c10", loaded_c10, torch_version, torch_c10)


def check_library(name, loaded, torch_version, expected):
    """Raises ImportError unless the extension's `name` library (libc10, or libc10_cuda,
    whose allocator pointer olla's CUDA allocator stands in) is the file `expected`,
    the running torch's."""
    if not (loaded and os.path.exists(loaded) and os.path.samefile(loaded, expected)):
        raise ImportError(
            f"olla.torch: olla's arena extension loaded the {name} library "
            f"'{loaded}', not PyTorch {torch_version}'s '{expected}'; reinstall "
            f"olla in this environment (pip install . or make build)")


_TORCH_LIB = os.path.join(os.path.dirname(torch.__file__), "lib")
check_build(_arena.torch_version, _arena.c10_library(), torch.__version__,
            os.path.join(_TORCH_LIB, "libc10.so"))
if _arena.cuda_built:
    check_library("c10_cuda", _arena.c10_cuda_library(), torch.__version__,
                  os.path.join(_TORCH_LIB, "libc10_cuda.so"))


class ArenaStats(dict):
    """What an arena served: arena_bytes, served (count) and served_bytes, fell_through
    and fell_through_bytes (allocations the plan did not know or could not serve; of
    them other_stream, made on another CUDA stream than the step's),
    fall_through_peak_bytes, blocked (planned addresses refused because their bytes
    were still live), unclaimed (planned buffers never requested), fenced (planned
    buffers freed while another stream could still read them, served again only after
    that stream's work), peak_bytes (arena plus the fall-through peak)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def alignment(device):
    """What PyTorch's allocator aligns and rounds to on `device`: 64 bytes on the CPU;
    512 on CUDA (the caching allocator's smallest block), which olla's plans keep so
    that every planned address is aligned as a kernel expects."""
    return 512 if torch.device(device).type == "cuda" else 64


def check_device(device):
    """Raises ValueError unless olla can run a step on `device` (a torch.device)."""
    if device.type == "cpu":
        return
    if device.type != "cuda":
        raise ValueError(f"device: the step's tensors are on {device}; olla runs steps "
                         f"on the CPU and on CUDA devices")
    if not _arena.cuda_built:
        raise ValueError(f"device: the step's tensors are on {device}, but olla was "
                         f"built against a CPU-only PyTorch; reinstall olla beside a "
                         f"CUDA build of PyTorch")
    if not torch.cuda.is_available():
        raise ValueError(f"device: the step's tensors are on {device}, but PyTorch sees "
                         f"no CUDA device")


class Arena:
    """A planned arena (the extension's) and the device its memory is on; every
    method of the extension's Arena (announce, set_schedule, window, stats, ...)."""

    def __init__(self, native, device):
        self.native = native
        self.device = device

    def __getattr__(self, name):
        return getattr(self.native, name)


def new_arena(arena_bytes, device=None):
    """An arena of `arena_bytes` for steps on `device` (the CPU unless given): host
    memory, or on a CUDA device one block from PyTorch's caching allocator, so that it
    counts in torch.cuda's memory statistics."""
    device = torch.device("cpu" if device is None else device)
    check_device(device)
    if device.type == "cpu":
        return Arena(_arena.Arena(arena_bytes), device)
    torch.cuda.init()
    with torch.cuda.device(device):
        return Arena(_arena.cuda_arena(arena_bytes), device)


@contextlib.contextmanager
def installed(arena):
    """Every allocation on the arena's device inside the block goes through `arena`
    (new_arena's); on a CUDA device, the planned addresses serve requests on the stream
    current when the block starts."""
    if arena.device.type == "cuda":
        # The device switched to only when it is not current: the fewer CUDA calls the
        # better inside a CUDA graph's capture (replay.py).
        current = torch.cuda.current_device()
        index = current if arena.device.index is None else arena.device.index
        switch = (torch.cuda.device(index) if index != current
                  else contextlib.nullcontext())
        with switch:
            _arena.install_cuda(arena.native)
            try:
                yield arena
            finally:
                _arena.uninstall_cuda()
        return
    _arena.install(arena.native)
    try:
        yield arena
    finally:
        _arena.uninstall()


@contextlib.contextmanager
def counting(device=None):
    """Counts every allocation on `device` (the CPU unless given) inside the block;
    yields a function returning the ArenaStats so far (fall_through_peak_bytes: the
    peak of live bytes allocated inside the block)."""
    arena = new_arena(0, device)
    with installed(arena):
        yield lambda: ArenaStats(arena.stats())
