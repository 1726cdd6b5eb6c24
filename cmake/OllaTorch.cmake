# olla_find_torch(PYTHON): the c10 library of the PyTorch that PYTHON imports, for the
# planned CPU arena (olla.torch._arena), which must live in the very libc10 that torch
# loads: the allocator it installs is a global of that library.
#
# Defines the interface target olla_torch_c10 (torch's headers as system headers,
# libc10, torch's C++ ABI flag and version) and OLLA_TORCH_DIR (torch's package folder).
# For a CUDA build of torch (the package index's default) it also defines
# olla_torch_cuda (libc10_cuda, and the CUDA runtime's headers and library from the
# nvidia-cuda-runtime wheel torch depends on: no CUDA toolkit needed) and sets
# OLLA_TORCH_CUDA; a CPU-only torch builds olla without its CUDA allocator.
# Headers and library come from torch's own folder, never from the system: Debian's
# libtorch-dev would be another torch. find_package(Torch) is not used: the CUDA wheel's
# TorchConfig asks for a CUDA toolkit, and only c10 is needed.
function(olla_find_torch python)
  execute_process(
    COMMAND "${python}" -c
            "import os, torch; print(os.path.dirname(torch.__file__)); print(torch.__version__); print(int(torch._C._GLIBCXX_USE_CXX11_ABI)); print(torch.version.cuda or '')"
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
  list(LENGTH out fields)
  set(cuda "")
  if(fields GREATER 3)
    list(GET out 3 cuda)
  endif()
  find_library(OLLA_C10_LIBRARY c10 PATHS ${dir}/lib NO_DEFAULT_PATH REQUIRED)
  add_library(olla_torch_c10 INTERFACE)
  target_include_directories(olla_torch_c10 SYSTEM INTERFACE ${dir}/include)
  target_link_libraries(olla_torch_c10 INTERFACE ${OLLA_C10_LIBRARY})
  target_compile_definitions(olla_torch_c10 INTERFACE _GLIBCXX_USE_CXX11_ABI=${abi}
                                                      OLLA_TORCH_VERSION="${version}")
  set(OLLA_TORCH_DIR ${dir} PARENT_SCOPE)
  message(STATUS "olla.torch: PyTorch ${version} at ${dir} (C++11 ABI ${abi})")

  set(OLLA_TORCH_CUDA OFF PARENT_SCOPE)
  if(cuda STREQUAL "")
    message(STATUS "olla.torch: a CPU-only PyTorch: olla's CUDA allocator is left out")
    return()
  endif()
  string(REGEX MATCH "^[0-9]+" cuda_major "${cuda}")
  get_filename_component(site ${dir} DIRECTORY)
  set(runtime ${site}/nvidia/cu${cuda_major})
  find_path(OLLA_CUDART_INCLUDE cuda_runtime_api.h PATHS ${runtime}/include NO_DEFAULT_PATH)
  find_library(OLLA_CUDART_LIBRARY NAMES cudart libcudart.so.${cuda_major}
               PATHS ${runtime}/lib NO_DEFAULT_PATH)
  find_library(OLLA_C10_CUDA_LIBRARY c10_cuda PATHS ${dir}/lib NO_DEFAULT_PATH)
  if(NOT OLLA_CUDART_INCLUDE OR NOT OLLA_CUDART_LIBRARY OR NOT OLLA_C10_CUDA_LIBRARY)
    message(FATAL_ERROR "olla.torch: PyTorch ${version} is built for CUDA ${cuda}, but "
                        "the CUDA runtime of its wheels is not in ${runtime} "
                        "(pip install -r python/requirements.txt)")
  endif()
  add_library(olla_torch_cuda INTERFACE)
  target_include_directories(olla_torch_cuda SYSTEM INTERFACE ${OLLA_CUDART_INCLUDE})
  target_link_libraries(olla_torch_cuda INTERFACE olla_torch_c10 ${OLLA_C10_CUDA_LIBRARY}
                                                  ${OLLA_CUDART_LIBRARY})
  target_compile_definitions(olla_torch_cuda INTERFACE OLLA_TORCH_CUDA)
  set(OLLA_TORCH_CUDA ON PARENT_SCOPE)
  set(OLLA_CUDA_RUNTIME_DIR ${runtime} PARENT_SCOPE)
  set(OLLA_CUDA_MAJOR ${cuda_major} PARENT_SCOPE)
  message(STATUS "olla.torch: CUDA ${cuda}: olla's CUDA allocator is built")
endfunction()
