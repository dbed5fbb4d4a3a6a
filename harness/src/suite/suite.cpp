// Suite: axes resolution and legality, tensor shapes, tolerances and costs.
#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/expression.hpp"
#include "kernelgate/detail/suite.hpp"
#include "suite_checks.hpp"

namespace kg {

std::string_view to_string(TensorRole role) { return kTensorRoleNames.name(role); }

namespace {

std::string trim(const std::string& text) {
  auto begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  auto end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

std::string axis_names(const Suite& suite) {
  std::string names;
  for (const auto& axis : suite.axes) names += (names.empty() ? "" : ", ") + axis.name;
  return names;
}

}  // namespace

Axes parse_axes_list(const std::string& text) {
  Axes axes;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    item = trim(item);
    if (item.empty()) continue;
    auto equals = item.find('=');
    if (equals == std::string::npos)
      throw Error("bad axes list '" + text + "': expected name=value, got '" + item + "'");
    std::string name = trim(item.substr(0, equals));
    std::string value_text = trim(item.substr(equals + 1));
    if (name.empty())
      throw Error("bad axes list '" + text + "': expected name=value, got '" + item + "'");
    std::int64_t value = 0;
    auto [end, status] =
        std::from_chars(value_text.data(), value_text.data() + value_text.size(), value);
    if (status != std::errc() || end != value_text.data() + value_text.size() || value_text.empty())
      throw Error("bad axes list '" + text + "': value of '" + name + "' is not an integer: '" +
                  value_text + "'");
    if (!axes.emplace(name, value).second)
      throw Error("bad axes list '" + text + "': axis '" + name + "' is given twice");
  }
  return axes;
}

std::string format_axes(const Axes& axes) {
  std::string text;
  for (const auto& [name, value] : axes)
    text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return text;
}

const std::map<std::string, std::string>& renamed_axes() {
  static const std::map<std::string, std::string> renamed{{"batch", "batch_size"}};
  return renamed;
}

namespace {

bool has_axis(const Suite& suite, const std::string& name) {
  return std::any_of(suite.axes.begin(), suite.axes.end(), [&](const AxisSpec& axis) { return axis.name == name; });
}

// The axis an override named `name` sets in `suite` by renamed_axes: the new
// name, when `name` is an old one and the suite has the new name but not the old.
std::optional<std::string> renamed_to(const Suite& suite, const std::string& name) {
  const auto renamed = renamed_axes().find(name);
  if (renamed == renamed_axes().end() || has_axis(suite, name) || !has_axis(suite, renamed->second))
    return std::nullopt;
  return renamed->second;
}

}  // namespace

std::vector<std::string> renamed_axis_notes(const Suite& suite, const Axes& overrides) {
  std::vector<std::string> notes;
  for (const auto& [old_name, unused] : overrides)
    if (auto new_name = renamed_to(suite, old_name))
      notes.push_back("note: axis '" + old_name + "' of " + suite.id + " is now '" + *new_name +
                      "'; the old name is accepted until 0.2.0");
  return notes;
}

Axes Suite::default_axes() const {
  Axes axes;
  for (const auto& axis : this->axes) axes[axis.name] = axis.default_value;
  return axes;
}

std::optional<std::string> find_rule_violation(const Suite& suite, const Axes& axes) {
  for (const auto& rule : suite.rules) {
    Expression check = Expression::parse(rule.check);
    if (check.evaluate(axes) != 0) continue;
    std::string values;
    for (const auto& name : check.names())
      values += (values.empty() ? "" : ", ") + name + "=" + std::to_string(axes.at(name));
    return rule.message + " (requires " + rule.check + "; " + values + ")";
  }
  return std::nullopt;
}

std::optional<std::string> find_draw_problem(const Axes& axes, const TensorSpec& tensor) {
  if (!tensor.init) return std::nullopt;
  const auto problem_of = [&](const TensorInit& init) {
    if (init.distribution != TensorInit::Distribution::randint) return std::string();
    return randint_bounds_problem(evaluate_expression(init.randint_low, axes),
                                  evaluate_expression(init.randint_high, axes));
  };
  if (std::string problem = problem_of(*tensor.init); !problem.empty()) return problem;
  for (const NamedDraw& draw : tensor.init->draws)
    if (std::string problem = problem_of(draw.values); !problem.empty()) return "draw '" + draw.name + "': " + problem;
  return std::nullopt;
}

std::optional<ShapeProblem> find_shape_problem(const Suite& suite, const Axes& axes) {
  for (std::size_t t = 0; t < suite.tensors.size(); ++t) {
    const auto& tensor = suite.tensors[t];
    for (std::size_t d = 0; d < tensor.shape.size(); ++d) {
      std::int64_t extent = evaluate_expression(tensor.shape[d], axes);
      if (extent <= 0) {
        return ShapeProblem{t, d, extent,
                            "tensor '" + tensor.name + "' dimension " + std::to_string(d) + " (" +
                                tensor.shape[d] + ") is " + std::to_string(extent) +
                                ", must be positive"};
      }
    }
  }
  return std::nullopt;
}

Axes Suite::resolve_axes(const std::string& preset, const Axes& overrides) const {
  Axes axes = default_axes();
  if (!preset.empty() && preset != "default") {
    auto found = presets.find(preset);
    if (found == presets.end()) {
      std::string names = "default";
      for (const auto& [name, unused] : presets) names += ", " + name;
      throw Error("workload " + id + " has no axes preset '" + preset + "' (presets: " + names + ")");
    }
    for (const auto& [name, value] : found->second) axes[name] = value;
  }
  for (const auto& [given_name, value] : overrides) {
    std::string name = given_name;
    if (auto renamed = renamed_to(*this, given_name)) {
      if (overrides.count(*renamed))
        throw Error("axis '" + *renamed + "' is given twice (also as '" + given_name + "', its old name)");
      name = *renamed;
    }
    if (!axes.count(name))
      throw Error("unknown axis '" + name + "' for workload " + id + " (axes: " + axis_names(*this) +
                  ")");
    axes[name] = value;
  }
  for (const auto& axis : this->axes) {
    std::int64_t value = axes.at(axis.name);
    if (value < axis.min || value > axis.max)
      throw Error("axis " + axis.name + "=" + std::to_string(value) + " is out of range [" +
                  std::to_string(axis.min) + ", " + std::to_string(axis.max) + "] for workload " +
                  id);
  }
  if (auto violation = find_rule_violation(*this, axes))
    throw Error("illegal axes for workload " + id + ": " + *violation);
  if (auto problem = find_shape_problem(*this, axes))
    throw Error("illegal axes for workload " + id + ": " + problem->message);
  for (const TensorSpec& tensor : tensors) {
    if (auto problem = find_draw_problem(axes, tensor))
      throw Error("illegal axes for workload " + id + ": the values of '" + tensor.name + "': " + *problem);
    if (auto problem = find_init_problem(*this, axes, tensor))
      throw Error("illegal axes for workload " + id + ": the ops building '" + tensor.name + "': " + problem->message);
  }
  if (auto problem = find_forward_problem(*this, axes))
    throw Error("illegal axes for workload " + id + ": forward[" + std::to_string(problem->step) + "]: " +
                problem->message);
  return axes;
}

const TensorSpec& Suite::tensor(const std::string& name) const {
  for (const auto& spec : tensors)
    if (spec.name == name) return spec;
  std::string names;
  for (const auto& spec : tensors) names += (names.empty() ? "" : ", ") + spec.name;
  throw Error("workload " + id + " has no tensor '" + name + "' (tensors: " + names + ")");
}

std::vector<const TensorSpec*> Suite::tensors_with_role(TensorRole role) const {
  std::vector<const TensorSpec*> found;
  for (const auto& spec : tensors)
    if (spec.role == role) found.push_back(&spec);
  return found;
}

const TensorSpec& Suite::output() const {
  for (const auto& spec : tensors)
    if (spec.role == TensorRole::output) return spec;
  throw Error("workload " + id + " declares no output tensor");
}

std::vector<std::int64_t> Suite::shape(const std::string& name, const Axes& axes) const {
  const TensorSpec& spec = tensor(name);
  if (spec.shape.empty()) return resolve_forward(axes).shapes.at(name);
  std::vector<std::int64_t> extents;
  for (const auto& expression : spec.shape)
    extents.push_back(evaluate_expression(expression, axes));
  return extents;
}

std::int64_t Suite::numel(const std::string& name, const Axes& axes) const {
  std::int64_t n = 1;
  for (std::int64_t extent : shape(name, axes)) n *= extent;
  return n;
}

const Tolerance& Suite::tolerance(const std::string& precision) const {
  auto found = tolerances.find(precision);
  if (found != tolerances.end()) return found->second;
  std::string names;
  for (const auto& [name, unused] : tolerances) names += (names.empty() ? "" : ", ") + name;
  throw Error("workload " + id + " has no tolerance for precision '" + precision +
              "' (defined: " + names + ")");
}

double Suite::flops(const Axes& axes) const {
  if (!flops_expression.empty()) return static_cast<double>(evaluate_expression(flops_expression, axes));
  const ResolvedForward forward = resolve_forward(axes);
  double total = 0;
  for (std::size_t i = 0; i < forward.ops.size(); ++i) {
    std::vector<ops::Shape> operands;
    for (const auto& name : this->forward[i].inputs) operands.push_back(forward.shapes.at(name));
    total += ops::flops(forward.ops[i], operands);
  }
  return total;
}

double Suite::bytes(const Axes& axes) const {
  double total = 0;
  for (const auto& spec : tensors)
    total += static_cast<double>(numel(spec.name, axes)) * static_cast<double>(element_bytes(spec.dtype));
  return total;
}

}  // namespace kg
