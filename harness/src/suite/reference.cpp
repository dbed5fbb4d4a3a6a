// Dispatch from a suite to its registered float64 reference.
#include <string>

#include "kernelgate/error.hpp"
#include "kernelgate/reference.hpp"

namespace kg {

const WorkloadReference& find_reference(const std::string& name) {
  for (const auto& reference : reference_registry())
    if (reference.name == name) return reference;
  std::string known;
  for (const auto& reference : reference_registry())
    known += (known.empty() ? "" : ", ") + reference.name;
  throw Error("no float64 reference is registered for '" + name + "' (registered: " + known + ")");
}

namespace {

// The tensors a reference reads must be present with the suite's shapes: a
// mismatch is a harness bug that would otherwise read out of bounds.
void check_inputs(const Suite& suite, const Axes& axes, const Tensors& inputs) {
  for (const auto& spec : suite.tensors) {
    if (spec.role == TensorRole::output) continue;
    auto found = inputs.find(spec.name);
    if (found == inputs.end())
      throw Error("workload " + suite.id + ": reference needs tensor '" + spec.name + "'");
    std::vector<std::int64_t> want = suite.shape(spec.name, axes);
    if (found->second.shape != want ||
        static_cast<std::int64_t>(found->second.data.size()) != found->second.numel())
      throw Error("workload " + suite.id + ": tensor '" + spec.name +
                  "' does not have the shape the axes give");
  }
}

}  // namespace

HostTensor<double> reference_output(const Suite& suite, const Axes& axes, const Tensors& inputs) {
  const WorkloadReference& reference = find_reference(suite.reference);
  check_inputs(suite, axes, inputs);
  HostTensor<double> output;
  output.shape = suite.shape(suite.output().name, axes);
  output.data.assign(static_cast<std::size_t>(output.numel()), 0.0);
  reference.full(axes, inputs, output);
  return output;
}

double reference_point(const Suite& suite, const Axes& axes, const Tensors& inputs,
                       std::int64_t flat_index) {
  const WorkloadReference& reference = find_reference(suite.reference);
  check_inputs(suite, axes, inputs);
  std::int64_t count = suite.numel(suite.output().name, axes);
  if (flat_index < 0 || flat_index >= count)
    throw Error("workload " + suite.id + ": output index " + std::to_string(flat_index) +
                " is outside [0, " + std::to_string(count) + ")");
  return reference.point(axes, inputs, flat_index);
}

}  // namespace kg
