// What LaunchArgs gives a candidate's launch besides its tensors and axes.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernelgate/candidate.hpp"
#include "kernelgate/error.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

TEST(LaunchArgs, TheWorkspaceAsFloatsWhenItHoldsThem) {
  std::vector<float> scratch(8);
  LaunchArgs args;
  args.workspace = scratch.data();
  args.workspace_bytes = scratch.size() * sizeof(float);
  EXPECT_EQ(args.workspace_floats(8, "pooled values"), scratch.data());
  EXPECT_EQ(args.workspace_floats(0, "pooled values"), scratch.data());
}

TEST(LaunchArgs, AWorkspaceTooSmallIsAnErrorNamingWhatItHoldsAndWhatIsNeeded) {
  std::vector<float> scratch(8);
  LaunchArgs args;
  args.workspace = scratch.data();
  args.workspace_bytes = 30;
  EXPECT_EQ(test::error_of([&] { args.workspace_floats(8, "pooled values"); }),
            "the candidate's workspace holds 30 bytes, the 8 pooled values need 32");
}

// Each tensor is read as its dtype, and only so.
TEST(LaunchArgs, ATensorIsReadAsItsDtype) {
  const float logits[2] = {};
  const std::int64_t targets[2] = {};
  const bool mask[2] = {};
  LaunchArgs args;
  args.inputs = {{.name = "logits", .shape = {2}, .dtype = DType::float32, .data = logits},
                 {.name = "targets", .shape = {2}, .dtype = DType::int64, .data = targets},
                 {.name = "mask", .shape = {2}, .dtype = DType::boolean, .data = mask}};
  EXPECT_EQ(args.in("logits"), logits);
  EXPECT_EQ(args.in_int64("targets"), targets);
  EXPECT_EQ(args.in_bool("mask"), mask);
  EXPECT_EQ(test::error_of([&] { args.in("mask"); }), "candidate asked for tensor 'mask' as float32, it holds bool");
  EXPECT_EQ(test::error_of([&] { args.in_bool("targets"); }),
            "candidate asked for tensor 'targets' as bool, it holds int64");
  EXPECT_EQ(test::error_of([&] { args.in_int64("labels"); }), "candidate asked for unknown tensor 'labels'");
}

}  // namespace
}  // namespace kg
