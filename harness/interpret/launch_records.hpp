#pragma once
#include "kernelgate/interpret/launch.hpp"

namespace kg::interp {
// Appends one record; thread-safe.
void record_operation(const LaunchRecord& record);
}  // namespace kg::interp
