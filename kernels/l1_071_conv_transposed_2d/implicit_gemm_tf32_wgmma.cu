// implicit_gemm_tf32 on wgmma m64n32k8 (sm_90a) for stride 1 and kernel size
// 3, the workload's shape: the rounded weights stay in shared memory as the
// B operand, one wgmma instruction per 64 pixels, tap and 8 input channels
// instead of 16 mma.sync. Other shapes run implicit_gemm_tf32's mma.sync
// kernel. Design: docs/kernels/l1_071.md, "The wgmma variants".
#include "l1_071_conv_transposed_2d/implicit_gemm_wgmma.cuh"

KG_REGISTER_CANDIDATE({kg::l1_071::wgmma_candidate(
    "tf32",
    "implicit_gemm_tf32 on wgmma m64n32k8 (sm_90a) for stride 1 and kernel 3: "
    "weights in shared memory, input rows walked once per tap column",
    kg::l1_071::launch_wgmma<kg::l1_071::Precision::tf32>)});
