#pragma once
// The workload the l2_078 candidate tests check, as its suite file ships.
#include <string>

#include "kernelgate/detail/suite.hpp"

namespace kg::l2_078_test {

inline constexpr const char* kWorkload = "l2_078_conv_transpose3d_max_max_sum";

inline Suite workload_suite() {
  return load_suite(std::string(KERNELGATE_SOURCE_ROOT) + "/suites/kernelbench/" + kWorkload + ".json");
}

}  // namespace kg::l2_078_test
