// implicit_gemm_3xtf32 (hi/lo split, three TF32 products, FP32-level
// accuracy) on wgmma m64n32k8 (sm_90a) for stride 1 and kernel size 3, the
// workload's shape: the weight planes stay in shared memory and the tensor
// pipe runs at the wgmma rate. Other shapes run implicit_gemm_3xtf32's
// mma.sync kernel. Design: docs/kernels/l1_071.md, "The wgmma variants".
#include "l1_071_conv_transposed_2d/implicit_gemm_wgmma.cuh"

KG_REGISTER_CANDIDATE({kg::l1_071::wgmma_candidate(
    "fp32",
    "implicit_gemm_3xtf32 on wgmma m64n32k8 (sm_90a) for stride 1 and kernel 3: "
    "hi/lo weight planes in shared memory, input rows walked once per tap column",
    kg::l1_071::launch_wgmma<kg::l1_071::Precision::tf32x3>)});
