#pragma once
// The cpu device: host memory, candidates in interpret mode (cpu build only).
#include <memory>

#include "kernelgate/detail/device.hpp"

namespace kg::detail {

// Throws kg::Error in a build without interpret mode.
std::unique_ptr<Device> make_cpu_device();

}  // namespace kg::detail
