#pragma once
// The three hand-written float64 references that the op-list forward pass
// replaced, kept for one test (hand_written_test.cpp) that shows the two agree
// to 1e-12 on every golden case.
#include <functional>
#include <string>

#include "kernelgate/reference.hpp"

namespace kg {

struct WorkloadReference {
  std::string name;
  std::function<void(const Axes&, const Tensors&, HostTensor<double>&)> full;
  std::function<double(const Axes&, const Tensors&, std::int64_t flat_index)> point;
};

WorkloadReference make_conv_transposed_2d_reference(const std::string& name);
WorkloadReference make_conv_depthwise_separable_2d_reference(const std::string& name);
WorkloadReference make_conv_transpose3d_max_max_sum_reference(const std::string& name);

}  // namespace kg
