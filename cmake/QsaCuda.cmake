# QSA_ENABLE_CUDA: AUTO builds the CUDA backend when nvcc is found; ON requires it; OFF skips it.
# Architectures default to 90-real (H100/H200 machine code only, no PTX: the binaries stay small and
# every kernel that runs is the one the tests checked), never `native`: the build machine has no GPU.
set(QSA_CUDA_ENABLED OFF)
if(NOT QSA_ENABLE_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90-real)
    endif()
    enable_language(CUDA)
    # Compressed fatbins: the kernels with -lineinfo take a third of their uncompressed size
    # (step_update_launch.cu's object: 3.3 MB, 0.46 MB compressed), so the GPU bundle stays small;
    # the driver inflates each module once when it loads.
    add_compile_options($<$<COMPILE_LANGUAGE:CUDA>:--compress-mode=size>)
    find_package(CUDAToolkit REQUIRED)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    # QSA_CUDA_SHARED (the GPU bundle): one shared CUDA runtime for every module; otherwise static.
    if(QSA_CUDA_SHARED)
      set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
      set(QSA_CUDA_LIBRARY_TYPE SHARED)
      set(QSA_CUDART CUDA::cudart)
    else()
      set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
      set(QSA_CUDA_LIBRARY_TYPE STATIC)
      set(QSA_CUDART CUDA::cudart_static)
    endif()
    set(QSA_CUDA_ENABLED ON)
  elseif(QSA_ENABLE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "QSA_ENABLE_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER)")
  endif()
endif()
message(STATUS "qsacheck: CUDA backend ${QSA_CUDA_ENABLED}")
