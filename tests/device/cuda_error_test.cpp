// kg::CudaError: the one error every CUDA, cuDNN and CUPTI check throws. Its
// message is what a reviewer reads in a report, so its shape is tested here.
#include <string>

#include <gtest/gtest.h>

#include "kernelgate/cuda_check.hpp"

namespace kg {
namespace {

TEST(CudaError, NamesLibraryStatusCallAndPlace) {
  const CudaError error("cuDNN", "cudnnBackendFinalize(plan)", "harness/src/device/cuda/cudnn_convolution.cpp", 42,
                        3000, "CUDNN_STATUS_NOT_SUPPORTED", "no engine for this shape");
  const std::string message = error.what();
  EXPECT_EQ(message,
            "cuDNN call failed: CUDNN_STATUS_NOT_SUPPORTED (3000): no engine for this shape in "
            "`cudnnBackendFinalize(plan)` at harness/src/device/cuda/cudnn_convolution.cpp:42");
  EXPECT_EQ(error.library(), "cuDNN");
  EXPECT_EQ(error.expression(), "cudnnBackendFinalize(plan)");
  EXPECT_EQ(error.line(), 42);
  EXPECT_EQ(error.status(), 3000);
  EXPECT_EQ(error.status_name(), "CUDNN_STATUS_NOT_SUPPORTED");
}

TEST(CudaError, IsAKgErrorOnOneLine) {
  try {
    throw CudaError("CUDA", "cudaMalloc(&p, n)", "a.cpp", 7, 2, "cudaErrorMemoryAllocation",
                    "out of memory\nwhile allocating\n");
  } catch (const Error& e) {  // callers that only know kg::Error still catch it
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_NE(message.find("out of memory while allocating in `cudaMalloc(&p, n)` at a.cpp:7"), std::string::npos)
        << message;
    return;
  }
  ADD_FAILURE() << "CudaError was not caught as kg::Error";
}

TEST(CudaError, OmitsAnEmptyDetail) {
  const CudaError error("CUPTI", "cuptiActivityFlushAll(1)", "b.cpp", 9, 1, "CUPTI_ERROR_INVALID_PARAMETER", "");
  EXPECT_STREQ(error.what(),
               "CUPTI call failed: CUPTI_ERROR_INVALID_PARAMETER (1) in `cuptiActivityFlushAll(1)` at b.cpp:9");
}

}  // namespace
}  // namespace kg
