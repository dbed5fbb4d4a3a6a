// Process-wide cuDNN handles (one per device) and convolution plans (one per
// device, shape and math mode), as PyTorch caches its plans: building a plan
// costs milliseconds, executing it microseconds.
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "kernelgate/cuda_check.hpp"
#include "kernelgate/cudnn/convolution.hpp"

namespace kg::cudnn {
namespace {

std::mutex& cache_mutex() {
  static std::mutex mutex;
  return mutex;
}

int current_device() {
  int device = 0;
  KG_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

// Caller holds cache_mutex(). The caches are never destroyed (PyTorch keeps
// its cuDNN handles the same way): at exit the CUDA runtime may already be
// torn down, and cudnnDestroy after that can fail or crash, which would turn a
// child that already wrote its result into a `crashed` candidate.
const Handle& handle_of(int device) {
  static auto& handles = *new std::map<int, std::unique_ptr<Handle>>;
  std::unique_ptr<Handle>& handle = handles[device];
  if (!handle) handle = std::make_unique<Handle>();
  return *handle;
}

}  // namespace

const Handle& shared_handle() {
  std::lock_guard lock(cache_mutex());
  return handle_of(current_device());
}

const ConvolutionPlan& cached_plan(const ConvolutionShape& shape, MathMode math) {
  std::lock_guard lock(cache_mutex());
  static auto& plans = *new std::map<std::tuple<int, std::string, MathMode>, std::unique_ptr<ConvolutionPlan>>;
  const int device = current_device();
  std::unique_ptr<ConvolutionPlan>& plan = plans[{device, shape.key(), math}];
  if (!plan) plan = std::make_unique<ConvolutionPlan>(handle_of(device), shape, math);
  return *plan;
}

}  // namespace kg::cudnn
