# The CUDA side is built whenever nvcc is found (CUDA 13: sm_75 and newer), unless
# -DAUGMENT_CUDA=OFF. Without it, kernels/*.cu are compiled as C++: their host drivers (the
# CPU path and the "cuda-emulated" device) still work, and asking for a GPU says "built without CUDA".

set(AUGMENT_WITH_CUDA OFF)
if(AUGMENT_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
      # Turing to Hopper as machine code, plus PTX of the newest for what comes after.
      set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90-real;90-virtual")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(CMAKE_CUDA_STANDARD 17)  # CMake 3.25 knows no C++20 dialect for nvcc 13
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(AUGMENT_WITH_CUDA ON)
    message(STATUS "CUDA ${CMAKE_CUDA_COMPILER_VERSION}: architectures ${CMAKE_CUDA_ARCHITECTURES}")
  else()
    message(STATUS "CUDA: nvcc not found; building without the CUDA backend")
  endif()
else()
  message(STATUS "CUDA: disabled (-DAUGMENT_CUDA=OFF)")
endif()
