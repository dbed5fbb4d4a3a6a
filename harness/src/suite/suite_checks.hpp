#pragma once
// Legality checks shared by Suite::resolve_axes and the loader (which reports
// the same problems with the JSON path of the preset or tensor at fault).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

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

// Reads the suite's "forward" list (forward.cpp); the tensors are read
// already. read_expression parses one expression field over the suite's axes.
using ExpressionReader = std::function<std::string(const JsonReader&)>;
void read_forward(const JsonReader& field, Suite& suite, const ExpressionReader& read_expression);

}  // namespace kg
