// The float64 reference of a workload: its forward pass evaluated on boxes.
// Going backwards from the box of the output asked for, each op names the
// box of each operand it reads (a tensor read by several ops gets the
// smallest box holding them all); going forwards, each op computes its box.
#include <functional>
#include <string>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/reference.hpp"

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

// The float64 values of one box of an input or parameter, by name.
using RegionSource = std::function<ops::Region(const std::string& tensor, const ops::Box& box)>;

// The flat index in a tensor of `shape` of each element of `box`, in the
// box's row-major order.
template <typename Visit>
void for_each_in_box(const std::vector<std::int64_t>& shape, const ops::Box& box, Visit visit) {
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
      stride *= shape[d];
    }
    visit(flat, at);
  }
}

ops::Region evaluate_box(const Suite& suite, const Axes& axes, const RegionSource& source, const ops::Box& wanted) {
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
  for (const auto& spec : suite.tensors)
    if (spec.role != TensorRole::output && boxes.count(spec.name))
      regions.emplace(spec.name, source(spec.name, boxes.at(spec.name)));
  for (std::size_t i = 0; i < steps.size(); ++i) {
    std::vector<const ops::Region*> operands;
    for (const auto& name : steps[i].inputs) operands.push_back(&regions.at(name));
    ops::Region out(boxes.at(steps[i].output));
    ops::evaluate(forward.ops[i], operand_shapes(i), operands, out);
    regions.insert_or_assign(steps[i].output, std::move(out));
  }
  return std::move(regions.at(suite.output().name));
}

// Boxes of generated tensors, widened to float64.
RegionSource regions_of(const Suite& suite, const Axes& axes, const Tensors& inputs) {
  check_inputs(suite, axes, inputs);
  return [&inputs](const std::string& name, const ops::Box& box) {
    const HostTensor<float>& tensor = inputs.at(name);
    ops::Region region(box);
    for_each_in_box(tensor.shape, box, [&](std::int64_t flat, std::int64_t at) {
      region.data[static_cast<std::size_t>(flat)] = static_cast<double>(tensor.data[static_cast<std::size_t>(at)]);
    });
    return region;
  };
}

// Boxes of the tensors input set `seed` would hold, straight from the
// generator: value i depends only on the tensor's key and i (docs/inputs.md).
RegionSource regions_of_seed(const Suite& suite, const Axes& axes, std::uint64_t seed) {
  return [&suite, &axes, seed](const std::string& name, const ops::Box& box) {
    const TensorSpec& spec = suite.tensor(name);
    const Distribution values = distribution(suite, spec, axes);
    const std::uint64_t key = input_key(suite.id, axes, seed, name);
    ops::Region region(box);
    for_each_in_box(suite.shape(name, axes), box, [&](std::int64_t flat, std::int64_t at) {
      const float value = values.at(key, static_cast<std::uint64_t>(at));
      region.data[static_cast<std::size_t>(flat)] = static_cast<double>(value);
    });
    return region;
  };
}

ops::Box element_box(const Suite& suite, const Axes& axes, std::int64_t flat_index) {
  const std::vector<std::int64_t> shape = suite.shape(suite.output().name, axes);
  const std::int64_t count = suite.numel(suite.output().name, axes);
  if (flat_index < 0 || flat_index >= count)
    throw Error("workload " + suite.id + ": output index " + std::to_string(flat_index) + " is outside [0, " +
                std::to_string(count) + ")");
  return ops::Box::element(shape, flat_index);
}

}  // namespace

HostTensor<double> reference_output(const Suite& suite, const Axes& axes, const Tensors& inputs) {
  HostTensor<double> output;
  output.shape = suite.shape(suite.output().name, axes);
  output.data = evaluate_box(suite, axes, regions_of(suite, axes, inputs), ops::Box::whole(output.shape)).data;
  return output;
}

double reference_point(const Suite& suite, const Axes& axes, const Tensors& inputs,
                       std::int64_t flat_index) {
  return evaluate_box(suite, axes, regions_of(suite, axes, inputs), element_box(suite, axes, flat_index)).data.at(0);
}

double reference_point_of_seed(const Suite& suite, const Axes& axes, std::uint64_t seed, std::int64_t flat_index) {
  return evaluate_box(suite, axes, regions_of_seed(suite, axes, seed), element_box(suite, axes, flat_index))
      .data.at(0);
}

}  // namespace kg
