#pragma once
// CUDA's declaration qualifiers, defined for a plain C++ compiler.
//
// Static `__shared__` becomes `static thread_local` in a section of its own:
// one host thread runs one block at a time, so each block sees its own array,
// and blocks running in parallel on different host threads never share it.
// The section lets the block runner find every such array and poison it at
// the start of each block, as dynamic shared memory is: a kernel that reads
// shared memory no thread of its block wrote gets NaN, not zeros or the
// previous block's values (docs/interpret-mode.md). Dynamic shared memory
// goes through KG_DYNAMIC_SMEM instead.

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __shared__ __attribute__((section("kg_static_shared"))) static thread_local
#define __constant__
#define __managed__
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __grid_constant__
// __restrict__ is understood by g++ and clang++ as it is. __noinline__ is left
// undefined on purpose: the standard library spells __attribute__((__noinline__)),
// which a macro of that name would break.
