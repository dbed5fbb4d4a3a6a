#pragma once
// The CUDA runtime API as the simulated GPU has it: interpret mode's runtime
// (kernelgate/interpret/cuda_shims.hpp), for the cuda device's sources that
// the cpu build compiles against the simulated GPU (docs/simulated-gpu.md).
#include "kernelgate/interpret/cuda_shims.hpp"
