// fused_tf32_wgmma: fused_tf32 with the paired CTA shape on wgmma (sm_90a):
// each K step is one m64n64k8 per m64 tile of the warpgroup, B read
// asynchronously from the shared-memory weight stage, so the tensor cores are
// not fed by per-warp fragment loads of B and keep running across the stage
// barrier. The single-image shape (batch 1) is fused_tf32's mma.sync kernel.
// Design: docs/kernels/l2_078.md.
#include "kernelgate/candidate.hpp"
#include "l2_078_conv_transpose3d_max_max_sum/fused_conv_pool_sum.cuh"

namespace {

constexpr int kPlanes = 1;  // one TF32 product per multiply-add
constexpr bool kWgmma = true;

KG_REGISTER_CANDIDATE({
    .workload = "l2_078_conv_transpose3d_max_max_sum",
    .id = "fused_tf32_wgmma",
    .precision = "tf32",
    .summary = "fused_tf32 with the two-image CTA tile on wgmma m64n64k8 (sm_90a): B from the "
               "shared-memory weight stage, asynchronous across the stage barrier",
    .unsupported_reason = [](const kg::Axes& axes) {
      return kg::l2_078::unsupported_reason(axes, kPlanes);
    },
    .workspace_bytes = [](const kg::Axes& axes) {
      return kg::l2_078::packed_weight_bytes(static_cast<int>(axes.at("in_channels")),
                                             static_cast<int>(axes.at("out_channels")), kPlanes);
    },
    .launch = [](const kg::LaunchArgs& args) { kg::l2_078::launch_fused<kPlanes, kWgmma>(args); },
});

}  // namespace
