// What the fused candidates of l2_078 accept: the module's geometry at the
// defaults and the ci preset, channel counts that are multiples of the tiles;
// anything else is reported with a reason (-> not_supported), never run.
#include <string>

#include <gtest/gtest.h>

#include "kernelgate/candidate.hpp"
#include "kernelgate/detail/runner.hpp"
#include "kernelgate/detail/suite.hpp"
#include "workload.hpp"

namespace kg {
namespace {

using l2_078_test::kWorkload;
using l2_078_test::workload_suite;

class FusedSupports : public ::testing::TestWithParam<std::string> {
 protected:
  const Candidate& fused() const {
    for (const Candidate* found : candidates_for(kWorkload))
      if (found->id == GetParam()) return *found;
    throw Error("candidate " + GetParam() + " is not linked into the test");
  }
  Suite suite_ = workload_suite();
};

// The longest accumulation a candidate accepts: 3xTF32 up to 24 input
// channels, the BF16 correction up to 32, TF32 as far as shared memory goes
// (kernels/common/fp32_accumulation.cuh).
std::int64_t max_channels(const Candidate& candidate) {
  if (candidate.precision != "fp32") return 48;
  return candidate.id == "fused_tf32_bf16corr_wgmma" ? 32 : 24;
}

TEST_P(FusedSupports, AcceptsTheCiPresetAndTheDefaultsWhereTheAccumulationAllows) {
  EXPECT_EQ(fused().unsupported_reason(suite_.resolve_axes("ci")), "");
  const std::string at_defaults = fused().unsupported_reason(suite_.resolve_axes(""));
  if (max_channels(fused()) >= 32)
    EXPECT_EQ(at_defaults, "");
  else
    EXPECT_NE(at_defaults.find("in_channels = 32 is above 24"), std::string::npos) << at_defaults;
}

TEST_P(FusedSupports, AcceptsOtherBatchesChannelsAndSizes) {
  EXPECT_EQ(fused().unsupported_reason(suite_.resolve_axes(
                "", {{"batch_size", 3}, {"in_channels", max_channels(fused())}, {"out_channels", 192},
                     {"depth", 4}, {"height", 11}, {"width", 33}})),
            "");
}

TEST_P(FusedSupports, Fp32FormsRefuseALongerAccumulationWithAReason) {
  if (fused().precision != "fp32") GTEST_SKIP() << "TF32 is bounded by shared memory only";
  const std::string reason = fused().unsupported_reason(
      suite_.resolve_axes("", {{"in_channels", max_channels(fused()) + 8}}));
  EXPECT_NE(reason.find("keeps 3x headroom under the fp32 bounds only up to there"), std::string::npos)
      << reason;
}

// With one image the BF16 correction runs fused_3xtf32's single-image
// kernel, so 3xTF32's bound is its bound there (2.7x headroom at batch 1 and
// 32 input channels, measured at the ci preset).
TEST_P(FusedSupports, TheBf16CorrectionWithOneImageKeepsTheBoundOfTheKernelItRuns) {
  if (fused().id != "fused_tf32_bf16corr_wgmma") GTEST_SKIP() << "only the BF16 correction falls back";
  EXPECT_EQ(fused().unsupported_reason(suite_.resolve_axes("ci", {{"batch_size", 2}, {"in_channels", 32}})), "");
  EXPECT_EQ(fused().unsupported_reason(suite_.resolve_axes("ci", {{"batch_size", 1}, {"in_channels", 24}})), "");
  const std::string reason =
      fused().unsupported_reason(suite_.resolve_axes("ci", {{"batch_size", 1}, {"in_channels", 32}}));
  EXPECT_NE(reason.find("in_channels = 32 is above 24"), std::string::npos) << reason;
  EXPECT_NE(reason.find("with one image it runs fused_3xtf32's kernel"), std::string::npos) << reason;
}

TEST_P(FusedSupports, RejectsWhatTheKernelDoesNotHandleWithAReason) {
  const Axes rejected[] = {
      suite_.resolve_axes("", {{"kernel_size", 3}}),
      suite_.resolve_axes("", {{"stride", 1}}),
      suite_.resolve_axes("", {{"padding", 1}}),
      suite_.resolve_axes("", {{"in_channels", 12}}),
      suite_.resolve_axes("", {{"out_channels", 32}}),
      suite_.resolve_axes("", {{"out_channels", 96}}),
      suite_.resolve_axes("", {{"in_channels", 4096}}),  // input tile beyond shared memory
  };
  for (const Axes& axes : rejected) EXPECT_NE(fused().unsupported_reason(axes), "");
}

TEST_P(FusedSupports, NeedsNoMoreWorkspaceThanThePackedWeights) {
  const Axes axes = suite_.resolve_axes("");
  const std::size_t floats_per_plane = 125 * 32 * 64;
  // fp32: 3xTF32's hi and lo, or the TF32 and the BF16 correction plane.
  const std::size_t planes = fused().precision == "fp32" ? 2 : 1;
  EXPECT_EQ(fused().workspace_bytes(axes), planes * floats_per_plane * sizeof(float));
}

INSTANTIATE_TEST_SUITE_P(L2_078, FusedSupports, ::testing::Values("fused_tf32", "fused_tf32_wgmma",
                                                                 "fused_3xtf32",
                                                                 "fused_3xtf32_wgmma",
                                                                 "fused_tf32_bf16corr_wgmma"));

}  // namespace
}  // namespace kg
