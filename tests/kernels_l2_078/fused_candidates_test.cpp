// The fused candidates of l2_078 through the runner's in-process check
// (check_candidate): float64 reference on input sets A and B, the whole
// contract (no mutation, guard bands, every output written, no caching,
// repeatability), under the forward and the reverse thread order.
#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernelgate/candidate.hpp"
#include "kernelgate/detail/device.hpp"
#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/runner_testing.hpp"
#include "kernelgate/detail/suite.hpp"
#include "workload.hpp"

namespace kg {
namespace {

using l2_078_test::kWorkload;
using l2_078_test::workload_suite;

const Candidate& candidate(const std::string& id) {
  for (const Candidate* found : candidates_for(kWorkload))
    if (found->id == id) return *found;
  throw Error("candidate " + id + " of " + kWorkload + " is not linked into the test");
}

// Legal axes the fused kernels support, drawn with a fixed seed (raw
// mt19937 output, which is the same on every standard library), kept small
// for interpret mode (every fiber and every mma runs on the CPU): 1-3 images,
// 8 or 16 input channels, 64 output channels, inputs 4..8 per side (conv
// output 7..15: 1 or 2 pooled blocks, so both full and partial CTA tiles).
// One image runs fused_tf32's single-image CTA shape, two or more its paired
// shape, an odd count a pair whose second image is missing; seed 8 draws all
// three (checked by DrawsCoverBothCtaShapes).
constexpr std::uint32_t kAxesSeed = 8;

// The drawn axes before the suite fills in the rest (no suite needed, so the
// test list below can be made from them).
std::vector<Axes> drawn_overrides(int count) {
  std::mt19937 generator(kAxesSeed);
  auto pick = [&](std::int64_t low, std::int64_t high) {
    return low + static_cast<std::int64_t>(generator() % static_cast<std::uint32_t>(high - low + 1));
  };
  std::vector<Axes> drawn;
  for (int i = 0; i < count; ++i)
    drawn.push_back({{"batch_size", pick(1, 3)},
                     {"in_channels", 8 * pick(1, 2)},
                     {"out_channels", 64},
                     {"depth", pick(4, 8)},
                     {"height", pick(4, 8)},
                     {"width", pick(4, 8)}});
  return drawn;
}

std::vector<Axes> random_axes(const Suite& suite, int count) {
  std::vector<Axes> drawn;
  for (const Axes& overrides : drawn_overrides(count)) drawn.push_back(suite.resolve_axes("", overrides));
  return drawn;
}

std::string describe(const Axes& axes) {
  std::string text;
  for (const auto& [name, value] : axes) text += name + "=" + std::to_string(value) + " ";
  return text;
}

class ThreadOrder {
 public:
  explicit ThreadOrder(const char* order) { setenv("KG_INTERPRET_ORDER", order, 1); }
  ~ThreadOrder() { unsetenv("KG_INTERPRET_ORDER"); }
};

void expect_passes(const Suite& suite, const std::string& id, const Axes& axes) {
  auto device = open_device("cpu");
  RunOptions options;
  options.timing.protocol = "none";
  const Candidate& checked = candidate(id);
  ASSERT_EQ(checked.unsupported_reason(axes), "") << describe(axes);
  for (const char* order : {"forward", "reverse"}) {
    ThreadOrder scoped(order);
    const CandidateResult result = check_candidate(suite, checked, *device, axes, options);
    EXPECT_EQ(result.outcome, Outcome::passed)
        << id << " under " << order << " at " << describe(axes) << ": " << result.message;
    bool equivalence_judged = false;
    for (const CheckResult& check : result.checks) {
      if (check.name == "equivalence") equivalence_judged = check.outcome == Outcome::passed;
      if (check.name == "contract") {
        EXPECT_EQ(check.outcome, Outcome::passed) << check.message;
      }
    }
    EXPECT_TRUE(equivalence_judged) << id << " under " << order;
    ASSERT_TRUE(result.error.has_value());
    EXPECT_GT(result.error->checked, 0);
    EXPECT_FALSE(result.error->non_finite);
    if (checked.precision == "fp32") {
      // 3xTF32 must be FP32-faithful: KernelBench's current fp32 rule.
      EXPECT_TRUE(result.error->kernelbench_1e4) << "max_abs " << result.error->max_abs;
    }
  }
}

// Every fused candidate of the workload, with the precision it registers.
struct FusedCandidate {
  const char* id;
  const char* precision;
};
const std::vector<FusedCandidate> kFused = {{"fused_tf32", "tf32"},
                                            {"fused_tf32_wgmma", "tf32"},
                                            {"fused_3xtf32", "fp32"},
                                            {"fused_3xtf32_wgmma", "fp32"},
                                            {"fused_tf32_bf16corr_wgmma", "fp32"}};

// kFused is the list the tests below take every fused candidate from, so it
// must name each one the workload registers.
TEST(FusedCandidates, AllAreRegisteredWithTheirPrecision) {
  std::set<std::string> registered, listed;
  for (const Candidate* found : candidates_for(kWorkload))
    if (found->id.rfind("fused", 0) == 0) registered.insert(found->id);
  for (const FusedCandidate& fused : kFused) {
    listed.insert(fused.id);
    EXPECT_EQ(candidate(fused.id).precision, fused.precision) << fused.id;
  }
  EXPECT_EQ(listed, registered);
}

// One candidate on one small tile (input 4 x 4 x 5) at the given batch and
// channel counts. One test per case, so CTest can run them in parallel.
struct SmallTileCase {
  const char* id;
  std::int64_t batch, in_channels, out_channels;
};

void PrintTo(const SmallTileCase& c, std::ostream* out) {
  *out << c.id << " at batch " << c.batch << ", " << c.in_channels << " -> " << c.out_channels
       << " channels";
}

class FusedOnOneSmallTile : public ::testing::TestWithParam<SmallTileCase> {};

TEST_P(FusedOnOneSmallTile, Passes) {
  const Suite suite = workload_suite();
  const SmallTileCase& c = GetParam();
  expect_passes(suite, c.id,
                suite.resolve_axes("", {{"batch_size", c.batch},
                                        {"in_channels", c.in_channels},
                                        {"out_channels", c.out_channels},
                                        {"depth", 4},
                                        {"height", 4},
                                        {"width", 5}}));
}

std::string small_tile_name(const ::testing::TestParamInfo<SmallTileCase>& info) {
  const SmallTileCase& c = info.param;
  return std::string(c.id) + "_n" + std::to_string(c.batch) + "_cin" +
         std::to_string(c.in_channels) + "_cout" + std::to_string(c.out_channels);
}

// The default axes have 32 input channels; the tests above have 8 and 16.
// The input tile of every kernel grows with them (175 KB at 32 in the paired
// shape), and the wgmma kernels are compiled per number of K steps (input
// channels / 8), with a pipeline that differs with it: 3 and 4 steps here
// (3xTF32 accepts 3 at most: kernels/common/fp32_accumulation.cuh).
INSTANTIATE_TEST_SUITE_P(MoreInputChannels, FusedOnOneSmallTile,
                         ::testing::Values(SmallTileCase{"fused_tf32", 2, 32, 64},
                                           SmallTileCase{"fused_3xtf32", 2, 24, 64},
                                           SmallTileCase{"fused_tf32_wgmma", 2, 24, 64},
                                           SmallTileCase{"fused_tf32_wgmma", 2, 32, 64},
                                           SmallTileCase{"fused_3xtf32_wgmma", 2, 24, 64},
                                           SmallTileCase{"fused_tf32_bf16corr_wgmma", 2, 24, 64},
                                           SmallTileCase{"fused_tf32_bf16corr_wgmma", 2, 32, 64}),
                         small_tile_name);

// Output channels beyond 64 are further passes of the same CTA over its tile
// (kCoGroup channels each, with their own weights, bias and maxima), which
// every other test here, at 64 output channels, leaves out. Every fused
// candidate at two images, the paired shape (the wgmma kernels for the _wgmma
// candidates), and fused_tf32 at one image, its single-image shape.
std::vector<SmallTileCase> two_output_channel_passes() {
  std::vector<SmallTileCase> cases = {{"fused_tf32", 1, 16, 128}};
  for (const FusedCandidate& fused : kFused) cases.push_back({fused.id, 2, 16, 128});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(TwoOutputChannelPasses, FusedOnOneSmallTile, ::testing::ValuesIn(two_output_channel_passes()),
                         small_tile_name);

// The draws must keep exercising what the kernels distinguish: the
// single-image and the paired CTA shape, a pair with a missing image, and
// partial as well as full 2x2x2 tiles.
TEST(FusedCandidates, DrawsCoverBothCtaShapes) {
  const Suite suite = workload_suite();
  bool single = false, odd_pair = false, even_pair = false, partial = false, full = false;
  for (const Axes& axes : random_axes(suite, 3)) {
    const std::int64_t batch = axes.at("batch_size");
    single = single || batch == 1;
    odd_pair = odd_pair || (batch > 1 && batch % 2 == 1);
    even_pair = even_pair || (batch > 1 && batch % 2 == 0);
    for (const char* side : {"depth", "height", "width"}) {
      const std::int64_t pooled = (2 * axes.at(side) - 1) / 6;  // (n - 1) * 2 - 4 + 5, over 6
      partial = partial || pooled % 2 == 1;
      full = full || pooled % 2 == 0;
    }
  }
  EXPECT_TRUE(single);
  EXPECT_TRUE(odd_pair);
  EXPECT_TRUE(even_pair);
  EXPECT_TRUE(partial);
  EXPECT_TRUE(full);
}

// One test per drawn axes value and candidate, so CTest can run them in
// parallel (the largest draw takes half a minute for all five together).
struct DrawnCase {
  int draw;
  const char* id;
};

class FusedAtRandomAxes : public ::testing::TestWithParam<DrawnCase> {};

TEST_P(FusedAtRandomAxes, Passes) {
  const Suite suite = workload_suite();
  expect_passes(suite, GetParam().id, random_axes(suite, 3).at(static_cast<std::size_t>(GetParam().draw)));
}

// At one image the wgmma candidates run the single-image mma.sync kernels,
// and so do the two-plane ones at 8 input channels: those draws are left to
// the mma.sync candidates.
std::vector<DrawnCase> drawn_cases() {
  std::vector<DrawnCase> cases;
  const std::vector<Axes> drawn = drawn_overrides(3);
  for (int draw = 0; draw < 3; ++draw) {
    const Axes& axes = drawn[static_cast<std::size_t>(draw)];
    cases.push_back({draw, "fused_tf32"});
    cases.push_back({draw, "fused_3xtf32"});
    if (axes.at("batch_size") >= 2) cases.push_back({draw, "fused_tf32_wgmma"});
    if (axes.at("batch_size") >= 2 && axes.at("in_channels") >= 16) {
      cases.push_back({draw, "fused_3xtf32_wgmma"});
      cases.push_back({draw, "fused_tf32_bf16corr_wgmma"});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(SeededDraws, FusedAtRandomAxes, ::testing::ValuesIn(drawn_cases()),
                         [](const ::testing::TestParamInfo<DrawnCase>& info) {
                           return "draw" + std::to_string(info.param.draw) + "_" + info.param.id;
                         });

}  // namespace
}  // namespace kg
