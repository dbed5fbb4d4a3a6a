// ConvTranspose2d (stride > 1: parity classes) as an implicit GEMM on TF32 tensor cores
// (mma.sync m16n8k8): one TF32 product per multiply-add. Design:
// docs/kernels/l1_071.md.
#include "l1_071_conv_transposed_2d/implicit_gemm.cuh"

KG_REGISTER_CANDIDATE({kg::l1_071::implicit_gemm_candidate(
    "tf32",
    "implicit GEMM (flipped weight, implicit padding, parity classes for stride > 1) on TF32 mma.sync, "
    "cp.async double-buffered halo tiles, weights resident in shared memory",
    kg::l1_071::launch<kg::l1_071::Precision::tf32>)});
