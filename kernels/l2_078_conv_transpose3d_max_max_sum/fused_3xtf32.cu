// fused_3xtf32: transposed conv as implicit GEMMs over the 8 stride-2 parity
// classes on TF32 tensor cores with the error-compensated 3xTF32 split
// (a = hi + lo; hi*hi + hi*lo + lo*hi: FP32-level accuracy), 6x6x6 max in
// registers, bias after the max, fixed-order channel sum.
// Design: docs/kernels/l2_078.md.
#include "kernelgate/candidate.hpp"
#include "l2_078_conv_transpose3d_max_max_sum/fused_conv_pool_sum.cuh"

namespace {

constexpr int kPlanes = 2;  // TF32 hi and lo planes: three products, FP32-level accuracy

KG_REGISTER_CANDIDATE({
    .workload = "l2_078_conv_transpose3d_max_max_sum",
    .id = "fused_3xtf32",
    .precision = "fp32",
    .summary = "fused parity-class implicit GEMM on 3xTF32 (hi/lo split) mma.sync, 6x6x6 max "
               "in registers, bias after max, fixed-order channel sum",
    .unsupported_reason = [](const kg::Axes& axes) {
      return kg::l2_078::unsupported_reason(axes, kPlanes);
    },
    .workspace_bytes = [](const kg::Axes& axes) {
      return kg::l2_078::packed_weight_bytes(static_cast<int>(axes.at("in_channels")),
                                             static_cast<int>(axes.at("out_channels")), kPlanes);
    },
    .launch = [](const kg::LaunchArgs& args) { kg::l2_078::launch_fused<kPlanes>(args); },
});

}  // namespace
