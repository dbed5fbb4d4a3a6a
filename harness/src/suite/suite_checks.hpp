#pragma once
// Legality checks shared by Suite::resolve_axes and the loader (which reports
// the same problems with the JSON path of the preset or tensor at fault).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "kernelgate/suite.hpp"

namespace kg {

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

}  // namespace kg
