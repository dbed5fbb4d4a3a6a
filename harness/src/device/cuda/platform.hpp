#pragma once
// What differs between the two platforms the cuda device's code runs on, and
// nothing else: a real GPU (the gpu build: platform_cuda.cpp, and the
// compiler's version in device_memory.cu) and the simulated GPU (the cpu
// build: ../sim/platform_sim.cpp, docs/simulated-gpu.md). Everything else of
// harness/src/device/cuda is the same code on both.
#include <cstddef>
#include <string>

namespace kg::cuda_detail {

// The device's name in reports and specs: "cuda:0"; "sim:h100-sxm".
std::string device_name(int ordinal);
// The hardware key its baselines are filed under, from the name the runtime
// reports: hardware_key_from_gpu_name's; "sim-<key>" on the simulated GPU,
// whose runs are never measurements.
std::string hardware_key(const std::string& gpu_name);
// cuDNN's version as loaded and as built against (cudnnGetVersion,
// CUDNN_VERSION); 0 where there is no cuDNN (the simulated GPU).
std::size_t cudnn_runtime_version();
std::size_t cudnn_header_version();
// "nvcc 13.0.88": the compiler that built the device code.
std::string cuda_compiler_version();
// True on the simulated GPU (Device::simulated).
bool simulated_platform();

}  // namespace kg::cuda_detail
