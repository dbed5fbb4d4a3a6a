// implicit_gemm_tf32_wgmma with tiles of 8 output rows instead of 4: 10
// staged input rows per 8 output rows (1.25x) instead of 6 per 4 (1.5x), so
// less L2 and shared-memory traffic per output, and a longer stage to cover
// memory latency; but 224 registers, so two blocks per SM (8 warps) instead
// of three. Which of the two is faster is for a GPU run to tell. Design:
// docs/kernels/l1_071.md, "Tiles of 8 rows".
#include "l1_071_conv_transposed_2d/implicit_gemm_wgmma.cuh"

KG_REGISTER_CANDIDATE({kg::l1_071::wgmma_candidate(
    "tf32",
    "implicit_gemm_tf32_wgmma with tiles of 8 output rows: less halo traffic, "
    "two blocks per SM",
    kg::l1_071::launch_wgmma<kg::l1_071::Precision::tf32, 8>)});
