// fused_tf32: transposed conv as implicit GEMMs over the 8 stride-2 parity
// classes on TF32 tensor cores, 6x6x6 max in registers, bias after the max,
// fixed-order channel sum. Design: docs/kernels/l2_078.md.
#include "l2_078_conv_transpose3d_max_max_sum/fused_conv_pool_sum.cuh"

// One TF32 product per multiply-add.
KG_REGISTER_CANDIDATE({kg::l2_078::fused_candidate</*kPlanes=*/1, /*kWgmma=*/false>(
    "tf32",
    "fused parity-class implicit GEMM on TF32 mma.sync, 6x6x6 max in registers, "
    "bias after max, fixed-order channel sum")});
