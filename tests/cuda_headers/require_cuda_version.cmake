# Runs the gpu build's minimum-toolkit rule on one version:
#   cmake -DVERSION=12.3 -P require_cuda_version.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/kernelgate-cuda-version.cmake)
kernelgate_require_cuda_version("${VERSION}")
message(STATUS "CUDA ${VERSION} accepted")
