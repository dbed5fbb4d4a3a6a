// open_device() and describe_device(): "auto" | "cpu" | "cuda" | "cuda:N" |
// "sim:<key>". The cpu device exists in the cpu build (interpret mode); the
// cuda device in the gpu build (KG_GPU), implemented in
// harness/src/device/cuda, and in the cpu build on the simulated GPU.
#include "cpu_device.hpp"
#include "kernelgate/detail/device.hpp"
#include "kernelgate/detail/gpu_identity.hpp"
#if defined(KG_INTERPRET)
#include "sim/simulated_device.hpp"
#endif

namespace kg {
namespace {

#if defined(KG_GPU) && KG_GPU
std::unique_ptr<Device> open_cuda(int ordinal) { return open_cuda_device(ordinal); }
DeviceDescription describe_cuda(int ordinal) { return describe_cuda_device(ordinal); }
#else
[[noreturn]] void no_cuda_in_this_build() {
  throw NoDeviceError("no cuda device: this kernelgate was built without CUDA "
                      "(configure with -DKERNELGATE_GPU=ON, preset gpu)");
}
std::unique_ptr<Device> open_cuda(int) { no_cuda_in_this_build(); }
DeviceDescription describe_cuda(int) { no_cuda_in_this_build(); }
#endif

// The device "auto" stands for: the GPU CTest assigned (else the first) when
// there is a GPU, else the cpu device; -1 for the cpu device.
int auto_device_ordinal() {
#if defined(KG_GPU) && KG_GPU
  if (cuda_device_count() > 0) return ctest_assigned_gpu().value_or(0);
#endif
  if (cpu_device_supported()) return -1;
  throw NoDeviceError("no GPU found, and this gpu build has no cpu device");
}

#if defined(KG_INTERPRET)
// The cuda device on the simulated GPU (sim/): the spec names the card and
// its script; the parent reads the script from the environment once
// (scripted_simulated_gpu) and its children open what it read.
std::unique_ptr<Device> open_simulated(const std::string& spec) {
  detail::open_simulated_gpu(spec);
  return open_cuda_device(0);
}

DeviceDescription describe_simulated(const std::string& spec) {
  const std::string scripted = detail::scripted_simulated_gpu(spec);
  detail::open_simulated_gpu(scripted);
  DeviceDescription description = describe_cuda_device(0);
  description.child_spec = scripted;
  return description;
}
#else
[[noreturn]] void no_simulated_gpu_in_this_build(const std::string& spec) {
  throw Error("device '" + spec + "': the simulated GPU is part of the cpu build (this binary is the gpu build)");
}
std::unique_ptr<Device> open_simulated(const std::string& spec) { no_simulated_gpu_in_this_build(spec); }
DeviceDescription describe_simulated(const std::string& spec) { no_simulated_gpu_in_this_build(spec); }
#endif

std::unique_ptr<Device> open_cpu() {
  if (!cpu_device_supported())
    throw Error("the cpu device runs candidates in interpret mode, which only the cpu build "
                "includes (this binary is the gpu build)");
  return detail::make_cpu_device();
}

bool names_cuda(const std::string& spec) { return spec == "cuda" || spec.rfind("cuda:", 0) == 0; }

void check_spec(const std::string& spec) {
  if (spec != "cpu" && spec != "auto" && !names_cuda(spec) && !is_simulated_device(spec))
    throw Error("unknown device '" + spec + "' (expected auto, cpu, cuda, cuda:N or sim:<key>)");
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
  check_spec(spec);
  // "cuda" alone is the GPU CTest assigned (RESOURCE_GROUPS), else GPU 0.
  if (names_cuda(spec)) return open_cuda(cuda_ordinal_from_spec(spec));
  if (is_simulated_device(spec)) return open_simulated(spec);
  const int ordinal = spec == "auto" ? auto_device_ordinal() : -1;
  return ordinal >= 0 ? open_cuda(ordinal) : open_cpu();
}

DeviceDescription describe(const Device& device) {
  return {.name = device.name(),
          .child_spec = device.name(),
          .hardware_key = device.hardware_key(),
          .environment = device.environment(),
          .interpreted = device.interpreted(),
          .simulated = device.simulated(),
          .default_timeout_s = device.default_timeout_s(),
          .clock_name = device.clock_name(),
          .memory_bytes = device.memory_bytes()};
}

DeviceDescription describe_device(const std::string& spec) {
  check_spec(spec);
  if (names_cuda(spec)) return describe_cuda(cuda_ordinal_from_spec(spec));
  if (is_simulated_device(spec)) return describe_simulated(spec);
  const int ordinal = spec == "auto" ? auto_device_ordinal() : -1;
  // The cpu device holds nothing a child needs: described as opened.
  return ordinal >= 0 ? describe_cuda(ordinal) : describe(*open_cpu());
}

}  // namespace kg
