// The float64 references: point and full agree, the ci presets are fast, and
// the tolerance policy separates TF32 from FP32 as docs/suite-format.md says.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/expression.hpp"
#include "kernelgate/detail/reference.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {
namespace {

const char* const kWorkloads[] = {"l1_071_conv_transposed_2d", "l1_086_conv_depthwise_separable_2d",
                                  "l2_078_conv_transpose3d_max_max_sum"};

class Reference : public ::testing::TestWithParam<const char*> {};

TEST_P(Reference, CiPresetIsFastAndPointsMatchTheWholeOutput) {
  Suite suite = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), GetParam());
  Axes ci = suite.resolve_axes("ci");
  auto start = std::chrono::steady_clock::now();
  Tensors inputs = generate_inputs(suite, ci, 3);
  HostTensor<double> output = reference_output(suite, ci, inputs);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Well under a second on its own; the bound leaves room for a loaded CI machine.
  EXPECT_LT(seconds, 3.0);
  RecordProperty("ci_seconds", std::to_string(seconds));
  EXPECT_EQ(output.shape, suite.shape(suite.output().name, ci));
  double norm = 0;
  for (double v : output.data) {
    ASSERT_TRUE(std::isfinite(v));
    norm += v * v;
  }
  EXPECT_GT(norm, 0.0);
  std::int64_t step = std::max<std::int64_t>(1, output.numel() / 500);
  // From the generated tensors, and from the generator alone (what a timed
  // sample's spot checks use): the same values, bit for bit.
  for (std::int64_t i = 0; i < output.numel(); i += step) {
    ASSERT_EQ(reference_point(suite, ci, inputs, i), output.data[i]) << i;
    ASSERT_EQ(reference_point_of_seed(suite, ci, 3, i), output.data[i]) << i;
  }
  ASSERT_EQ(reference_point(suite, ci, inputs, output.numel() - 1), output.data.back());
  EXPECT_THROW(reference_point(suite, ci, inputs, output.numel()), Error);
  EXPECT_THROW(reference_point_of_seed(suite, ci, 3, output.numel()), Error);
}

// PTX cvt.rna.tf32.f32: round to nearest, ties away, 10 mantissa bits.
float to_tf32(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits = (bits + 0x1000u) & ~0x1fffu;
  std::memcpy(&value, &bits, 4);
  return value;
}

TEST_P(Reference, TolerancePolicyAcceptsTf32WithMargin) {
  Suite suite = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), GetParam());
  Axes ci = suite.resolve_axes("ci");
  Tensors inputs = generate_inputs(suite, ci, 11);
  HostTensor<double> exact = reference_output(suite, ci, inputs);
  // A TF32 kernel multiplies operands rounded to TF32 (and accumulates in FP32,
  // which adds far less error).
  Tensors rounded = inputs;
  for (auto& [name, tensor] : rounded)
    for (float& v : tensor.data) v = to_tf32(v);
  HostTensor<double> tf32 = reference_output(suite, ci, rounded);
  double diff = 0, norm = 0, worst_ratio = 0;
  const Tolerance& tolerance = suite.tolerance("tf32");
  for (std::size_t i = 0; i < exact.data.size(); ++i) {
    double d = tf32.data[i] - exact.data[i];
    diff += d * d;
    norm += exact.data[i] * exact.data[i];
    worst_ratio = std::max(worst_ratio, std::abs(d) / (tolerance.atol + tolerance.rtol * std::abs(exact.data[i])));
  }
  double rel_l2 = std::sqrt(diff / norm);
  RecordProperty("tf32_rel_l2", std::to_string(rel_l2));
  EXPECT_LT(rel_l2, tolerance.rel_l2 / 2) << "rel_l2 " << rel_l2;
  EXPECT_LT(worst_ratio, 0.5) << "worst |error| / (atol + rtol |want|) " << worst_ratio;
  // ...and it is far from FP32 accuracy, so the fp32 policy would reject it.
  if (std::string(GetParam()) != "l2_078_conv_transpose3d_max_max_sum") {
    EXPECT_GT(rel_l2, suite.tolerance("fp32").rel_l2) << "rel_l2 " << rel_l2;
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, Reference, ::testing::ValuesIn(kWorkloads));

// l1_071 and l1_086 state no cost: their FLOPs now follow from their ops, and
// must be what the formulas they stated before gave, at the defaults, at ci
// and at non-default geometry.
TEST(ReferenceFlops, OpsGiveTheFormulasTheSuitesStated) {
  const std::map<std::string, std::string> stated = {
      {"l1_071_conv_transposed_2d",
       "2 * batch_size * (in_channels / groups) * out_channels * convt_taps(height_in, kernel_size, stride, padding, "
       "(height_in - 1) * stride - 2 * padding + kernel_size + output_padding) * convt_taps(width_in, kernel_size, "
       "stride, padding, (width_in - 1) * stride - 2 * padding + kernel_size + output_padding)"},
      {"l1_086_conv_depthwise_separable_2d",
       "2 * batch_size * in_channels * ((height + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1) * "
       "((width + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1) * (kernel_size * kernel_size + "
       "out_channels)"},
  };
  const std::map<std::string, std::vector<Axes>> geometry = {
      {"l1_071_conv_transposed_2d",
       {{{"stride", 2}, {"padding", 1}, {"output_padding", 1}, {"groups", 2}},
        {{"kernel_size", 4}, {"stride", 3}, {"padding", 2}, {"output_padding", 2}}}},
      {"l1_086_conv_depthwise_separable_2d", {{{"stride", 2}, {"padding", 2}, {"dilation", 2}}, {{"padding", 0}}}},
  };
  for (const auto& [id, formula] : stated) {
    const Suite suite = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), id);
    EXPECT_TRUE(suite.flops_expression.empty()) << id;
    std::vector<Axes> all = {suite.resolve_axes(""), suite.resolve_axes("ci")};
    for (const Axes& overrides : geometry.at(id)) all.push_back(suite.resolve_axes("ci", overrides));
    for (const Axes& axes : all)
      EXPECT_EQ(suite.flops(axes), static_cast<double>(evaluate_expression(formula, axes))) << id << " "
                                                                                             << format_axes(axes);
  }
}

}  // namespace
}  // namespace kg
