// Tensors of dtype int64 and bool reach a candidate as their dtype lays them
// out (docs/suite-format.md, "Dtypes"), through the same checks as float32:
// the workloads of tests/support/typed_suite.hpp, checked on the cpu device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/interpret/launch.hpp"
#include "kernelgate/detail/device.hpp"
#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/runner_testing.hpp"
#include "kernelgate/detail/suite.hpp"
#include "support/typed_suite.hpp"

namespace kg {
namespace {

using ::testing::HasSubstr;

// One thread: the mean over rows of -log_softmax(logits * mask)[row, target].
__global__ void masked_cross_entropy(const float* logits, const bool* mask, const std::int64_t* targets, float* loss,
                                     std::int64_t rows, std::int64_t classes) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  float total = 0;
  for (std::int64_t row = 0; row < rows; ++row) {
    float sum = 0;
    for (std::int64_t c = 0; c < classes; ++c) sum += expf(mask[row * classes + c] ? logits[row * classes + c] : 0.f);
    const std::int64_t at = row * classes + targets[row];
    total += logf(sum) - (mask[at] ? logits[at] : 0.f);
  }
  loss[0] = total / static_cast<float>(rows);
}

// The position of each row's first maximum, a thread per row.
__global__ void first_maximum(const float* x, std::int64_t* positions, std::int64_t rows, std::int64_t columns,
                              bool last_instead) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  std::int64_t best = 0;
  for (std::int64_t c = 1; c < columns; ++c) {
    const float v = x[row * columns + c], top = x[row * columns + best];
    if (v > top || (last_instead && v == top)) best = c;
  }
  positions[row] = best;
}

Candidate candidate(const char* workload, const char* id, std::function<void(const LaunchArgs&)> launch) {
  return Candidate{.workload = workload, .id = id, .precision = "fp32", .summary = "a test of dtypes",
                   .launch = std::move(launch)};
}

void launch_positions(const LaunchArgs& args, std::int64_t rows, bool last_instead) {
  kg::launch(first_maximum, dim3(1), dim3(64), 0, args.stream, args.in("x"), args.output_int64, rows,
             args.axis("num_classes"), last_instead);
}

// The child's side of check_candidate finds a candidate in the registry.
const CandidateRegistrar registrars[] = {
    CandidateRegistrar(candidate("typed_inputs", "direct",
                                 [](const LaunchArgs& args) {
                                   kg::launch(masked_cross_entropy, dim3(1), dim3(32), 0, args.stream,
                                              args.in("logits"), args.in_bool("mask"), args.in_int64("targets"),
                                              args.output, args.axis("batch_size"), args.axis("num_classes"));
                                 })),
    // Reading the int64 targets as floats would read their bytes as garbage.
    CandidateRegistrar(candidate("typed_inputs", "targets_as_floats",
                                 [](const LaunchArgs& args) { (void)args.in("targets"); })),
    CandidateRegistrar(candidate("positions", "first_maximum",
                                 [](const LaunchArgs& args) {
                                   launch_positions(args, args.axis("batch_size"), false);
                                 })),
    // Ties broken the other way: torch.argmax gives the first.
    CandidateRegistrar(candidate("positions", "last_maximum",
                                 [](const LaunchArgs& args) {
                                   launch_positions(args, args.axis("batch_size"), true);
                                 })),
    CandidateRegistrar(candidate("positions", "skips_last_row",
                                 [](const LaunchArgs& args) {
                                   launch_positions(args, args.axis("batch_size") - 1, false);
                                 })),
};

// The suite in a file of its own (the candidate's side reads it too),
// checked on the cpu device at ci.
CandidateResult check(const std::string& suite_json, const std::string& id) {
  struct File {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("kernelgate-typed-" + std::to_string(::getpid()) + ".json");
    ~File() { std::filesystem::remove(path); }
  } file;
  std::ofstream(file.path) << suite_json;
  const Suite suite = load_suite(file.path);
  for (const Candidate& registered : candidate_registry())
    if (registered.workload == suite.id && registered.id == id) {
      auto device = open_device("cpu");
      RunOptions options;
      options.timing.protocol = "none";
      return check_candidate(suite, registered, *device, suite.resolve_axes("ci"), options);
    }
  throw Error("no test candidate " + id);
}

bool checked(const CandidateResult& result, const std::string& name) {
  for (const CheckResult& check : result.checks)
    if (check.name == name) return true;
  return false;
}

TEST(TypedInputs, AKernelReadingEachTensorAsItsDtypePasses) {
  const CandidateResult result = check(test_support::typed_suite_json(), "direct");
  EXPECT_EQ(result.outcome, Outcome::passed) << result.message;
  EXPECT_TRUE(checked(result, "equivalence"));
}

// The typed access refuses a tensor read as another dtype, naming both.
TEST(TypedInputs, ReadingATensorAsAnotherDtypeIsAnErrorNamingBoth) {
  const CandidateResult result = check(test_support::typed_suite_json(), "targets_as_floats");
  EXPECT_TRUE(is_failure(result.outcome)) << to_string(result.outcome);
  EXPECT_THAT(result.message, HasSubstr("candidate asked for tensor 'targets' as float32, it holds int64"));
}

// An int64 output is compared exactly, whatever the candidate's precision
// allows a float output, and an element never written is found as in a
// float output.
TEST(IntegerOutput, PositionsAreRightOrWrong) {
  const CandidateResult right = check(test_support::positions_suite_json(), "first_maximum");
  EXPECT_EQ(right.outcome, Outcome::passed) << right.message;
  EXPECT_TRUE(checked(right, "equivalence"));
  const CandidateResult ties = check(test_support::positions_suite_json(), "last_maximum");
  EXPECT_EQ(ties.outcome, Outcome::incorrect) << ties.message;
  EXPECT_THAT(ties.message, HasSubstr("outside atol 0 + rtol 0 (exact: an int64 output)"));
  const CandidateResult unwritten = check(test_support::positions_suite_json(), "skips_last_row");
  EXPECT_EQ(unwritten.outcome, Outcome::contract_violation) << unwritten.message;
  EXPECT_THAT(unwritten.message, HasSubstr("1 of 4 output elements were never written (first at (i0=3)"));
}

}  // namespace
}  // namespace kg
