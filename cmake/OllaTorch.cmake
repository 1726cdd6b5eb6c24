# olla_find_torch(PYTHON): the c10 library of the PyTorch that PYTHON imports, for the
# planned CPU arena (olla.torch._arena), which must live in the very libc10 that torch
# loads: the allocator it installs is a global of that library.
#
# Defines the interface target olla_torch_c10 (torch's headers as system headers,
# libc10, torch's C++ ABI flag and version) and OLLA_TORCH_DIR (torch's package folder).
# Headers and library come from torch's own folder, never from the system: Debian's
# libtorch-dev would be another torch. find_package(Torch) is not used: the CUDA wheel's
# TorchConfig asks for a CUDA toolkit, and only c10 is needed.
function(olla_find_torch python)
  execute_process(
    COMMAND "${python}" -c
            "import os, torch; print(os.path.dirname(torch.__file__)); print(torch.__version__); print(int(torch._C._GLIBCXX_USE_CXX11_ABI))"
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "olla.torch needs PyTorch importable by ${python} "
                        "(pip install -r python/requirements.txt): ${err}")
  endif()
  string(REPLACE "\n" ";" out "${out}")
  list(GET out 0 dir)
  list(GET out 1 version)
  list(GET out 2 abi)
  find_library(OLLA_C10_LIBRARY c10 PATHS ${dir}/lib NO_DEFAULT_PATH REQUIRED)
  add_library(olla_torch_c10 INTERFACE)
  target_include_directories(olla_torch_c10 SYSTEM INTERFACE ${dir}/include)
  target_link_libraries(olla_torch_c10 INTERFACE ${OLLA_C10_LIBRARY})
  target_compile_definitions(olla_torch_c10 INTERFACE _GLIBCXX_USE_CXX11_ABI=${abi}
                                                      OLLA_TORCH_VERSION="${version}")
  set(OLLA_TORCH_DIR ${dir} PARENT_SCOPE)
  message(STATUS "olla.torch: PyTorch ${version} at ${dir} (C++11 ABI ${abi})")
endfunction()
