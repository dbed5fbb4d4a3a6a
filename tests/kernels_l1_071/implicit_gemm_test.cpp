// The implicit-GEMM candidates of l1_071_conv_transposed_2d in interpret mode.
//
// 1. Layout: inputs whose products and sums are exact in TF32 and FP32 (small
//    integers times powers of two) must give the float64 reference bit for
//    bit, whatever the accumulation order: this pins the mma fragment layout,
//    the weight flip and the halo indexing without any tolerance.
// 2. The runner's checks (equivalence with the suite's tolerance for the
//    candidate's precision, every contract check, two thread orders) at the
//    ci preset and at three legal axes values drawn with a fixed seed.
// The wgmma candidates (kWgmmaCandidateIds) run their wgmma kernel at stride 1
// and kernel size 3 only (the ci preset, the exact tests' stride-1 shapes, and
// draws of their own), the mma.sync kernel of their precision elsewhere.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernelgate/candidate.hpp"
#include "kernelgate/detail/device.hpp"
#include "kernelgate/detail/reference.hpp"
#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/runner_testing.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {
namespace {

constexpr const char* kWorkload = "l1_071_conv_transposed_2d";
const std::vector<std::string> kWgmmaCandidateIds = {
    "implicit_gemm_tf32_wgmma", "implicit_gemm_tf32_wgmma_8rows", "implicit_gemm_3xtf32_wgmma",
    "implicit_gemm_tf32_bf16corr_wgmma"};
const std::vector<std::string> kCandidateIds = [] {
  std::vector<std::string> ids = {"implicit_gemm_tf32", "implicit_gemm_3xtf32"};
  ids.insert(ids.end(), kWgmmaCandidateIds.begin(), kWgmmaCandidateIds.end());
  return ids;
}();

Suite load_workload() {
  return load_suite(std::filesystem::path(KERNELGATE_SOURCE_ROOT) / "suites" / "kernelbench" /
                    (std::string(kWorkload) + ".json"));
}

const Candidate& find_candidate(const std::string& id) {
  for (const Candidate* candidate : candidates_for(kWorkload))
    if (candidate->id == id) return *candidate;
  throw Error("candidate " + id + " of " + kWorkload + " is not linked into the test");
}

std::string describe(const Axes& axes) {
  std::string text;
  for (const auto& [name, value] : axes)
    text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return text;
}

// Axes small enough for interpret mode, covering what the tiles must handle:
// channel counts off the 8/32 grid, groups, more than 32 output channels,
// kernels 1..5, strides 1..3 (parity classes, some reached by no tap when
// stride > k), padding up to k, output_padding, one-pixel inputs.
Axes draw_axes(const Suite& suite, std::mt19937_64& rng) {
  auto pick = [&](int lo, int hi) {
    return static_cast<std::int64_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
  };
  for (;;) {
    Axes a;
    a["groups"] = pick(1, 3);
    a["in_channels"] = a["groups"] * pick(1, 12);
    a["out_channels"] = a["groups"] * pick(1, 40 / static_cast<int>(a["groups"]));
    a["kernel_size"] = pick(1, 5);
    a["batch_size"] = pick(1, 2);
    a["height_in"] = pick(1, 18);
    a["width_in"] = pick(1, 40);
    a["stride"] = pick(1, 3);
    a["padding"] = pick(0, static_cast<int>(a["kernel_size"]));
    a["output_padding"] = pick(0, static_cast<int>(a["stride"]) - 1);
    const std::int64_t extra = a["kernel_size"] + a["output_padding"] - 2 * a["padding"];
    const std::int64_t out_h = (a["height_in"] - 1) * a["stride"] + extra;
    const std::int64_t out_w = (a["width_in"] - 1) * a["stride"] + extra;
    if (out_h < 1 || out_w < 1) continue;
    // Bound the interpret-mode work (multiply-adds through the tiles).
    if (a["batch_size"] * out_h * out_w * a["kernel_size"] * a["kernel_size"] > 40000) continue;
    // At least one draw of each kind the fixed seed gives: see the test.
    return suite.resolve_axes("", a);
  }
}

// check_candidate is what the runner's child process does for one thread
// order (taken from KG_INTERPRET_ORDER, as run_workload sets it per child);
// run it in this process once per order.
void expect_candidate_passes(const Suite& suite, const std::string& id, const Axes& axes) {
  const Candidate& candidate = find_candidate(id);
  ASSERT_EQ(candidate.unsupported_reason(axes), "") << id << " at " << describe(axes);
  auto device = open_device("cpu");
  RunOptions options;
  options.timing.protocol = "none";
  for (const std::string order : {"forward", "reverse"}) {
    ASSERT_EQ(setenv("KG_INTERPRET_ORDER", order.c_str(), 1), 0);
    const CandidateResult result = check_candidate(suite, candidate, *device, axes, options);
    unsetenv("KG_INTERPRET_ORDER");
    SCOPED_TRACE(id + " at " + describe(axes) + ", thread order " + order + ": " +
                 result.message);
    EXPECT_EQ(result.thread_orders, std::vector<std::string>{order});
    EXPECT_FALSE(is_failure(result.outcome)) << to_string(result.outcome);
    bool equivalence_checked = false, contract_checked = false;
    for (const CheckResult& check : result.checks) {
      if (check.name == "equivalence") {
        equivalence_checked = true;
        EXPECT_EQ(check.outcome, Outcome::passed) << check.message;
      }
      if (check.name == "contract") {
        contract_checked = true;
        EXPECT_EQ(check.outcome, Outcome::passed) << check.rule << ": " << check.message;
      }
    }
    EXPECT_TRUE(equivalence_checked);
    EXPECT_TRUE(contract_checked);
    ASSERT_TRUE(result.error.has_value());
    EXPECT_TRUE(within_tolerance(*result.error, suite.tolerance(candidate.precision)));
    if (candidate.precision == "fp32") {
      EXPECT_TRUE(result.error->kernelbench_1e4);
    }
  }
}

TEST(L1071ImplicitGemm, EveryCandidateIsRegistered) {
  for (const std::string& id : kCandidateIds) {
    const Candidate& candidate = find_candidate(id);
    EXPECT_FALSE(candidate.summary.empty());
  }
  EXPECT_EQ(find_candidate("implicit_gemm_tf32").precision, "tf32");
  EXPECT_EQ(find_candidate("implicit_gemm_3xtf32").precision, "fp32");
  EXPECT_EQ(find_candidate("implicit_gemm_tf32_wgmma").precision, "tf32");
  EXPECT_EQ(find_candidate("implicit_gemm_tf32_wgmma_8rows").precision, "tf32");
  EXPECT_EQ(find_candidate("implicit_gemm_3xtf32_wgmma").precision, "fp32");
  EXPECT_EQ(find_candidate("implicit_gemm_tf32_bf16corr_wgmma").precision, "fp32");
}

// Launches each candidate directly on host buffers (interpret mode) with
// inputs whose products and partial sums are exact, and expects the float64
// reference exactly.
void expect_exact(const Suite& suite, const Axes& axes) {
  Tensors inputs = generate_inputs(suite, axes, 7);
  // x in {0, 1, 2, 3}, weight in {-1, -0.5, 0, 0.5, 1}: every product and
  // partial sum is exact in FP32, and TF32 represents every operand.
  std::mt19937 rng(2024);
  for (float& v : inputs.at("x").data) v = static_cast<float>(rng() % 4);
  for (float& v : inputs.at("weight").data) v = 0.5f * static_cast<float>(int(rng() % 5) - 2);
  const HostTensor<double> want = reference_output(suite, axes, inputs);
  // With width_in % 4 == 0 the candidates copy x 16 bytes at a time, which
  // needs x on 16 bytes (malloc gives that): make sure the test takes that path.
  if (axes.at("width_in") % 4 == 0) {
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(inputs.at("x").data.data()) % 16, 0u);
  }

  for (const std::string& id : kCandidateIds) {
    SCOPED_TRACE(id + " at " + describe(axes));
    const Candidate& candidate = find_candidate(id);
    ASSERT_EQ(candidate.unsupported_reason(axes), "");
    std::vector<float> out(static_cast<std::size_t>(want.numel()), std::nanf(""));
    LaunchArgs args;
    args.axes = axes;
    for (const TensorSpec& spec : suite.tensors) {
      if (spec.role == TensorRole::output) continue;
      const HostTensor<float>& tensor = inputs.at(spec.name);
      args.inputs.push_back({.name = spec.name, .shape = tensor.shape, .data = tensor.data.data()});
    }
    args.output = out.data();
    args.output_shape = want.shape;
    candidate.launch(args);
    cudaStreamSynchronize(args.stream);
    std::int64_t wrong = 0;
    std::size_t first_wrong = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (static_cast<double>(out[i]) != want.data[i]) {
        if (wrong == 0) first_wrong = i;
        ++wrong;
      }
    }
    EXPECT_EQ(wrong, 0) << "first wrong flat index " << first_wrong << ": got "
                        << out[first_wrong] << ", want " << want.data[first_wrong];
  }
}

// Two groups, 12 -> 34 channels (a partial second 32-channel block and a
// partial 8-channel chunk), a 3 x 3 kernel, padding 1, input rows of
// `width_in` columns, nine of them (row and column tails).
Axes two_group_axes(std::int64_t width_in) {
  return {{"batch_size", 2}, {"in_channels", 12}, {"out_channels", 34}, {"groups", 2},
          {"kernel_size", 3}, {"height_in", 9}, {"width_in", width_in}, {"padding", 1}};
}

TEST(L1071ImplicitGemm, ExactInputsGiveTheReferenceBitForBit) {
  const Suite suite = load_workload();
  Axes axes = two_group_axes(37);  // output 9 x 37
  expect_exact(suite, suite.resolve_axes("", axes));
  // The same with stride 2 and output_padding 1: four parity classes with
  // 2 x 2, 2 x 1, 1 x 2 and 1 x 1 taps.
  axes["stride"] = 2;
  axes["output_padding"] = 1;
  expect_exact(suite, suite.resolve_axes("", axes));
}

TEST(L1071ImplicitGemm, SixteenByteCopiesGiveTheReferenceBitForBit) {
  // Rows of 36 floats start on 16 bytes: the stages are copied 16 bytes at a
  // time, from the multiple of 4 before each halo (3 columns early with
  // padding 1, 2 with padding 0; per class with stride 2).
  const Suite suite = load_workload();
  Axes axes = two_group_axes(36);
  expect_exact(suite, suite.resolve_axes("", axes));
  axes["padding"] = 0;
  expect_exact(suite, suite.resolve_axes("", axes));
  axes["stride"] = 2;
  axes["output_padding"] = 1;
  expect_exact(suite, suite.resolve_axes("", axes));
  // And every check of the runner, whose buffers are 64-byte aligned.
  const Axes ci_on_quads = suite.resolve_axes("ci", {{"width_in", 36}});
  for (const std::string& id : kCandidateIds) expect_candidate_passes(suite, id, ci_on_quads);
}

// At the ci preset itself every candidate runs in the workload test
// (l1_071_conv_transposed_2d.cpu, both thread orders, gated), and
// reports.fp32_within_kernelbench_1e4 holds its report to the checks above.

TEST(L1071ImplicitGemm, PassesEveryCheckAtRandomLegalAxes) {
  const Suite suite = load_workload();
  std::mt19937_64 rng(71);
  for (int draw = 0; draw < 3; ++draw) {
    const Axes axes = draw_axes(suite, rng);
    for (const std::string& id : kCandidateIds) expect_candidate_passes(suite, id, axes);
  }
}

// The wgmma kernel's own draws (stride 1, kernel 3). Seed 90 gives groups of
// 17 and 12 input channels (3 and 2 chunks: the pipeline across chunks), 22
// and 40 output channels per group (the latter two channel blocks), outputs
// of 10 x 77 and 4 x 79 (several row and column tiles, with tails) and 3 x 3.
TEST(L1071ImplicitGemm, WgmmaKernelPassesEveryCheckAtRandomStrideOneAxes) {
  const Suite suite = load_workload();
  std::mt19937_64 rng(90);
  auto pick = [&](int lo, int hi) {
    return static_cast<std::int64_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
  };
  for (int draw = 0; draw < 3; ++draw) {
    Axes a;
    a["groups"] = pick(1, 2);
    a["in_channels"] = a["groups"] * pick(1, 20);
    a["out_channels"] = a["groups"] * pick(1, 40);
    a["batch_size"] = pick(1, 2);
    a["height_in"] = pick(1, 9);
    a["width_in"] = pick(1, 100);
    a["padding"] = pick(0, 3);
    if (a["height_in"] + 2 - 2 * a["padding"] < 1 || a["width_in"] + 2 - 2 * a["padding"] < 1)
      a["padding"] = 0;
    for (const std::string& id : kWgmmaCandidateIds)
      expect_candidate_passes(suite, id, suite.resolve_axes("", a));
  }
}

TEST(L1071ImplicitGemm, PassesEveryCheckWithStrideLargerThanKernel) {
  // Stride 3 > k = 2: a third of the rows and columns are reached by no tap
  // and must still be written (zeros); output_padding adds a last such row.
  const Suite suite = load_workload();
  const Axes axes = suite.resolve_axes(
      "", {{"batch_size", 1}, {"in_channels", 5}, {"out_channels", 6}, {"kernel_size", 2},
           {"height_in", 4}, {"width_in", 7}, {"stride", 3}, {"padding", 1},
           {"output_padding", 2}});
  for (const std::string& id : kCandidateIds) expect_candidate_passes(suite, id, axes);
}

TEST(L1071ImplicitGemm, ReportsWhatItDoesNotSupport) {
  const Suite suite = load_workload();
  const Axes huge_kernel = suite.resolve_axes("ci", {{"in_channels", 512}, {"kernel_size", 15}});
  for (const std::string& id : kCandidateIds) {
    const Candidate& candidate = find_candidate(id);
    EXPECT_NE(candidate.unsupported_reason(huge_kernel).find("shared memory"), std::string::npos);
    EXPECT_EQ(candidate.unsupported_reason(suite.resolve_axes("")), "");
    EXPECT_EQ(candidate.unsupported_reason(suite.resolve_axes("ci", {{"stride", 8}})), "");
  }
}

}  // namespace
}  // namespace kg
