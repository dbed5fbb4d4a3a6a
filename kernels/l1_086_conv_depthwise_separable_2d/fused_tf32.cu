// Depthwise 3x3 + pointwise 1x1 in one pass: depthwise in FP32 into shared
// memory, pointwise on TF32 tensor cores (docs/kernels/l1_086.md).
#include "depthwise_separable_fused.cuh"

namespace {

using kg::l1_086::PointwisePrecision;

KG_REGISTER_CANDIDATE({
    .precision = "tf32",
    .summary = "one pass: cp.async input tile with halo, FP32 depthwise into shared memory, "
               "pointwise on TF32 mma.sync m16n8k8, float4 output",
    .unsupported_reason =
        [](const kg::Axes& axes) {
          return kg::l1_086::unsupported_reason(axes, PointwisePrecision::tf32);
        },
    .workspace_bytes = kg::l1_086::no_workspace,
    .launch = kg::l1_086::launch<PointwisePrecision::tf32>,
});

}  // namespace
