// The float64 references linked into kernelgate, by the name a suite's
// "reference" field (default: its id) gives. Adding a workload: its suite
// file, a reference_<id>.cpp defining a make_..._reference(), and one line here.
// (An explicit list instead of static registrars: kg_suite is a static
// library, and the linker drops object files that nothing references.)
#include "kernelgate/reference.hpp"
#include "references.hpp"

namespace kg {

const std::vector<WorkloadReference>& reference_registry() {
  static const std::vector<WorkloadReference> registry = {
      make_conv_transposed_2d_reference("l1_071_conv_transposed_2d"),
      make_conv_depthwise_separable_2d_reference("l1_086_conv_depthwise_separable_2d"),
      make_conv_transpose3d_max_max_sum_reference("l2_078_conv_transpose3d_max_max_sum"),
  };
  return registry;
}

}  // namespace kg
