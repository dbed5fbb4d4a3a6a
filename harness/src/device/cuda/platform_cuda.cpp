// The real GPU's side of platform.hpp (gpu build).
#include <cudnn.h>

#include "kernelgate/detail/gpu_identity.hpp"
#include "platform.hpp"

namespace kg::cuda_detail {

std::string device_name(int ordinal) { return "cuda:" + std::to_string(ordinal); }
std::string hardware_key(const std::string& gpu_name) { return hardware_key_from_gpu_name(gpu_name); }
std::size_t cudnn_runtime_version() { return cudnnGetVersion(); }
std::size_t cudnn_header_version() { return CUDNN_VERSION; }
bool simulated_platform() { return false; }

}  // namespace kg::cuda_detail
