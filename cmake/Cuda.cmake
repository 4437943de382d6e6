# The CUDA side is built whenever nvcc is found (CUDA 13: sm_75 and newer), unless
# -DAUGMENT_CUDA=OFF. Without it, kernels/*.cu are compiled as C++: their host drivers (the
# CPU path and the "cuda-emulated" device) still work, and asking for a GPU says "built without CUDA".
#
# AUGMENT_CUDA_ARCHS: the GPU architectures the device code is compiled for.
#   auto  (default) the GPUs of this machine, from nvidia-smi's compute capability, as machine
#         code; without one, PTX of the oldest supported architecture (75-virtual), which the
#         driver compiles for whatever GPU runs it. Quick to build, for use where it is built.
#   all   Turing to Hopper as machine code plus PTX of the newest, for what comes after
#         (75-real;80-real;86-real;89-real;90-real;90-virtual): releases, packages and CI.
#   LIST  a CMake architecture list, e.g. "86-real" or "80-real;90-virtual".
# An explicit -DCMAKE_CUDA_ARCHITECTURES (or the CUDAARCHS environment variable) overrides it.
#
# AUGMENT_PTXAS_WARNINGS: ptxas reports every kernel that spills registers or uses local memory
# (-warn-spills,-warn-lmem-usage). Off by default: a stack frame is a performance matter for a
# person to judge, not a defect; they stay warnings under AUGMENT_WERROR.

set(AUGMENT_CUDA_ARCHS auto CACHE STRING
    "GPU architectures for the device code: auto (this machine's GPUs, or portable PTX), all (release/CI), or a CMake list")
option(AUGMENT_PTXAS_WARNINGS "ptxas reports of register spills and local memory use in the kernels" OFF)
set(AUGMENT_CUDA_ARCHS_ALL "75-real;80-real;86-real;89-real;90-real;90-virtual")

# The architectures of the GPUs here that nvcc can compile for, as "<cc>-real", into `out`;
# "75-virtual" (PTX) when there is none or nvidia-smi cannot say.
function(augment_detect_cuda_archs out)
  set(archs)
  find_program(AUGMENT_NVIDIA_SMI nvidia-smi)
  if(AUGMENT_NVIDIA_SMI)
    execute_process(COMMAND ${AUGMENT_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 20)
    execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --list-gpu-code
                    OUTPUT_VARIABLE known ERROR_QUIET TIMEOUT 20)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(REPLACE "." "" arch "${cap}")
        if(known MATCHES "(^|\n)sm_${arch}(\n|$)")
          list(APPEND archs ${arch}-real)
        else()
          message(STATUS "CUDA: this nvcc cannot compile for compute capability ${cap} (a GPU here); not built for it")
        endif()
      endforeach()
    endif()
  endif()
  list(REMOVE_DUPLICATES archs)
  if(NOT archs)
    set(archs 75-virtual)
  endif()
  set(${out} ${archs} PARENT_SCOPE)
endfunction()

set(AUGMENT_WITH_CUDA OFF)
if(AUGMENT_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Set before enable_language, which would otherwise cache nvcc's own default.
    if(NOT "$ENV{CUDAARCHS}" STREQUAL "")
      set(_from "CUDAARCHS")
    elseif(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
      if(AUGMENT_CUDA_ARCHS STREQUAL "auto")
        augment_detect_cuda_archs(CMAKE_CUDA_ARCHITECTURES)
      elseif(AUGMENT_CUDA_ARCHS STREQUAL "all")
        set(CMAKE_CUDA_ARCHITECTURES ${AUGMENT_CUDA_ARCHS_ALL})
      else()
        set(CMAKE_CUDA_ARCHITECTURES ${AUGMENT_CUDA_ARCHS})
      endif()
      set(_from "AUGMENT_CUDA_ARCHS=${AUGMENT_CUDA_ARCHS}")
    else()
      set(_from "CMAKE_CUDA_ARCHITECTURES")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(CMAKE_CUDA_STANDARD 17)  # CMake 3.25 knows no C++20 dialect for nvcc 13
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(AUGMENT_WITH_CUDA ON)
    message(STATUS "CUDA ${CMAKE_CUDA_COMPILER_VERSION}: architectures ${CMAKE_CUDA_ARCHITECTURES} (${_from})")
  else()
    message(STATUS "CUDA: nvcc not found; building without the CUDA backend")
  endif()
else()
  message(STATUS "CUDA: disabled (-DAUGMENT_CUDA=OFF)")
endif()

# The simulated GPUs (docs/ptx-interpreter.md): a CUDA build with tests also builds augment, the
# GPU tests and the planted faults a second time, into <build>/sim/, linked against the CUDA
# runtime stand-in of tests/ptx instead of the runtime: there `--device cuda:N` and the GPU tests
# run the kernels' PTX in an interpreter on AUGMENT_SIM_GPUS simulated GPUs (2 by default), on a
# machine without one (.ci/gpu-sim). Only the kernels are compiled again, for them; the library's
# and the program's objects are shared with the real build.
set(AUGMENT_SIM_TARGETS OFF)
if(AUGMENT_WITH_CUDA AND AUGMENT_BUILD_TESTS)
  set(AUGMENT_SIM_TARGETS ON)
endif()
# A target of the simulated GPUs: its CUDA code as PTX of compute_90 only, stored uncompressed in
# the fat binary (what the interpreter reads), and no CUDA runtime linked (the stand-in is).
function(augment_sim_cuda_target target)
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES 90-virtual CUDA_RUNTIME_LIBRARY None)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--compress-mode=none>)
endfunction()
# An executable of the simulated GPUs, named as its real counterpart, in <build>/sim/.
function(augment_sim_executable target name)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name} CUDA_RUNTIME_LIBRARY None
                                             RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/sim)
endfunction()
