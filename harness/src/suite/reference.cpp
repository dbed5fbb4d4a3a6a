// The float64 reference of a workload: its forward pass evaluated on boxes.
// Going backwards from the box of the output asked for, each op names the
// box of each operand it reads (a tensor read by several ops gets the
// smallest box holding them all); going forwards, each op computes its box.
#include <cmath>
#include <functional>
#include <set>
#include <string>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/reference.hpp"
#include "suite_checks.hpp"

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

// Box `wanted` of tensor `output` of a list of ops (`resolved`: their ops
// and the shape of every tensor), reading the tensors the ops start from
// through `source`.
ops::Region evaluate_steps(const std::vector<ForwardStep>& steps, const ResolvedForward& resolved,
                           const std::string& output, const RegionSource& source, const ops::Box& wanted) {
  auto operand_shapes = [&](std::size_t i) {
    std::vector<ops::Shape> shapes;
    for (const auto& name : steps[i].inputs) shapes.push_back(resolved.shapes.at(name));
    return shapes;
  };
  // Backwards: the box each tensor must hold.
  std::map<std::string, ops::Box> boxes{{output, wanted}};
  for (std::size_t i = steps.size(); i-- > 0;) {
    const std::vector<ops::Shape> shapes = operand_shapes(i);
    const std::vector<ops::Box> needed = ops::input_boxes(resolved.ops[i], shapes, boxes.at(steps[i].output));
    for (std::size_t j = 0; j < needed.size(); ++j) {
      auto [found, inserted] = boxes.emplace(steps[i].inputs[j], needed[j]);
      if (!inserted) found->second = found->second.merged(needed[j]);
    }
  }
  // Forwards: each op computes its box from its operands' boxes.
  std::set<std::string> made;
  for (const auto& step : steps) made.insert(step.output);
  std::map<std::string, ops::Region> regions;
  for (const auto& [name, box] : boxes)
    if (!made.count(name)) regions.emplace(name, source(name, box));
  for (std::size_t i = 0; i < steps.size(); ++i) {
    std::vector<const ops::Region*> operands;
    for (const auto& name : steps[i].inputs) operands.push_back(&regions.at(name));
    ops::Region out(boxes.at(steps[i].output));
    ops::evaluate(resolved.ops[i], operand_shapes(i), operands, out);
    regions.insert_or_assign(steps[i].output, std::move(out));
  }
  return std::move(regions.at(output));
}

ops::Region evaluate_box(const Suite& suite, const Axes& axes, const RegionSource& source, const ops::Box& wanted) {
  return evaluate_steps(suite.forward, suite.resolve_forward(axes), suite.output().name, source, wanted);
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
    return generated_region(suite, suite.tensor(name), axes, seed, box);
  };
}

// Box `box` of one draw: value i of the draw of `shape` with this key.
ops::Region drawn_region(const Distribution& values, std::uint64_t key, const ops::Shape& shape, const ops::Box& box) {
  ops::Region region(box);
  for_each_in_box(shape, box, [&](std::int64_t flat, std::int64_t at) {
    region.data[static_cast<std::size_t>(flat)] = static_cast<double>(values.at(key, static_cast<std::uint64_t>(at)));
  });
  return region;
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

ops::Region generated_region(const Suite& suite, const TensorSpec& tensor, const Axes& axes, std::uint64_t seed,
                             const ops::Box& box) {
  const Distribution values = distribution(suite, tensor, axes);
  const std::uint64_t key = input_key(suite.id, axes, seed, tensor.name);
  if (!tensor.init || tensor.init->then.empty()) return drawn_region(values, key, suite.shape(tensor.name, axes), box);
  // An input built by ops: the ops on the boxes of its draws (each draw of
  // its own key), the result rounded once to float32, as the tensor holds it.
  ResolvedForward built;
  if (auto problem = find_init_problem(suite, axes, tensor, &built))
    throw Error("workload " + suite.id + ": the ops building '" + tensor.name + "': " + problem->message);
  const RegionSource draws = [&](const std::string& name, const ops::Box& draw_box) {
    if (name == kDrawn) return drawn_region(values, key, built.shapes.at(name), draw_box);
    for (const NamedDraw& draw : tensor.init->draws)
      if (draw.name == name)
        return drawn_region(distribution(suite, tensor.name + "/" + draw.name, draw.values, axes),
                            input_key(suite.id, axes, seed, tensor.name + "/" + draw.name), built.shapes.at(name),
                            draw_box);
    throw Error("workload " + suite.id + ": '" + name + "' is no draw of '" + tensor.name + "'");
  };
  ops::Region region = evaluate_steps(tensor.init->then, built, tensor.name, draws, box);
  for (double& value : region.data) {
    value = static_cast<double>(static_cast<float>(value));
    // A NaN or an overflow (the log of a signed draw, say) is the suite's
    // mistake: every candidate would fail on inputs no problem has.
    if (!std::isfinite(value))
      throw Error("workload " + suite.id + ": the ops building '" + tensor.name +
                  "' give a value that is not a finite float32 (docs/inputs.md)");
  }
  return region;
}

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
