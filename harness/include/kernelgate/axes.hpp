#pragma once
// The axes of a workload, on their own: a candidate needs them and nothing
// else of the suite, so candidate.hpp (compiled into every kernel, by nvcc
// too) stays free of the suite's JSON headers.
#include <cstdint>
#include <map>
#include <string>

namespace kg {

// Axis name -> value, e.g. {"batch_size": 8, "in_channels": 32, ...}.
using Axes = std::map<std::string, std::int64_t>;

}  // namespace kg
