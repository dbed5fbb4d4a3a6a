// The forward pass of a suite (its "forward" list): reading and validating
// it, resolving it at given axes, and checking that its shapes fit.
#include <cmath>
#include <map>
#include <set>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/expression.hpp"
#include "kernelgate/detail/suite.hpp"
#include "suite_checks.hpp"

namespace kg {

namespace {

using ops::OpKind;

// The attributes each kind of op takes besides "op", "inputs" and "output":
// its geometry, dims, flags, and the scalars of ops::scalar_attributes.
std::set<std::string> attributes_of(OpKind kind) {
  std::set<std::string> names;
  for (const ops::ScalarAttribute& scalar : ops::scalar_attributes(kind)) names.insert(std::string(scalar.name));
  switch (kind) {
    case OpKind::conv: return {"stride", "padding", "dilation", "groups"};
    case OpKind::conv_transpose: return {"stride", "padding", "dilation", "output_padding", "groups"};
    case OpKind::max_pool: return {"kernel", "stride", "padding", "dilation"};
    case OpKind::avg_pool: return {"kernel", "stride", "padding", "count_include_pad"};
    case OpKind::sum:
    case OpKind::mean:
    case OpKind::max:
    case OpKind::min:
    case OpKind::prod:
    case OpKind::logsumexp: return {"dims", "keepdim"};
    case OpKind::argmax:
    case OpKind::argmin: return {"dim", "keepdim"};
    case OpKind::softmax:
    case OpKind::log_softmax: return {"dim"};
    case OpKind::cumsum:
    case OpKind::cumprod: return {"dim", "reverse", "exclusive"};
    case OpKind::permute: return {"dims"};
    case OpKind::reshape: return {"shape"};
    case OpKind::concat:
    case OpKind::gather: return {"dim"};
    case OpKind::flip: return {"dims"};
    case OpKind::narrow: return {"dim", "start", "length"};
    case OpKind::triu:
    case OpKind::tril: return {"diagonal"};
    case OpKind::layer_norm: names.insert("normalized_shape"); return names;
    case OpKind::scale: names.insert("divisor"); return names;
    case OpKind::group_norm: names.insert("num_groups"); return names;
    default: return names;
  }
}

// The attributes without a default: required wherever a kind takes them.
const std::set<std::string> kNoDefault{"kernel", "dims", "dim", "normalized_shape", "num_groups", "shape", "start",
                                       "length"};

// The attributes a kind cannot do without: those, and its scalars without a default.
std::set<std::string> required_attributes(OpKind kind) {
  std::set<std::string> names;
  for (const ops::ScalarAttribute& scalar : ops::scalar_attributes(kind))
    if (std::isnan(scalar.default_value)) names.insert(std::string(scalar.name));
  for (const std::string& name : attributes_of(kind))
    if (kNoDefault.count(name)) names.insert(name);
  return names;
}

const std::set<std::string> kIntegerAttributes{
    "kernel", "stride", "padding", "dilation", "output_padding", "groups", "normalized_shape", "num_groups",
    "shape",  "start",  "length",  "diagonal", "divisor"};
// The integer attributes that are one value, never one per dimension.
const std::set<std::string> kSingleIntegers{"groups", "num_groups", "start", "length", "diagonal", "divisor"};

// The op's kind, and the keys it must and may have.
OpKind read_op_kind(const JsonReader& op_field) {
  op_field.expect_object();
  if (!op_field.has("op")) op_field.fail_at("op", "missing required field");
  OpKind kind{};
  try {
    kind = ops::op_kind_from_string(op_field.at("op").as_string());
  } catch (const Error& e) {
    op_field.at("op").fail(e.what());
  }
  std::set<std::string> optional = attributes_of(kind);
  std::set<std::string> required = required_attributes(kind);
  required.insert({"op", "inputs", "output"});
  for (const auto& key : required) optional.erase(key);
  op_field.expect_keys(required, optional);
  if (kind == OpKind::clamp && !op_field.has("low") && !op_field.has("high"))
    op_field.fail("clamp needs low, high or both");
  return kind;
}

// The tensors an op reads and the one it makes, against what exists so far
// (`available`) and what nothing has read yet (`unread`).
struct TensorFlow {
  std::set<std::string> available, unread;
  std::string output;  // the last op makes it, no other
  std::string leaves;  // what the tensors available at the start are, for messages
};

void read_operands(const JsonReader& op_field, ForwardStep& step, TensorFlow& flow, bool last) {
  const JsonReader inputs_field = op_field.at("inputs");
  inputs_field.expect_array();
  const auto [fewest, most] = ops::operand_count(step.kind);
  if (inputs_field.size() < fewest || inputs_field.size() > most)
    inputs_field.fail(std::string(ops::to_string(step.kind)) + " takes " + std::to_string(fewest) +
                      (most > fewest ? " or " + std::to_string(most) : "") + " operands, got " +
                      std::to_string(inputs_field.size()));
  for (std::size_t j = 0; j < inputs_field.size(); ++j) {
    const std::string name = inputs_field.at(j).as_nonempty_string();
    if (!flow.available.count(name))
      inputs_field.at(j).fail("'" + name + "' is neither " + flow.leaves + " nor the output of an earlier op");
    flow.unread.erase(name);
    step.inputs.push_back(name);
  }
  step.output = op_field.at("output").as_nonempty_string();
  if (flow.available.count(step.output))
    op_field.at("output").fail("'" + step.output + "' is already a tensor: every op makes a new one");
  if (last != (step.output == flow.output))
    op_field.at("output").fail(last ? "the last op must produce '" + flow.output + "'"
                                    : "only the last op produces '" + flow.output + "'");
  flow.available.insert(step.output);
  if (!last) flow.unread.insert(step.output);  // an intermediate nothing reads is a mistake, not dead code to skip
}

void read_attributes(const JsonReader& op_field, ForwardStep& step, const ExpressionReader& read_expression) {
  for (const auto& [key, unused] : op_field.json().items()) {
    const JsonReader value = op_field.at(key);
    if (kIntegerAttributes.count(key)) {
      if (value.json().is_array()) {
        if (kSingleIntegers.count(key)) value.fail(key + " is one value");
        const bool extents = key == "normalized_shape" || key == "shape";
        if (value.size() == 0)
          value.fail(extents ? "give one extent or more" : "give one value, or one per spatial dimension");
        for (std::size_t d = 0; d < value.size(); ++d) step.integers[key].push_back(read_expression(value.at(d)));
      } else {
        step.integers[key].push_back(read_expression(value));
      }
    } else if (key == "dims") {
      value.expect_array();
      if (value.size() == 0) value.fail("name at least one dimension");
      for (std::size_t d = 0; d < value.size(); ++d) step.constants.dims.push_back(value.at(d).as_integer());
    } else if (key == "keepdim") {
      step.constants.keepdim = value.as_bool();
    } else if (key == "count_include_pad") {
      step.constants.count_include_pad = value.as_bool();
    } else if (key == "reverse") {
      step.constants.reverse = value.as_bool();
    } else if (key == "exclusive") {
      step.constants.exclusive = value.as_bool();
    } else if (key == "dim") {
      step.constants.dims.push_back(value.as_integer());
    } else if (key != "op" && key != "inputs" && key != "output") {
      step.constants.scalars[key] = value.as_number();  // a scalar of ops::scalar_attributes (read_op_kind checked)
    }
  }
}

}  // namespace

std::vector<ForwardStep> read_steps(const JsonReader& field, const std::vector<std::string>& available,
                                    const std::string& leaves, const std::string& output,
                                    const ExpressionReader& read_expression) {
  field.expect_array();
  if (field.size() == 0) field.fail("give at least one op");
  TensorFlow flow;
  flow.output = output;
  flow.leaves = leaves;
  flow.available.insert(available.begin(), available.end());
  flow.unread.insert(available.begin(), available.end());
  std::vector<ForwardStep> steps;
  for (std::size_t i = 0; i < field.size(); ++i) {
    const JsonReader op_field = field.at(i);
    ForwardStep step;
    step.kind = read_op_kind(op_field);
    step.constants.kind = step.kind;
    read_operands(op_field, step, flow, i + 1 == field.size());
    read_attributes(op_field, step, read_expression);
    steps.push_back(std::move(step));
  }
  if (!flow.unread.empty())
    field.fail("tensor '" + *flow.unread.begin() + "' is declared or made but no op reads it");
  return steps;
}

namespace {

// What an op makes of operands of these dtypes, as PyTorch types it where
// the suite's ops can tell (docs/suite-format.md, "Dtypes"): data movement
// keeps its operand's dtype (and concat needs one dtype), gather takes an
// int64 index, argmax and argmin make int64 positions, and every other op
// computes in floating point and makes float32 (a float operand promotes an
// integer or bool one).
DType result_dtype(const JsonReader& op_field, const ForwardStep& step, const std::vector<DType>& operands) {
  const auto operand_fails = [&](std::size_t j, const std::string& what) {
    op_field.at("inputs").at(j).fail("'" + step.inputs[j] + "' is " + std::string(to_string(operands[j])) + ": " +
                                     what);
  };
  switch (step.kind) {
    case OpKind::gather:
      if (operands[1] != DType::int64) operand_fails(1, "gather's index is int64");
      return operands[0];
    case OpKind::concat:
      for (std::size_t j = 1; j < operands.size(); ++j)
        if (operands[j] != operands[0])
          operand_fails(j, "concat joins tensors of one dtype ('" + step.inputs[0] + "' is " +
                               std::string(to_string(operands[0])) + ")");
      return operands[0];
    case OpKind::permute:
    case OpKind::reshape:
    case OpKind::flip:
    case OpKind::narrow:
    case OpKind::triu:
    case OpKind::tril:
    case OpKind::diag: return operands[0];
    case OpKind::argmax:
    case OpKind::argmin: return DType::int64;
    default: return DType::float32;
  }
}

// The dtype of every tensor the forward pass makes; the output's declared
// dtype must be what its last op makes.
void check_forward_dtypes(const JsonReader& field, const Suite& suite) {
  std::map<std::string, DType> dtypes;
  for (const TensorSpec& tensor : suite.tensors) dtypes[tensor.name] = tensor.dtype;
  DType made = DType::float32;
  for (std::size_t i = 0; i < suite.forward.size(); ++i) {
    const ForwardStep& step = suite.forward[i];
    std::vector<DType> operands;
    for (const std::string& name : step.inputs) operands.push_back(dtypes.at(name));
    made = result_dtype(field.at(i), step, operands);
    if (i + 1 < suite.forward.size()) dtypes[step.output] = made;
  }
  const TensorSpec& output = suite.output();
  if (made != output.dtype)
    field.at(suite.forward.size() - 1)
        .fail_at("output", "makes '" + output.name + "' as " + std::string(to_string(made)) +
                               ", its declared dtype is " + std::string(to_string(output.dtype)));
}

}  // namespace

void read_forward(const JsonReader& field, Suite& suite, const ExpressionReader& read_expression) {
  std::vector<std::string> available;
  for (const TensorSpec& tensor : suite.tensors)
    if (tensor.role != TensorRole::output) available.push_back(tensor.name);
  suite.forward = read_steps(field, available, "an input or parameter", suite.output().name, read_expression);
  check_forward_dtypes(field, suite);
}

std::optional<ForwardProblem> resolve_steps(const std::vector<ForwardStep>& steps, const Axes& axes,
                                            ResolvedForward& resolved) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const ForwardStep& step = steps[i];
    ops::Op op = step.constants;
    op.kind = step.kind;
    for (const auto& [key, expressions] : step.integers) {
      std::vector<std::int64_t> values;
      for (const auto& expression : expressions) values.push_back(evaluate_expression(expression, axes));
      if (key == "kernel") op.kernel = values;
      else if (key == "stride") op.stride = values;
      else if (key == "padding") op.padding = values;
      else if (key == "dilation") op.dilation = values;
      else if (key == "output_padding") op.output_padding = values;
      else if (key == "groups") op.groups = values.at(0);
      else if (key == "num_groups") op.num_groups = values.at(0);
      else if (key == "normalized_shape") op.normalized_shape = values;
      else if (key == "shape") op.shape = values;
      else if (key == "start") op.start = values.at(0);
      else if (key == "length") op.length = values.at(0);
      else if (key == "diagonal") op.diagonal = values.at(0);
      else if (key == "divisor") op.divisor = values.at(0);
    }
    std::vector<ops::Shape> operands;
    for (const auto& name : step.inputs) operands.push_back(resolved.shapes.at(name));
    try {
      resolved.shapes[step.output] = ops::output_shape(op, operands);
    } catch (const Error& e) {
      return ForwardProblem{i, e.what()};
    }
    resolved.ops.push_back(op);
  }
  return std::nullopt;
}

namespace {

// The shape the ops compute for tensor `name` against its declared one, as
// a problem of the last step; `what` names the tensor in the message.
std::optional<ForwardProblem> declared_shape_problem(const ResolvedForward& resolved, std::size_t last,
                                                     const std::string& name, const std::string& what,
                                                     const ops::Shape& declared) {
  const ops::Shape& computed = resolved.shapes.at(name);
  if (computed == declared) return std::nullopt;
  return ForwardProblem{last, "computes " + what + " as " + ops::describe(computed) + ", its declared shape is " +
                                  ops::describe(declared)};
}

}  // namespace

std::optional<ForwardProblem> find_forward_problem(const Suite& suite, const Axes& axes, ResolvedForward* resolved) {
  ResolvedForward forward;
  for (const TensorSpec& tensor : suite.tensors)
    if (tensor.role != TensorRole::output) forward.shapes[tensor.name] = suite.shape(tensor.name, axes);
  if (auto problem = resolve_steps(suite.forward, axes, forward)) return problem;
  const TensorSpec& output = suite.output();
  if (!output.shape.empty())
    if (auto problem = declared_shape_problem(forward, suite.forward.size() - 1, output.name,
                                              "the output '" + output.name + "'", suite.shape(output.name, axes)))
      return problem;
  if (resolved) *resolved = std::move(forward);
  return std::nullopt;
}

std::optional<InitProblem> find_init_problem(const Suite& suite, const Axes& axes, const TensorSpec& tensor,
                                             ResolvedForward* resolved) {
  if (!tensor.init || tensor.init->then.empty()) return std::nullopt;
  ResolvedForward ops;
  ops.shapes[kDrawn] = suite.shape(tensor.name, axes);
  for (std::size_t i = 0; i < tensor.init->draws.size(); ++i) {
    const NamedDraw& draw = tensor.init->draws[i];
    ops::Shape& shape = ops.shapes[draw.name];
    for (std::size_t d = 0; d < draw.shape.size(); ++d) {
      shape.push_back(evaluate_expression(draw.shape[d], axes));
      if (shape.back() <= 0)
        return InitProblem{InitProblem::Where::draw_shape, i, d,
                           "evaluates to " + std::to_string(shape.back()) + ", must be positive"};
    }
  }
  const std::vector<ForwardStep>& steps = tensor.init->then;
  if (auto problem = resolve_steps(steps, axes, ops))
    return InitProblem{InitProblem::Where::step, problem->step, 0, problem->message};
  if (auto problem = declared_shape_problem(ops, steps.size() - 1, tensor.name, "'" + tensor.name + "'",
                                            suite.shape(tensor.name, axes)))
    return InitProblem{InitProblem::Where::step, problem->step, 0, problem->message};
  if (resolved) *resolved = std::move(ops);
  return std::nullopt;
}

ResolvedForward Suite::resolve_forward(const Axes& axes) const {
  ResolvedForward forward;
  if (auto problem = find_forward_problem(*this, axes, &forward))
    throw Error("workload " + id + ": forward[" + std::to_string(problem->step) + "]: " + problem->message);
  return forward;
}

}  // namespace kg
