// Axes resolution: presets, overrides, ranges, PyTorch's legality rules, shapes,
// FLOPs and bytes.
#include <gtest/gtest.h>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/suite.hpp"
#include "support/error_of.hpp"
#include "support/stock_suite.hpp"

namespace kg {
namespace {

using test_support::stock_suite;

std::string resolve_error(const Suite& suite, const std::string& preset, const std::string& overrides) {
  return test::error_of([&] { suite.resolve_axes(preset, parse_axes_list(overrides)); });
}

TEST(Axes, DefaultsAreKernelBenchs) {
  Suite l1_071 = stock_suite("l1_071_conv_transposed_2d");
  Axes axes = l1_071.resolve_axes("");
  EXPECT_EQ(l1_071.shape("x", axes), (std::vector<std::int64_t>{8, 32, 512, 1024}));
  EXPECT_EQ(l1_071.shape("y", axes), (std::vector<std::int64_t>{8, 32, 514, 1026}));
  Suite l1_086 = stock_suite("l1_086_conv_depthwise_separable_2d");
  axes = l1_086.resolve_axes("default");
  EXPECT_EQ(l1_086.shape("y", axes), (std::vector<std::int64_t>{16, 128, 512, 512}));
  Suite l2_078 = stock_suite("l2_078_conv_transpose3d_max_max_sum");
  axes = l2_078.resolve_axes("");
  EXPECT_EQ(l2_078.shape("x", axes), (std::vector<std::int64_t>{16, 32, 32, 32, 32}));
  EXPECT_EQ(l2_078.shape("y", axes), (std::vector<std::int64_t>{16, 1, 10, 10, 10}));
}

TEST(Axes, CiPresetsHaveMoreThanOneBlockEverywhere) {
  Suite l1_071 = stock_suite("l1_071_conv_transposed_2d");
  EXPECT_EQ(l1_071.shape("y", l1_071.resolve_axes("ci")), (std::vector<std::int64_t>{2, 32, 21, 37}));
  Suite l1_086 = stock_suite("l1_086_conv_depthwise_separable_2d");
  EXPECT_EQ(l1_086.shape("y", l1_086.resolve_axes("ci")), (std::vector<std::int64_t>{2, 128, 19, 37}));
  Suite l2_078 = stock_suite("l2_078_conv_transpose3d_max_max_sum");
  Axes ci = l2_078.resolve_axes("ci");
  EXPECT_EQ(l2_078.shape("x", ci), (std::vector<std::int64_t>{2, 16, 7, 8, 9}));
  EXPECT_EQ(l2_078.shape("y", ci), (std::vector<std::int64_t>{2, 1, 2, 2, 2}));
}

TEST(Axes, CostsMatchWorkloadsMd) {
  Suite l1_071 = stock_suite("l1_071_conv_transposed_2d");
  Axes axes = l1_071.default_axes();
  EXPECT_NEAR(l1_071.flops(axes) / 1e9, 77.3, 0.05);
  EXPECT_NEAR(l1_071.bytes(axes) / 1e9, 1.077, 0.0005);
  Suite l1_086 = stock_suite("l1_086_conv_depthwise_separable_2d");
  axes = l1_086.default_axes();
  EXPECT_NEAR(l1_086.flops(axes) / 1e9, 73.6, 0.05);
  EXPECT_NEAR(l1_086.bytes(axes) / 1e9, 3.22, 0.005);
  Suite l2_078 = stock_suite("l2_078_conv_transpose3d_max_max_sum");
  axes = l2_078.default_axes();
  // 2 * 16 * 32 * 64 * 149^3: only conv outputs 0..59 reach the output.
  EXPECT_EQ(l2_078.flops(axes), 2.0 * 16 * 32 * 64 * 149 * 149 * 149);
  EXPECT_NEAR(l2_078.flops(axes) / 1e9, 216.8, 0.05);
  EXPECT_NEAR(l2_078.bytes(axes) / 1e6, 68.2, 0.05);
}

TEST(Axes, OverridesApplyAfterThePreset) {
  Suite suite = stock_suite("l1_071_conv_transposed_2d");
  Axes axes = suite.resolve_axes("ci", parse_axes_list("stride=2, output_padding=1,groups=4"));
  EXPECT_EQ(axes.at("batch_size"), 2);
  EXPECT_EQ(axes.at("stride"), 2);
  EXPECT_EQ(suite.shape("weight", axes), (std::vector<std::int64_t>{32, 8, 3, 3}));
  EXPECT_EQ(suite.shape("y", axes), (std::vector<std::int64_t>{2, 32, 40, 72}));
}

// "batch" was renamed "batch_size"; for one release the old name still sets
// the new axis, with a note, and giving both is refused.
TEST(Axes, TheOldNameOfARenamedAxisStillWorks) {
  Suite suite = stock_suite("l1_071_conv_transposed_2d");
  EXPECT_EQ(suite.resolve_axes("ci", parse_axes_list("batch=3")).at("batch_size"), 3);
  EXPECT_EQ(resolve_error(suite, "ci", "batch=3,batch_size=3"),
            "axis 'batch_size' is given twice (also as 'batch', its old name)");
  EXPECT_EQ(renamed_axis_notes(suite, parse_axes_list("batch=3,stride=2")),
            std::vector<std::string>{"note: axis 'batch' of l1_071_conv_transposed_2d is now 'batch_size'; the old "
                                     "name is accepted until 0.2.0"});
  EXPECT_TRUE(renamed_axis_notes(suite, parse_axes_list("batch_size=3")).empty());
  // A suite with an axis of its own called batch takes it as it is, even
  // beside a batch_size.
  Suite own = suite;
  AxisSpec batch = own.axes.front();
  batch.name = "batch";
  own.axes.push_back(batch);
  EXPECT_TRUE(renamed_axis_notes(own, parse_axes_list("batch=3")).empty());
  EXPECT_EQ(own.resolve_axes("ci", parse_axes_list("batch=3")).at("batch_size"), 2);
}

TEST(Axes, ErrorsAreExact) {
  Suite suite = stock_suite("l1_071_conv_transposed_2d");
  EXPECT_EQ(resolve_error(suite, "ci", "chanels=4"),
            "unknown axis 'chanels' for workload l1_071_conv_transposed_2d (axes: batch_size, "
            "in_channels, out_channels, kernel_size, height_in, width_in, stride, padding, "
            "output_padding, groups)");
  EXPECT_EQ(resolve_error(suite, "ci", "batch_size=0"),
            "axis batch_size=0 is out of range [1, 1024] for workload l1_071_conv_transposed_2d");
  EXPECT_EQ(resolve_error(suite, "fast", ""),
            "workload l1_071_conv_transposed_2d has no axes preset 'fast' (presets: default, ci)");
  EXPECT_EQ(resolve_error(suite, "ci", "groups=3"),
            "illegal axes for workload l1_071_conv_transposed_2d: in_channels must be divisible "
            "by groups (requires in_channels % groups == 0; in_channels=32, groups=3)");
  EXPECT_EQ(resolve_error(suite, "ci", "in_channels=6,groups=3,out_channels=32"),
            "illegal axes for workload l1_071_conv_transposed_2d: out_channels must be divisible "
            "by groups (requires out_channels % groups == 0; out_channels=32, groups=3)");
  EXPECT_EQ(resolve_error(suite, "ci", "stride=2,output_padding=2"),
            "illegal axes for workload l1_071_conv_transposed_2d: output_padding must be smaller "
            "than stride (PyTorch: smaller than stride or dilation, and this module has dilation 1) "
            "(requires output_padding < stride; output_padding=2, stride=2)");
  EXPECT_EQ(resolve_error(suite, "ci", "padding=16"),
            "illegal axes for workload l1_071_conv_transposed_2d: tensor 'y' dimension 2 "
            "((height_in - 1) * stride - 2 * padding + kernel_size + output_padding) is -11, must "
            "be positive");
  Suite l1_086 = stock_suite("l1_086_conv_depthwise_separable_2d");
  EXPECT_EQ(resolve_error(l1_086, "ci", "kernel_size=9,padding=0,height=5"),
            "illegal axes for workload l1_086_conv_depthwise_separable_2d: the dilated kernel must "
            "fit in the padded input height (requires height + 2 * padding >= dilation * "
            "(kernel_size - 1) + 1; height=5, padding=0, dilation=1, kernel_size=9)");
  Suite l2_078 = stock_suite("l2_078_conv_transpose3d_max_max_sum");
  EXPECT_EQ(resolve_error(l2_078, "ci", "depth=1"),
            "illegal axes for workload l2_078_conv_transpose3d_max_max_sum: the transposed "
            "convolution must be at least 6 deep so that both pools have an output (requires "
            "(depth - 1) * stride - 2 * padding + kernel_size >= 6; depth=1, stride=2, padding=2, "
            "kernel_size=5)");
}

TEST(Axes, ParseAxesList) {
  EXPECT_EQ(parse_axes_list(""), Axes{});
  EXPECT_EQ(parse_axes_list("a=1, b = -2"), (Axes{{"a", 1}, {"b", -2}}));
  EXPECT_EQ(format_axes({{"b", 2}, {"a", 1}}), "a=1,b=2");
  auto error = [](const std::string& text) { return test::error_of([&] { parse_axes_list(text); }); };
  EXPECT_EQ(error("batch"), "bad axes list 'batch': expected name=value, got 'batch'");
  EXPECT_EQ(error("batch=two"), "bad axes list 'batch=two': value of 'batch' is not an integer: 'two'");
  EXPECT_EQ(error("batch=1,batch=2"), "bad axes list 'batch=1,batch=2': axis 'batch' is given twice");
}

TEST(Axes, UnknownTensorAndPrecision) {
  Suite suite = stock_suite("l2_078_conv_transpose3d_max_max_sum");
  EXPECT_THROW(suite.tensor("z"), Error);
  EXPECT_EQ(test::error_of([&] { suite.tolerance("fp8"); }),
            "workload l2_078_conv_transpose3d_max_max_sum has no tolerance for precision 'fp8' "
            "(defined: bf16, fp32, tf32)");
  EXPECT_EQ(suite.tolerance("fp32").atol, 1e-4);
}

}  // namespace
}  // namespace kg
