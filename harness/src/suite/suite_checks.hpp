#pragma once
// Legality checks shared by Suite::resolve_axes and the loader (which reports
// the same problems with the JSON path of the preset or tensor at fault).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernelgate/detail/enum_names.hpp"
#include "kernelgate/detail/json_reader.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

// A tensor's "role" in the suite file.
inline constexpr EnumNames<TensorRole, 3> kTensorRoleNames{"role",
                                                           {{{TensorRole::input, "input"},
                                                             {TensorRole::parameter, "parameter"},
                                                             {TensorRole::output, "output"}}}};

struct ShapeProblem {
  std::size_t tensor_index;
  std::size_t dimension;
  std::int64_t extent;
  std::string message;
};

// The first rule of suite.rules that the axes break, as a sentence.
std::optional<std::string> find_rule_violation(const Suite& suite, const Axes& axes);
// The first tensor dimension that is zero or negative at these axes.
std::optional<ShapeProblem> find_shape_problem(const Suite& suite, const Axes& axes);

// The first op of the forward pass whose operands do not fit at these axes
// (or the last, when the output it computes is not the declared one). When
// there is none and `resolved` is given, it receives the resolved pass.
struct ForwardProblem {
  std::size_t step;
  std::string message;
};
std::optional<ForwardProblem> find_forward_problem(const Suite& suite, const Axes& axes,
                                                   ResolvedForward* resolved = nullptr);

// The first randint draw of a tensor, its own or one of its further draws,
// whose bounds at these axes cannot be drawn (randint_bounds_problem).
std::optional<std::string> find_draw_problem(const Axes& axes, const TensorSpec& tensor);

// The first problem of an input built by ops (TensorInit::then) at these
// axes: a draw's dimension that is not positive, an op whose operands do not
// fit, or a last op that does not make the declared shape. When there is
// none and `resolved` is given, it receives the ops and every shape.
struct InitProblem {
  enum class Where { draw_shape, step };
  Where where;
  std::size_t index;      // the draw or the step
  std::size_t dimension;  // of a draw's shape
  std::string message;
};
std::optional<InitProblem> find_init_problem(const Suite& suite, const Axes& axes, const TensorSpec& tensor,
                                             ResolvedForward* resolved = nullptr);

// Reads a list of ops (forward.cpp): each reads tensors of `available` (what
// they are: `leaves`, for messages) or made by an earlier op, the last makes
// `output` and no other does, and every tensor available or made is read.
// read_expression parses one expression field over the suite's axes.
using ExpressionReader = std::function<std::string(const JsonReader&)>;
std::vector<ForwardStep> read_steps(const JsonReader& field, const std::vector<std::string>& available,
                                    const std::string& leaves, const std::string& output,
                                    const ExpressionReader& read_expression);
// The suite's "forward" list; the tensors are read already.
void read_forward(const JsonReader& field, Suite& suite, const ExpressionReader& read_expression);
// The ops of `steps` at these axes: each op with its attributes evaluated
// and the shape of what it makes, from the shapes in `resolved` (those of
// the tensors the steps start from); the first step that does not fit.
std::optional<ForwardProblem> resolve_steps(const std::vector<ForwardStep>& steps, const Axes& axes,
                                            ResolvedForward& resolved);

}  // namespace kg
