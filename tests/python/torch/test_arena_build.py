"""The arena extension runs only with the torch it was built for: another torch's
version or another libc10 (or libc10_cuda) is refused at import, naming both (an
allocator installed into a second libc10 would leave every step outside the plan
without a word)."""

import os
import re

import pytest
import torch

from olla.torch import _arena, arena

TORCH_C10 = os.path.join(os.path.dirname(torch.__file__), "lib", "libc10.so")


def test_the_built_extension_lives_in_this_torchs_c10():
    assert _arena.torch_version == torch.__version__
    assert os.path.samefile(_arena.c10_library(), TORCH_C10)
    arena.check_build(_arena.torch_version, _arena.c10_library(), torch.__version__,
                      TORCH_C10)


def test_an_extension_built_for_another_torch_is_refused_naming_both():
    with pytest.raises(ImportError, match=r"built for PyTorch 2\.10\.0\+cpu, but this "
                                          r"environment runs PyTorch 2\.11\.0"):
        arena.check_build("2.10.0+cpu", _arena.c10_library(), "2.11.0+cu130", TORCH_C10)


def test_a_second_libc10_is_refused_naming_both(tmp_path):
    other = tmp_path / "libc10.so"
    other.write_bytes(b"")
    with pytest.raises(ImportError, match=re.escape(
            f"loaded the c10 library '{other}', not PyTorch {torch.__version__}'s "
            f"'{TORCH_C10}'")):
        arena.check_build(torch.__version__, str(other), torch.__version__, TORCH_C10)
    with pytest.raises(ImportError, match="loaded the c10 library ''"):
        arena.check_build(torch.__version__, "", torch.__version__, TORCH_C10)


def test_the_cuda_allocator_lives_in_this_torchs_c10_cuda(tmp_path):
    if not _arena.cuda_built:
        pytest.skip("olla was built against a CPU-only torch")
    torch_c10_cuda = os.path.join(os.path.dirname(torch.__file__), "lib", "libc10_cuda.so")
    assert os.path.samefile(_arena.c10_cuda_library(), torch_c10_cuda)
    other = tmp_path / "libc10_cuda.so"
    other.write_bytes(b"")
    with pytest.raises(ImportError, match=re.escape(
            f"loaded the c10_cuda library '{other}', not PyTorch {torch.__version__}'s")):
        arena.check_library("c10_cuda", str(other), torch.__version__, torch_c10_cuda)
