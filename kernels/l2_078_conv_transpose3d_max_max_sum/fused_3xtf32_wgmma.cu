// fused_3xtf32_wgmma: fused_3xtf32 (hi/lo split, three TF32 products, FP32-
// level accuracy) on wgmma (sm_90a), in the two-image CTA tile that mma.sync
// cannot hold in registers: B (the hi and lo weight planes) stays in shared
// memory, only the hi and lo A fragments live in registers. At batch 1 and at
// 8 input channels it is fused_3xtf32's single-image mma.sync kernel.
// Design: docs/kernels/l2_078.md.
#include "l2_078_conv_transpose3d_max_max_sum/fused_conv_pool_sum.cuh"

// TF32 hi and lo planes, three products (FP32-level accuracy); the paired shape
// on wgmma.
KG_REGISTER_CANDIDATE({kg::l2_078::fused_candidate</*kPlanes=*/2, /*kWgmma=*/true>(
    "fp32",
    "fused_3xtf32 with the two-image CTA tile on wgmma m64n64k8 (sm_90a): hi/lo "
    "weight planes read from shared memory by three chained products")});
