// What LaunchArgs gives a candidate's launch besides its tensors and axes.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kg
