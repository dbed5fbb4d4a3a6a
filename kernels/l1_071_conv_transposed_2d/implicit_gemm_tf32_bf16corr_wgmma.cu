// The implicit GEMM on wgmma (sm_90a) for stride 1 and kernel size 3 with
// FP32-level accuracy at two thirds of 3xTF32's tensor time: a_hi b_hi on
// TF32 (m64n32k8), and the two correction terms a_lo b_hi + a_hi b_lo as one
// BF16 product (m64n32k16), which runs at twice the TF32 rate. The BF16
// rounding of the correction operands costs about 1e-6 relative L2 (FP32's
// own rounding: 1e-7; the fp32 tolerance: 1e-5). Other shapes run
// implicit_gemm_3xtf32's mma.sync kernel. Design and accuracy:
// docs/kernels/l1_071.md, "The wgmma variants".
#include "l1_071_conv_transposed_2d/implicit_gemm_wgmma.cuh"

KG_REGISTER_CANDIDATE({kg::l1_071::wgmma_candidate(
    "fp32",
    "wgmma (sm_90a), stride 1 and kernel 3: a_hi*b_hi on TF32 plus both error "
    "corrections in one BF16 wgmma (FP32-level, about 1e-6 rel. L2)",
    kg::l1_071::launch_wgmma<kg::l1_071::Precision::tf32_bf16>)});
