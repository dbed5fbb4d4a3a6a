// fused_3xtf32: transposed conv as implicit GEMMs over the 8 stride-2 parity
// classes on TF32 tensor cores with the error-compensated 3xTF32 split
// (a = hi + lo; hi*hi + hi*lo + lo*hi: FP32-level accuracy), 6x6x6 max in
// registers, bias after the max, fixed-order channel sum.
// Design: docs/kernels/l2_078.md.
#include "l2_078_conv_transpose3d_max_max_sum/fused_conv_pool_sum.cuh"

// TF32 hi and lo planes, three products: FP32-level accuracy.
KG_REGISTER_CANDIDATE({kg::l2_078::fused_candidate</*kPlanes=*/2, /*kWgmma=*/false>(
    "fp32",
    "fused parity-class implicit GEMM on 3xTF32 (hi/lo split) mma.sync, 6x6x6 max "
    "in registers, bias after max, fixed-order channel sum")});
