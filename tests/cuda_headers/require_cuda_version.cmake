# Runs the gpu build's minimum-toolkit rule on one version:
#   cmake -DVERSION=12.3 -P require_cuda_version.cmake
# and prints the default architecture list of an accepted one.
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/kernelgate-cuda-version.cmake)
kernelgate_require_cuda_version("${VERSION}")
kernelgate_default_cuda_architectures(architectures "${VERSION}")
list(JOIN architectures ", " architectures)
message(STATUS "CUDA ${VERSION} accepted, default architectures ${architectures}.")
