// fused_3xtf32_wgmma: fused_3xtf32 (hi/lo split, three TF32 products, FP32-
// level accuracy) on wgmma (sm_90a), in the two-image CTA tile that mma.sync
// cannot hold in registers: B (the hi and lo weight planes) stays in shared
// memory, only the hi and lo A fragments live in registers. At batch 1 it is
// fused_3xtf32's single-image mma.sync kernel. Design: docs/kernels/l2_078.md.
#include "kernelgate/candidate.hpp"
#include "l2_078_conv_transpose3d_max_max_sum/fused_conv_pool_sum.cuh"

namespace {

constexpr int kPlanes = 2;  // TF32 hi and lo planes: three products, FP32-level accuracy
constexpr bool kWgmma = true;

KG_REGISTER_CANDIDATE({
    .workload = "l2_078_conv_transpose3d_max_max_sum",
    .id = "fused_3xtf32_wgmma",
    .precision = "fp32",
    .summary = "fused_3xtf32 with the two-image CTA tile on wgmma m64n64k8 (sm_90a): hi/lo "
               "weight planes read from shared memory by three chained products",
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
