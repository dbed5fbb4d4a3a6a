#pragma once
// Integer expressions over the axes of a workload, as written in suite files:
// tensor shapes, fan-ins, FLOP counts and axis rules. docs/suite-format.md
// lists the grammar: integers, axis names, + - * / % (floor division and
// modulo, as in Python), comparisons, && || !, parentheses and the functions
// min, max and convt_taps. Evaluation is exact 64-bit integer arithmetic;
// overflow and division by zero are errors, never wrong numbers.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernelgate/detail/suite.hpp"

namespace kg {

class Expression {
 public:
  // Throws kg::Error("... at position P: ...") on a syntax error.
  static Expression parse(const std::string& text);

  // Throws kg::Error naming the expression on an unknown axis, a division by
  // zero or an overflow.
  std::int64_t evaluate(const Axes& axes) const;

  const std::string& text() const { return text_; }
  // The axis names the expression reads (each once, in order of appearance).
  const std::vector<std::string>& names() const { return names_; }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
  std::vector<std::string> names_;
};

// parse + evaluate.
std::int64_t evaluate_expression(const std::string& text, const Axes& axes);

// The number of (output position, kernel tap) pairs of a 1-D transposed
// convolution (dilation 1) that read an input element: output positions
// 0 .. outputs_used-1 of an input of `extent` elements. Products that fall
// outside the used outputs are never needed, so they are not counted as work.
std::int64_t conv_transpose_taps(std::int64_t extent, std::int64_t kernel, std::int64_t stride,
                                 std::int64_t padding, std::int64_t outputs_used);

}  // namespace kg
