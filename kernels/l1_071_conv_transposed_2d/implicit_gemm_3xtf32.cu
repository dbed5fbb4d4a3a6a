// ConvTranspose2d (stride > 1: parity classes) as an implicit GEMM on TF32 tensor cores with
// error-compensated 3xTF32 (a_hi*b_hi + a_hi*b_lo + a_lo*b_hi): FP32-level
// accuracy at three times the tensor work. Design: docs/kernels/l1_071.md.
#include "l1_071_conv_transposed_2d/implicit_gemm.cuh"

KG_REGISTER_CANDIDATE({kg::l1_071::implicit_gemm_candidate(
    "fp32",
    "implicit GEMM (parity classes for stride > 1) on TF32 mma.sync with 3xTF32 error compensation "
    "(FP32 accuracy), cp.async double-buffered halo tiles",
    kg::l1_071::launch<kg::l1_071::Precision::tf32x3>)});
