// cudnn_eager: nn.Conv2d as PyTorch eager runs it, one cuDNN forward
// convolution with TF32 allowed, and the strict-FP32 GPU reference, the same
// graph without tensor cores (kernels/common/standard_conv_cudnn.cuh). The
// cpu build, which has no cuDNN, registers it absent.
#if defined(KG_GPU)
#include "common/standard_conv_cudnn.cuh"

// The input's spatial dimensions, in order.
KG_REGISTER_CUDNN_EAGER({kg::kernels::standard_conv_eager("2-D", {"height", "width"})});

#else  // the cpu build, without cuDNN: not_supported on the simulated GPU
#include "common/cudnn_eager.cuh"

KG_REGISTER_CUDNN_EAGER_ABSENT();

#endif  // KG_GPU
