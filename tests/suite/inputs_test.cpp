// The counter-based input generator (docs/inputs.md).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "kernelgate/detail/reference.hpp"
#include "kernelgate/detail/suite.hpp"
#include "support/stock_suite.hpp"
#include "philox.hpp"

namespace kg {
namespace {

// Known-answer vectors of Random123 (kat_vectors, philox4x32_10).
TEST(Philox, MatchesRandom123KnownAnswers) {
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (PhiloxCounter{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                          {0xffffffffu, 0xffffffffu}),
            (PhiloxCounter{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                          {0xa4093822u, 0x299f31d0u}),
            (PhiloxCounter{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

using test_support::stock_suite;

// The generator seed of each input set of a run (docs/inputs.md, "The input
// sets of a run"): known answers from Python's hashlib, an implementation
// of SHA-256 independent of this project's.
TEST(InputSetSeed, IsTheDocumentedDigestOfTheRunSeedAndTheSet) {
  EXPECT_EQ(input_set_seed(0, 0), 16749782384153748009ull);
  EXPECT_EQ(input_set_seed(0, 1), 18417472109768606233ull);
  EXPECT_EQ(input_set_seed(7, 2), 3475683419238769770ull);
  EXPECT_EQ(input_set_seed(~std::uint64_t{0}, 3), 3688955975054150625ull);
}

TEST(Inputs, DeterministicAndKeyedByEverything) {
  Suite suite = stock_suite("l1_071_conv_transposed_2d");
  Axes ci = suite.resolve_axes("ci");
  Tensors a = generate_inputs(suite, ci, 0);
  Tensors b = generate_inputs(suite, ci, 0);
  EXPECT_EQ(a.at("x").data, b.at("x").data);
  EXPECT_EQ(a.at("weight").data, b.at("weight").data);
  EXPECT_NE(generate_inputs(suite, ci, 1).at("x").data, a.at("x").data);
  EXPECT_NE(input_key(suite.id, ci, 0, "x"), input_key(suite.id, ci, 0, "weight"));
  EXPECT_NE(input_key(suite.id, ci, 0, "x"), input_key("other", ci, 0, "x"));
  Axes other = ci;
  other["batch_size"] = 3;
  EXPECT_NE(input_key(suite.id, ci, 0, "x"), input_key(suite.id, other, 0, "x"));
  // The multi-threaded fill is the plain definition, element by element.
  std::uint64_t key = input_key(suite.id, ci, 0, "x");
  const auto& x = a.at("x").data;
  for (std::size_t i = 0; i < x.size(); i += 97) ASSERT_EQ(x[i], uniform_at(key, i)) << i;
}

TEST(Inputs, DistributionsArePyTorchsDefaults) {
  Suite suite = stock_suite("l2_078_conv_transpose3d_max_max_sum");
  Axes ci = suite.resolve_axes("ci");
  Tensors tensors = generate_inputs(suite, ci, 5);
  EXPECT_EQ(tensors.count("y"), 0u);
  const double bound = 1.0 / std::sqrt(64.0 * 125.0);  // fan_in = out_channels * k^3
  for (const char* name : {"weight", "bias"}) {
    double low = 1, high = -1, sum = 0;
    for (float v : tensors.at(name).data) {
      low = std::min<double>(low, v);
      high = std::max<double>(high, v);
      sum += v;
    }
    EXPECT_GE(low, -bound) << name;
    EXPECT_LT(high, bound) << name;
    EXPECT_LT(low, -0.8 * bound) << name;  // spans the range
    EXPECT_GT(high, 0.8 * bound) << name;
  }
  const auto& x = tensors.at("x").data;
  double sum = 0;
  for (float v : x) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / static_cast<double>(x.size()), 0.5, 0.03);
  EXPECT_EQ(tensors.at("x").shape, (std::vector<std::int64_t>{2, 16, 7, 8, 9}));
}

// The stock l2_078 suite with its input x drawn from `init` (16128 values
// at the ci preset).
Suite l2_078_with_x(const TensorInit& init) {
  Suite suite = stock_suite("l2_078_conv_transpose3d_max_max_sum");
  for (auto& tensor : suite.tensors)
    if (tensor.name == "x") tensor.init = init;
  return suite;
}

TEST(Inputs, ANormalTensorHasItsMeanAndSpread) {
  TensorInit normal;
  normal.distribution = TensorInit::Distribution::normal;
  normal.mean = 1.5;
  normal.std = 2.0;
  const Suite suite = l2_078_with_x(normal);
  const Axes ci = suite.resolve_axes("ci");
  const Tensors tensors = generate_inputs(suite, ci, 5);
  const auto& x = tensors.at("x").data;  // 16128 values
  double sum = 0, squares = 0;
  std::size_t within_one = 0, negative = 0;
  for (float v : x) {
    sum += v;
    squares += double(v) * v;
    within_one += std::fabs(v - 1.5) < 2.0;
    negative += v < 0;
  }
  const double n = double(x.size()), mean = sum / n, spread = std::sqrt(squares / n - mean * mean);
  // Bounds of about four standard errors.
  EXPECT_NEAR(mean, 1.5, 0.07);
  EXPECT_NEAR(spread, 2.0, 0.05);
  EXPECT_NEAR(double(within_one) / n, 0.6827, 0.015);  // one standard deviation
  EXPECT_NEAR(double(negative) / n, 0.2266, 0.015);    // P(z < -0.75)
  // The fill is the definition, element by element, and the other tensors
  // keep their uniform draws.
  const std::uint64_t key = input_key(suite.id, ci, 5, "x");
  for (std::size_t i = 0; i < x.size(); i += 97)
    ASSERT_EQ(x[i], static_cast<float>(1.5 + 2.0 * normal_at(key, i))) << i;
  EXPECT_EQ(tensors.at("weight").data, generate_inputs(stock_suite(suite.id), ci, 5).at("weight").data);
}

TEST(Inputs, ARandintTensorHoldsEachIntegerOfItsRangeAsOften) {
  // torch.randint(-3, 4, ...): the integers -3 to 3, each a seventh of the time.
  TensorInit randint;
  randint.distribution = TensorInit::Distribution::randint;
  randint.randint_low = "-3";
  randint.randint_high = "4";
  const Suite suite = l2_078_with_x(randint);
  const Axes ci = suite.resolve_axes("ci");
  const Tensors tensors = generate_inputs(suite, ci, 5);
  const auto& x = tensors.at("x").data;  // 16128 values
  std::map<float, std::size_t> count;
  for (float v : x) ++count[v];
  ASSERT_EQ(count.size(), 7u);
  EXPECT_EQ(count.begin()->first, -3.0f);
  EXPECT_EQ(count.rbegin()->first, 3.0f);
  for (const auto& [value, times] : count)  // within about four standard errors of n / 7
    EXPECT_NEAR(double(times) / double(x.size()), 1.0 / 7, 0.012) << value;
}

}  // namespace
}  // namespace kg
