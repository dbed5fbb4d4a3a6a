// Inputs of dtype int64 and bool reach a candidate as their dtype lays them
// out (docs/suite-format.md, "dtype"), through the same checks as float32:
// the workload of tests/support/typed_suite.hpp, checked on the cpu device.
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

Candidate typed_candidate(const char* id, std::function<void(const LaunchArgs&)> launch) {
  return Candidate{.workload = "typed_inputs", .id = id, .precision = "fp32", .summary = "one thread",
                   .launch = std::move(launch)};
}

// The child's side of check_candidate finds a candidate in the registry.
const CandidateRegistrar registrars[] = {
    CandidateRegistrar(typed_candidate("direct",
                                       [](const LaunchArgs& args) {
                                         kg::launch(masked_cross_entropy, dim3(1), dim3(32), 0, args.stream,
                                                    args.in("logits"), args.in_bool("mask"),
                                                    args.in_int64("targets"), args.output,
                                                    args.axis("batch_size"), args.axis("num_classes"));
                                       })),
    // Reading the int64 targets as floats would read their bytes as garbage.
    CandidateRegistrar(typed_candidate("targets_as_floats",
                                       [](const LaunchArgs& args) { (void)args.in("targets"); })),
};

const Candidate& registered(const std::string& id) {
  for (const Candidate& candidate : candidate_registry())
    if (candidate.workload == "typed_inputs" && candidate.id == id) return candidate;
  throw Error("no test candidate " + id);
}

class TypedInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = std::filesystem::temp_directory_path() / ("kernelgate-typed-" + std::to_string(::getpid()) + ".json");
    std::ofstream(file_) << test_support::typed_suite_json();
    suite_ = load_suite(file_);
  }
  void TearDown() override { std::filesystem::remove(file_); }

  CandidateResult check(const Candidate& candidate) {
    auto device = open_device("cpu");
    RunOptions options;
    options.timing.protocol = "none";
    return check_candidate(suite_, candidate, *device, suite_.resolve_axes("ci"), options);
  }

  std::filesystem::path file_;
  Suite suite_;
};

TEST_F(TypedInputs, AKernelReadingEachTensorAsItsDtypePasses) {
  const CandidateResult result = check(registered("direct"));
  EXPECT_EQ(result.outcome, Outcome::passed) << result.message;
  bool equivalence_checked = false;
  for (const CheckResult& check : result.checks) equivalence_checked |= check.name == "equivalence";
  EXPECT_TRUE(equivalence_checked);
}

// The typed access refuses a tensor read as another dtype, naming both.
TEST_F(TypedInputs, ReadingATensorAsAnotherDtypeIsAnErrorNamingBoth) {
  const CandidateResult result = check(registered("targets_as_floats"));
  EXPECT_TRUE(is_failure(result.outcome)) << to_string(result.outcome);
  EXPECT_THAT(result.message, HasSubstr("candidate asked for tensor 'targets' as float32, it holds int64"));
}

}  // namespace
}  // namespace kg
