// Depthwise 3x3 + pointwise 1x1 in one pass, FP32-faithful: the same dataflow
// as fused_tf32, with the pointwise GEMM in error-compensated 3xTF32 on the
// tensor cores, faster than FP32 SIMT here (docs/kernels/l1_086.md).
#include "depthwise_separable_fused.cuh"

KG_REGISTER_CANDIDATE({kg::l1_086::fused_candidate<kg::l1_086::PointwisePrecision::split3xtf32>(
    "fp32",
    "one pass: cp.async input tile with halo, FP32 depthwise into shared memory, "
    "pointwise on 3xTF32 mma.sync m16n8k8 (FP32-faithful), float4 output")});
