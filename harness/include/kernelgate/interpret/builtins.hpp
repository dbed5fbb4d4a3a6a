#pragma once
// threadIdx, blockIdx, blockDim, gridDim and warpSize in interpret mode.
//
// They are host-thread-local variables that the block scheduler sets before it
// resumes a fiber: every CUDA thread of a block runs on the same host thread,
// and the scheduler rewrites threadIdx at each switch. They are constant-
// initialised, so reading one is a plain thread-local load.
#include "kernelgate/interpret/vector_types.hpp"

inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
constexpr int warpSize = 32;
