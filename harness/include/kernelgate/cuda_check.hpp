#pragma once
// The one error-check header for CUDA runtime, cuDNN and CUPTI calls (the
// pattern of nvbench's cuda_call.cuh and PyTorch's ATen/cuda/Exceptions.h):
// every call goes through a macro that throws kg::CudaError naming the library,
// the call as written, file, line and status. kg::CudaError itself needs no
// CUDA headers, so host code and tests can catch and format it in every build.
#include <string>
#include <utility>

#include "kernelgate/error.hpp"

namespace kg {

class CudaError : public Error {
 public:
  // library: "CUDA", "cuDNN" or "CUPTI"; status: the numeric status code;
  // status_name: its symbolic name; detail: the library's explanation, if any.
  CudaError(std::string library, std::string expression, std::string file, int line, long long status,
            std::string status_name, std::string detail)
      : Error(describe(library, expression, file, line, status, status_name, detail)),
        library_(std::move(library)),
        expression_(std::move(expression)),
        file_(std::move(file)),
        line_(line),
        status_(status),
        status_name_(std::move(status_name)) {}

  const std::string& library() const { return library_; }
  const std::string& expression() const { return expression_; }
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  long long status() const { return status_; }
  const std::string& status_name() const { return status_name_; }

  // One line: "<library> call failed: <status_name> (<status>): <detail> in `<expression>` at <file>:<line>".
  static std::string describe(const std::string& library, const std::string& expression,
                              const std::string& file, int line, long long status,
                              const std::string& status_name, const std::string& detail) {
    std::string text = library + " call failed: " + status_name + " (" + std::to_string(status) + ")";
    if (!detail.empty()) text += ": " + one_line(detail);
    text += " in `" + expression + "` at " + file + ":" + std::to_string(line);
    return text;
  }

 private:
  // Library messages sometimes carry newlines; the harness promises one line.
  static std::string one_line(std::string text) {
    for (char& c : text)
      if (c == '\n' || c == '\r') c = ' ';
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
  }

  std::string library_;
  std::string expression_;
  std::string file_;
  int line_;
  long long status_;
  std::string status_name_;
};

}  // namespace kg

// KG_CUDA_CHECK works in both builds: in interpret mode the runtime calls are
// the shims of kernelgate/interpret/cuda_shims.hpp, so code shared by the two
// (the cuda device, which the cpu build runs on the simulated GPU) checks its
// calls the same way. cuDNN exists in the gpu build only.
#if defined(KG_INTERPRET)
#include "kernelgate/interpret/cuda_shims.hpp"
#elif defined(KG_GPU)
#include <cuda_runtime.h>
#include <cudnn.h>
#include <cupti_result.h>
#endif

#if defined(KG_INTERPRET) || defined(KG_GPU)
namespace kg::detail {

inline void check_cuda(cudaError_t status, const char* expression, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw CudaError("CUDA", expression, file, line, static_cast<long long>(status),
                  cudaGetErrorName(status), cudaGetErrorString(status));
}

}  // namespace kg::detail

#define KG_CUDA_CHECK(expression) ::kg::detail::check_cuda((expression), #expression, __FILE__, __LINE__)
#endif

#if defined(KG_GPU) && !defined(KG_INTERPRET)
namespace kg::detail {

inline void check_cudnn(cudnnStatus_t status, const char* expression, const char* file, int line) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  // cuDNN 9 keeps a per-thread message that says which attribute or shape it rejected.
  char message[512] = {};
  cudnnGetLastErrorString(message, sizeof message);
  throw CudaError("cuDNN", expression, file, line, static_cast<long long>(status),
                  cudnnGetErrorString(status), message);
}

}  // namespace kg::detail

#define KG_CUDNN_CHECK(expression) ::kg::detail::check_cudnn((expression), #expression, __FILE__, __LINE__)
#endif

// CUPTI: the toolkit's in the gpu build; in the cpu build the simulated GPU's
// (harness/src/device/sim/include/cupti.h), for the cuda device's sources
// compiled against it (KG_SIMULATED_GPU_SOURCES).
#if (defined(KG_GPU) && !defined(KG_INTERPRET)) || defined(KG_SIMULATED_GPU_SOURCES)
#if defined(KG_SIMULATED_GPU_SOURCES)
#include <cupti.h>
#endif
namespace kg::detail {

inline void check_cupti(CUptiResult status, const char* expression, const char* file, int line) {
  if (status == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown CUPTI status";
  throw CudaError("CUPTI", expression, file, line, static_cast<long long>(status), text, "");
}

}  // namespace kg::detail

#define KG_CUPTI_CHECK(expression) ::kg::detail::check_cupti((expression), #expression, __FILE__, __LINE__)
#endif
