#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/expression.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

std::string error_of(const std::string& text) {
  return test::error_of([&] { evaluate_expression(text, {}); });
}

// Each expression's value at the axes given.
void expect_values(const Axes& axes, const std::vector<std::pair<std::string, std::int64_t>>& expected) {
  for (const auto& [text, value] : expected) EXPECT_EQ(evaluate_expression(text, axes), value) << text;
}

TEST(Expression, ArithmeticFollowsPrecedence) {
  expect_values({{"a", 7}, {"b", 3}},
                {{"a + b * 2", 13}, {"(a + b) * 2", 20}, {"a - b - 1", 3}, {"-a + 10", 3}, {"  a*b  ", 21}});
}

TEST(Expression, DivisionFloorsLikePython) {
  // Floor, not truncation: an output size like (-1) / 2 + 1 must come out 0.
  expect_values({}, {{"7 / 2", 3}, {"-1 / 2", -1}, {"-7 / 2", -4}, {"-7 % 3", 2}, {"7 % 3", 1}});
}

TEST(Expression, ComparisonsAndLogic) {
  expect_values({{"p", 1}, {"s", 2}}, {{"p < s", 1},
                                       {"p >= s", 0},
                                       {"p == 1 && s != 1", 1},
                                       {"p > 5 || s <= 2", 1},
                                       {"!(p < s)", 0},
                                       // && short-circuits, so a guard protects a division.
                                       {"0 != 0 && 1 / 0 == 1", 0}});
}

TEST(Expression, Functions) {
  EXPECT_EQ(evaluate_expression("min(4, 2, 9)", {}), 2);
  EXPECT_EQ(evaluate_expression("max(4, 2, 9)", {}), 9);
  // Stride 2, kernel 5, padding 2, 32 inputs, outputs 0..59: 149 products.
  EXPECT_EQ(evaluate_expression("convt_taps(32, 5, 2, 2, 60)", {}), 149);
}

TEST(Expression, ConvTransposeTapsMatchesBruteForce) {
  for (std::int64_t extent : {1, 3, 8})
    for (std::int64_t kernel : {1, 2, 5})
      for (std::int64_t stride : {1, 2, 3})
        for (std::int64_t padding : {0, 1, 3}) {
          std::int64_t outputs = (extent - 1) * stride - 2 * padding + kernel + 1;
          if (outputs < 0) continue;
          std::int64_t count = 0;
          for (std::int64_t o = 0; o < outputs; ++o)
            for (std::int64_t k = 0; k < kernel; ++k) {
              std::int64_t t = o + padding - k;
              if (t >= 0 && t % stride == 0 && t / stride < extent) ++count;
            }
          EXPECT_EQ(conv_transpose_taps(extent, kernel, stride, padding, outputs), count)
              << extent << " " << kernel << " " << stride << " " << padding;
        }
}

TEST(Expression, NamesListsTheAxesRead) {
  Expression e = Expression::parse("(h - 1) * s + k + min(h, q)");
  EXPECT_EQ(e.names(), (std::vector<std::string>{"h", "s", "k", "q"}));
}

TEST(Expression, ErrorsNameTheExpression) {
  EXPECT_EQ(error_of("a + 1"), "expression 'a + 1': unknown axis 'a'");
  EXPECT_EQ(error_of("4 / (2 - 2)"), "expression '4 / (2 - 2)': division by zero");
  EXPECT_EQ(error_of("4 % 0"), "expression '4 % 0': division by zero");
  EXPECT_EQ(error_of("9223372036854775807 + 1"),
            "expression '9223372036854775807 + 1': integer overflow");
  EXPECT_EQ(error_of("2 * "),
            "expression '2 * ' at position 5: expected a number, an axis name or '(' but the "
            "expression ends");
  EXPECT_EQ(error_of("(1 + 2"), "expression '(1 + 2' at position 7: expected ')'");
  EXPECT_EQ(error_of("1 $ 2"), "expression '1 $ 2' at position 3: unexpected '$'");
  EXPECT_EQ(error_of("sqrt(4)"),
            "expression 'sqrt(4)' at position 1: unknown function 'sqrt' (functions: min, max, "
            "convt_taps)");
  EXPECT_EQ(error_of("min(1)"),
            "expression 'min(1)' at position 1: function 'min' takes 2 or more arguments, got 1");
}

}  // namespace
}  // namespace kg
