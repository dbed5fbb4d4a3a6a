// The float64 reference of a workload: its forward pass evaluated on boxes.
// Going backwards from the box of the output asked for, each op names the
// box of each operand it reads (a tensor read by several ops gets the
// smallest box holding them all); going forwards, each op computes its box.
#include <string>

#include "kernelgate/error.hpp"
#include "kernelgate/reference.hpp"

namespace kg {

namespace {

// The tensors the forward pass reads must be present with the suite's
// shapes: a mismatch is a harness bug that would otherwise read out of bounds.
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

// The values of one box of a generated tensor, widened to float64.
ops::Region region_of(const HostTensor<float>& tensor, const ops::Box& box) {
  ops::Region region(box);
  const std::size_t rank = box.lo.size();
  std::vector<std::int64_t> index(rank);
  for (std::int64_t flat = 0; flat < box.numel(); ++flat) {
    std::int64_t rest = flat, at = 0, stride = 1;
    for (std::size_t d = rank; d-- > 0;) {
      index[d] = box.lo[d] + rest % (box.hi[d] - box.lo[d]);
      rest /= box.hi[d] - box.lo[d];
    }
    for (std::size_t d = rank; d-- > 0;) {
      at += index[d] * stride;
      stride *= tensor.shape[d];
    }
    region.data[static_cast<std::size_t>(flat)] = static_cast<double>(tensor.data[static_cast<std::size_t>(at)]);
  }
  return region;
}

ops::Region evaluate_box(const Suite& suite, const Axes& axes, const Tensors& inputs, const ops::Box& wanted) {
  check_inputs(suite, axes, inputs);
  const ResolvedForward forward = suite.resolve_forward(axes);
  const auto& steps = suite.forward;
  auto operand_shapes = [&](std::size_t i) {
    std::vector<ops::Shape> shapes;
    for (const auto& name : steps[i].inputs) shapes.push_back(forward.shapes.at(name));
    return shapes;
  };
  // Backwards: the box each tensor must hold.
  std::map<std::string, ops::Box> boxes{{suite.output().name, wanted}};
  for (std::size_t i = steps.size(); i-- > 0;) {
    const std::vector<ops::Shape> shapes = operand_shapes(i);
    const std::vector<ops::Box> needed = ops::input_boxes(forward.ops[i], shapes, boxes.at(steps[i].output));
    for (std::size_t j = 0; j < needed.size(); ++j) {
      auto [found, inserted] = boxes.emplace(steps[i].inputs[j], needed[j]);
      if (!inserted) found->second = found->second.merged(needed[j]);
    }
  }
  // Forwards: each op computes its box from its operands' boxes.
  std::map<std::string, ops::Region> regions;
  for (const auto& [name, tensor] : inputs)
    if (boxes.count(name)) regions.emplace(name, region_of(tensor, boxes.at(name)));
  for (std::size_t i = 0; i < steps.size(); ++i) {
    std::vector<const ops::Region*> operands;
    for (const auto& name : steps[i].inputs) operands.push_back(&regions.at(name));
    ops::Region out(boxes.at(steps[i].output));
    ops::evaluate(forward.ops[i], operand_shapes(i), operands, out);
    regions.insert_or_assign(steps[i].output, std::move(out));
  }
  return std::move(regions.at(suite.output().name));
}

}  // namespace

HostTensor<double> reference_output(const Suite& suite, const Axes& axes, const Tensors& inputs) {
  HostTensor<double> output;
  output.shape = suite.shape(suite.output().name, axes);
  output.data = evaluate_box(suite, axes, inputs, ops::Box::whole(output.shape)).data;
  return output;
}

double reference_point(const Suite& suite, const Axes& axes, const Tensors& inputs,
                       std::int64_t flat_index) {
  const std::vector<std::int64_t> shape = suite.shape(suite.output().name, axes);
  std::int64_t count = suite.numel(suite.output().name, axes);
  if (flat_index < 0 || flat_index >= count)
    throw Error("workload " + suite.id + ": output index " + std::to_string(flat_index) +
                " is outside [0, " + std::to_string(count) + ")");
  return evaluate_box(suite, axes, inputs, ops::Box::element(shape, flat_index)).data.at(0);
}

}  // namespace kg
