#pragma once
// How interpret mode does the arithmetic of mma.sync and wgmma
// (docs/interpret-mode.md, "Tensor-core arithmetic").
//
// `hopper` (the default) follows the bit-accurate model of the H100's tensor
// cores for TF32 and BF16 operands: each instruction is one block FMA of its
// K products (8 for TF32, 16 for BF16) and the accumulator; the products are
// exact; every term is aligned to the largest exponent among them and cut to
// 25 fractional bits below it (truncated, no sticky bit); the sum of the cut
// terms is exact, and the result is truncated to FP32. `nearest` forms the
// exact sum and rounds it to nearest once: more accurate than the hardware,
// kept to show how much of a kernel's error the hardware's rounding adds.
//
// `skipped` computes nothing (the accumulators keep their values): interpret
// mode uses it for a sampled, counted launch (`kernelgate model`), whose
// output is not the kernel's anyway, as only some of its blocks run; the
// counts do not depend on it. It cannot be asked for.
//
// Read from KG_INTERPRET_TENSOR_CORES at each launch, unless the process
// pinned a mode: the runner's child pins its request's mode before any
// candidate code runs, as it does the thread order.
#include <string>

namespace kg::interp {

enum class TensorCoreArithmetic { hopper, nearest, skipped };

TensorCoreArithmetic parse_tensor_core_arithmetic(const std::string& text);  // throws kg::Error
std::string to_string(TensorCoreArithmetic arithmetic);
TensorCoreArithmetic tensor_core_arithmetic_from_environment();  // throws kg::Error
void pin_tensor_core_arithmetic(TensorCoreArithmetic arithmetic);
// The pinned mode, else the environment's.
TensorCoreArithmetic current_tensor_core_arithmetic();

// One block FMA: c + sum of a[i] * b[i] over `count` products, each operand
// already a TF32 or BF16 value, as `arithmetic` computes it.
float tensor_core_block_fma(const float* a, const float* b, int count, float c,
                            TensorCoreArithmetic arithmetic);

// The block FMAs of one instruction's tile, as tensor_core_block_fma gives
// each: acc[r * n + j] = block_fma(a + r * k, b + j * k, k, acc[r * n + j])
// for r < rows and j < n (b holds the columns of B, each k long), at most
// one instruction's tile: rows <= 16, n <= 64, k <= 16 (else kg::Error).
void tensor_core_tile(const float* a, const float* b, int rows, int n, int k, float* acc,
                      TensorCoreArithmetic arithmetic);

}  // namespace kg::interp
