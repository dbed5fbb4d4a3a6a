// The simulated GPU's side of ../cuda/platform.hpp (cpu build): no cuDNN, no
// device compiler, and a hardware key of its own, so that nothing of its
// runs is ever filed among a real GPU's baselines.
#include "../cuda/platform.hpp"

#include "kernelgate/interpret/simulated_gpu.hpp"

namespace kg::cuda_detail {

std::string device_name(int) { return "sim:" + interp::sim::card().key; }
std::string hardware_key(const std::string&) { return "sim-" + interp::sim::card().key; }
std::size_t cudnn_runtime_version() { return 0; }
std::size_t cudnn_header_version() { return 0; }
std::string cuda_compiler_version() { return "none (the simulated GPU runs kernels in interpret mode)"; }
bool simulated_platform() { return true; }

}  // namespace kg::cuda_detail
