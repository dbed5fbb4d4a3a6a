// cudnn_eager: nn.Conv2d as PyTorch eager runs it, one cuDNN forward
// convolution with TF32 allowed, and the strict-FP32 GPU reference, the same
// graph without tensor cores (kernels/common/standard_conv_cudnn.cuh). GPU
// only: the cpu build compiles this file to nothing.
#if defined(KG_GPU)
#include "common/standard_conv_cudnn.cuh"

// The input's spatial dimensions, in order.
KG_REGISTER_CUDNN_EAGER({kg::kernels::standard_conv_eager("2-D", {"height", "width"})});

#endif  // KG_GPU
