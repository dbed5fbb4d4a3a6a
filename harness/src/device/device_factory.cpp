// open_device(): "auto" | "cpu" | "cuda" | "cuda:N". The cpu device exists in
// the cpu build (interpret mode); the cuda device in the gpu build (KG_GPU),
// implemented in harness/src/device/cuda.
#include "cpu_device.hpp"
#include "kernelgate/device.hpp"
#include "kernelgate/gpu_identity.hpp"

namespace kg {
namespace {

std::unique_ptr<Device> open_cuda(int ordinal) {
#if defined(KG_GPU) && KG_GPU
  return open_cuda_device(ordinal);
#else
  throw NoDeviceError("no cuda device: this kernelgate was built without CUDA "
                      "(configure with -DKERNELGATE_GPU=ON, preset gpu)");
#endif
}

}  // namespace

bool cpu_device_supported() {
#if defined(KG_INTERPRET)
  return true;
#else
  return false;
#endif
}

std::unique_ptr<Device> open_device(const std::string& spec) {
  if (spec == "cpu") {
    if (!cpu_device_supported())
      throw Error("the cpu device runs candidates in interpret mode, which only the cpu build "
                  "includes (this binary is the gpu build)");
    return detail::make_cpu_device();
  }
  // "cuda" alone is the GPU CTest assigned (RESOURCE_GROUPS), else GPU 0.
  if (spec == "cuda" || spec.rfind("cuda:", 0) == 0) return open_cuda(cuda_ordinal_from_spec(spec));
  if (spec == "auto") {
#if defined(KG_GPU) && KG_GPU
    if (cuda_device_count() > 0) return open_cuda_device(ctest_assigned_gpu().value_or(0));
#endif
    if (cpu_device_supported()) return detail::make_cpu_device();
    throw NoDeviceError("no GPU found, and this gpu build has no cpu device");
  }
  throw Error("unknown device '" + spec + "' (expected auto, cpu, cuda or cuda:N)");
}

}  // namespace kg
