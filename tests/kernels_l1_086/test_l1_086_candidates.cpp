// Both fused candidates of l1_086_conv_depthwise_separable_2d run through the
// runner's in-process check (equivalence against the float64 reference and
// every contract check) in interpret mode, under two thread orders, at the
// `ci` preset, at three legal axes drawn with a fixed seed, and at two chosen
// shapes that reach the paths the others may miss (16-byte loads with float4
// stores; the generic depthwise path with a second output-channel block).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernelgate/candidate.hpp"
#include "kernelgate/detail/device.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/runner_testing.hpp"
#include "kernelgate/detail/suite.hpp"

namespace {

constexpr const char* kWorkload = "l1_086_conv_depthwise_separable_2d";

const kg::Suite& suite() {
  static const kg::Suite loaded = kg::find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), kWorkload);
  return loaded;
}

const kg::Candidate& candidate(const std::string& id) {
  for (const kg::Candidate* c : kg::candidates_for(kWorkload))
    if (c->id == id) return *c;
  throw kg::Error(std::string("candidate ") + id + " of " + kWorkload + " is not linked in");
}

std::string describe(const kg::Axes& axes) {
  std::ostringstream out;
  for (const auto& [name, value] : axes) out << name << '=' << value << ' ';
  return out.str();
}

struct AxesCase {
  std::string name;
  kg::Axes axes;
};

// Small shapes (interpret mode runs every thread as a fiber), drawn over every
// axis the candidates accept, kept only when the suite calls them legal.
std::vector<AxesCase> random_legal_axes(int count) {
  std::mt19937_64 rng(0x1086'5eedULL);  // fixed: the same cases on every machine
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  std::vector<AxesCase> cases;
  while (static_cast<int>(cases.size()) < count) {
    kg::Axes overrides{{"batch_size", pick(1, 2)},         {"in_channels", pick(1, 20)},
                       {"out_channels", pick(1, 48)}, {"kernel_size", 2 * pick(0, 2) + 1},
                       {"height", pick(1, 14)},       {"width", pick(1, 44)},
                       {"stride", pick(1, 2)},        {"padding", pick(0, 2)},
                       {"dilation", pick(1, 2)}};
    try {
      cases.push_back(
          {"random" + std::to_string(cases.size()), suite().resolve_axes("", overrides)});
    } catch (const kg::Error&) {
      // The dilated kernel does not fit the padded input: not a legal shape, draw again.
    }
  }
  return cases;
}

std::vector<AxesCase> axes_under_test() {
  std::vector<AxesCase> cases{{"ci", suite().resolve_axes("ci")}};
  for (auto& c : random_legal_axes(3)) cases.push_back(std::move(c));
  // width % 4 == 0: 16-byte cp.async rows, float4 output stores, two tiles along the width.
  cases.push_back({"aligned_rows", suite().resolve_axes("ci", {{"batch_size", 1},
                                                               {"in_channels", 16},
                                                               {"out_channels", 24},
                                                               {"height", 6},
                                                               {"width", 40}})});
  // Generic depthwise (k=5, stride 2, dilation 2), cin not a multiple of 8,
  // cout above one block of 128 and not a multiple of 16.
  cases.push_back({"generic_two_cout_blocks", suite().resolve_axes("", {{"batch_size", 1},
                                                                        {"in_channels", 11},
                                                                        {"out_channels", 136},
                                                                        {"kernel_size", 5},
                                                                        {"height", 9},
                                                                        {"width", 21},
                                                                        {"stride", 2},
                                                                        {"padding", 3},
                                                                        {"dilation", 2}})});
  return cases;
}

// Interpret mode reads the thread order from KG_INTERPRET_ORDER at each launch
// (the runner sets it per child process); restored when the scope ends.
class ScopedThreadOrder {
 public:
  explicit ScopedThreadOrder(const std::string& order) {
    if (const char* old = std::getenv(kVariable)) previous_ = old;
    ::setenv(kVariable, order.c_str(), 1);
  }
  ~ScopedThreadOrder() {
    if (previous_.empty())
      ::unsetenv(kVariable);
    else
      ::setenv(kVariable, previous_.c_str(), 1);
  }
  ScopedThreadOrder(const ScopedThreadOrder&) = delete;
  ScopedThreadOrder& operator=(const ScopedThreadOrder&) = delete;

 private:
  static constexpr const char* kVariable = "KG_INTERPRET_ORDER";
  std::string previous_;
};

class L1086Candidates : public ::testing::TestWithParam<std::string> {};

TEST_P(L1086Candidates, PassesEveryCheckUnderTwoThreadOrders) {
  if (!kg::cpu_device_supported()) GTEST_SKIP() << "this build has no interpret mode";
  const kg::Candidate& c = candidate(GetParam());
  auto device = kg::open_device("cpu");
  kg::RunOptions options;
  options.timing.protocol = "none";
  const kg::Tolerance& tolerance = suite().tolerance(c.precision);
  const std::vector<AxesCase> cases = axes_under_test();
  // Two thread orders, as the runner's default; a missing barrier or a read of
  // another warp's unfinished shared data shows up in one of them.
  for (const std::string order : {"forward", "reverse"}) {
    ScopedThreadOrder scoped(order);
    for (const AxesCase& ac : cases) {
      SCOPED_TRACE(order + " " + ac.name + ": " + describe(ac.axes));
      ASSERT_EQ(c.unsupported_reason(ac.axes), "") << "legal axes the kernel is meant to support";
      const kg::CandidateResult result = kg::check_candidate(suite(), c, *device, ac.axes, options);
      EXPECT_EQ(result.outcome, kg::Outcome::passed)
          << kg::to_string(result.outcome) << ": " << result.message;
      for (const kg::CheckResult& check : result.checks)
        EXPECT_FALSE(kg::is_failure(check.outcome))
            << check.name << " " << kg::to_string(check.outcome) << " [" << check.rule << "] "
            << check.message;
      ASSERT_TRUE(result.error.has_value()) << "no equivalence statistics";
      EXPECT_TRUE(kg::within_tolerance(*result.error, tolerance))
          << "max_abs " << result.error->max_abs << " rel_l2 " << result.error->rel_l2;
      EXPECT_FALSE(result.error->sampled) << "small shapes are compared whole";
      EXPECT_GT(result.error->checked, 0);
      if (c.precision == "fp32") {  // FP32-faithful: KernelBench's current fp32 rule
        EXPECT_TRUE(result.error->kernelbench_1e4) << "max_abs " << result.error->max_abs;
      }
      EXPECT_EQ(result.thread_orders, std::vector<std::string>{order});
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fused, L1086Candidates, ::testing::Values("fused_tf32", "fused_fp32"),
                         [](const auto& info) { return info.param; });

TEST(L1086Support, DefaultsAndCiAreSupported) {
  for (const char* id : {"fused_tf32", "fused_fp32"}) {
    EXPECT_EQ(candidate(id).unsupported_reason(suite().resolve_axes("")), "") << id;
    EXPECT_EQ(candidate(id).unsupported_reason(suite().resolve_axes("ci")), "") << id;
    EXPECT_EQ(candidate(id).workspace_bytes(suite().resolve_axes("")), 0u) << id;
  }
}

TEST(L1086Support, TooLargeAnInputTileIsRefusedWithAReason) {
  // kernel 15 dilated by 8 spans 113 input rows per tile: far beyond shared memory.
  const kg::Axes axes = suite().resolve_axes(
      "", {{"kernel_size", 15}, {"dilation", 8}, {"padding", 16}, {"height", 512}, {"width", 512}});
  for (const char* id : {"fused_tf32", "fused_fp32"}) {
    const std::string reason = candidate(id).unsupported_reason(axes);
    EXPECT_NE(reason.find("shared memory"), std::string::npos) << id << ": '" << reason << "'";
  }
}

}  // namespace
