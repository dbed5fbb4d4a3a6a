#pragma once
// The float64 reference of each workload, one file each (reference_<id>.cpp).
#include <string>

#include "kernelgate/reference.hpp"

namespace kg {

WorkloadReference make_conv_transposed_2d_reference(const std::string& name);
WorkloadReference make_conv_depthwise_separable_2d_reference(const std::string& name);
WorkloadReference make_conv_transpose3d_max_max_sum_reference(const std::string& name);

}  // namespace kg
