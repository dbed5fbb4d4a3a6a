// Depthwise 3x3 + pointwise 1x1 in one pass: depthwise in FP32 into shared
// memory, pointwise on TF32 tensor cores (docs/kernels/l1_086.md).
#include "depthwise_separable_fused.cuh"

KG_REGISTER_CANDIDATE({kg::l1_086::fused_candidate<kg::l1_086::PointwisePrecision::tf32>(
    "tf32",
    "one pass: cp.async input tile with halo, FP32 depthwise into shared memory, "
    "pointwise on TF32 mma.sync m16n8k8, float4 output")});
