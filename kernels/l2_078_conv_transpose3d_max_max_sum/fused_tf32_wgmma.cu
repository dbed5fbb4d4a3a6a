// fused_tf32_wgmma: fused_tf32 with the paired CTA shape on wgmma (sm_90a):
// each K step is one m64n64k8 per m64 tile of the warpgroup, B read
// asynchronously from the shared-memory weight stage, so the tensor cores are
// not fed by per-warp fragment loads of B and keep running across the stage
// barrier. The single-image shape (batch 1) is fused_tf32's mma.sync kernel.
// Design: docs/kernels/l2_078.md.
#include "l2_078_conv_transpose3d_max_max_sum/fused_conv_pool_sum.cuh"

// One TF32 product per multiply-add; the paired shape on wgmma.
KG_REGISTER_CANDIDATE({kg::l2_078::fused_candidate</*kPlanes=*/1, /*kWgmma=*/true>(
    "tf32",
    "fused_tf32 with the two-image CTA tile on wgmma m64n64k8 (sm_90a): B from the "
    "shared-memory weight stage, asynchronous across the stage barrier")});
