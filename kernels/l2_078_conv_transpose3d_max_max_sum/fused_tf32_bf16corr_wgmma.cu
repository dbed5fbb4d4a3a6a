// fused_3xtf32_wgmma's FP32-level product at two thirds of its tensor time:
// a_hi b_hi on TF32 (m64n64k8) and the two correction terms a_lo b_hi +
// a_hi b_lo as one BF16 wgmma (m64n64k16), which runs at twice the TF32 rate.
// The BF16 rounding of the correction operands costs about 1e-6 relative L2.
// At batch 1 and at 8 input channels it is fused_3xtf32's single-image
// mma.sync kernel, and takes that kernel's bound on the input channels.
// Design and accuracy: docs/kernels/l2_078.md.
#include "l2_078_conv_transpose3d_max_max_sum/fused_conv_pool_sum.cuh"

KG_REGISTER_CANDIDATE({kg::l2_078::fused_candidate</*kPlanes=*/2, /*kWgmma=*/true,
                                                   /*kBf16Correction=*/true>(
    "fp32",
    "fused_3xtf32_wgmma's tile with a_hi*b_hi on TF32 and both error corrections in one BF16 "
    "wgmma (sm_90a): FP32-level, about 1e-6 rel. L2")});
