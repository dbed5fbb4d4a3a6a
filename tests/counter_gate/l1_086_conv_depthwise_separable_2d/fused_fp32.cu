// l1_086's fused_fp32 as it is, but for one defect: the rows of its depthwise
// result in shared memory lose their padding, so the B-fragment loads of the
// pointwise mma fall four lanes to a bank. The cpu gate must see it in the
// counters and fail the candidate against the shipped modelled record.
#define KG_L1_086_DEPTHWISE_PADDING 0
#include "l1_086_conv_depthwise_separable_2d/fused_fp32.cu"
