# The oldest CUDA toolkit the gpu build accepts. The kernels use PTX ISA 8.0
# instructions (wgmma, fence.proxy.async, cp.async, mma with tf32), which need
# CUDA 12.0; and 12.4 is the oldest toolkit whose runtime and CUPTI headers
# the project checks (CUPTI API version 22, ci/check-cuda-headers.sh). Kept
# apart from CMakeLists.txt so that `cmake -P` tests it (tests/cuda_headers).

# Stops the configuration when `found`, the CUDA compiler's version, is older than 12.4.
function(kernelgate_require_cuda_version found)
  set(minimum 12.4)
  if(found VERSION_LESS minimum)
    message(FATAL_ERROR
      "kernelgate's gpu build needs CUDA ${minimum} or later, found CUDA ${found}: the kernels use "
      "PTX ISA 8.0 instructions (wgmma, fence.proxy.async, cp.async, mma with tf32; CUDA 12.0 and later), "
      "and ${minimum} is the oldest toolkit whose runtime and CUPTI headers the project checks "
      "(CUPTI API version 22). Install CUDA ${minimum} or later, or point CUDACXX at its nvcc.")
  endif()
endfunction()

# The architectures a gpu build compiles every kernel for when the project
# names none (CMAKE_CUDA_ARCHITECTURES): Ampere (80), Ada (89), Hopper (90a)
# and Blackwell datacenter (100a), which nvcc knows from CUDA 12.8 on: with
# `found` older, the list stops at 90a. Sets `out` in the caller.
function(kernelgate_default_cuda_architectures out found)
  set(architectures 80 89 90a)
  if(NOT found VERSION_LESS 12.8)
    list(APPEND architectures 100a)
  endif()
  set(${out} "${architectures}" PARENT_SCOPE)
endfunction()
