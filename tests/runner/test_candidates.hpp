#pragma once
// Test-only candidates for the runner's tests (test_candidates.cpp).
#include <string>

#include "kernelgate/detail/suite.hpp"

namespace kg::testing {

// The workload the test candidates are registered for, and a tiny shape of it.
inline const std::string kTestWorkload = "l1_086_conv_depthwise_separable_2d";
inline Axes tiny_axes() {
  return {{"batch_size", 1}, {"in_channels", 3}, {"out_channels", 5}, {"height", 6}, {"width", 7}};
}

}  // namespace kg::testing
