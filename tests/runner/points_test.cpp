// What the child learns of the points it is checked at: nothing before it is
// asked for their values, after the run, and never the same point twice, so
// a candidate cannot compute only the points that will be read. Every
// command the parent sends is recorded on the way to an in-process host.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "candidate_host.hpp"
#include "kernelgate/detail/device.hpp"
#include "kernelgate/interpret/counters.hpp"
#include "kernelgate/detail/runner.hpp"
#include "runner_internal.hpp"
#include "test_candidates.hpp"

namespace kg::testing {
namespace {

// Forwards every command to an in-process host on the cpu device, keeping
// what was sent and how much more global memory the host held after each
// strict command than before it (the cpu device registers every live buffer).
class RecordingSession final : public detail::CandidateSession {
 public:
  explicit RecordingSession(Device& device) : host_(device) {}
  detail::Message call(const detail::Message& command) override {
    sent.push_back(command.header);
    const std::size_t before = interp::registered_global_bytes();
    detail::Message reply = host_.call(command);
    if (command.header.at("command") == "strict") grown_by_strict.push_back(interp::registered_global_bytes() - before);
    return reply;
  }
  std::vector<nlohmann::ordered_json> sent;
  std::vector<std::size_t> grown_by_strict;

 private:
  detail::InProcessSession host_;
};

const Candidate& oracle() {
  for (const Candidate* candidate : candidates_for(kTestWorkload))
    if (candidate->id == "oracle") return *candidate;
  throw Error("no oracle test candidate");
}

// The oracle checked at the tiny shape (an output of 210 elements) with its
// output sampled, as at full size, at 16 points a checked run; every command
// recorded. Timed under `protocol`.
std::vector<nlohmann::ordered_json> checked_sampled(const std::string& protocol,
                                                   std::vector<std::size_t>* grown_by_strict = nullptr) {
  const Suite suite = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), kTestWorkload);
  const Axes axes = suite.resolve_axes("ci", tiny_axes());
  RunOptions options;
  options.full_reference_max_elements = 100;
  options.sample_points = 16;
  options.timing.protocol = protocol;
  const detail::ReferencePoints reference = detail::compute_reference_points(suite, axes, options);
  auto device = open_device("cpu");
  RecordingSession session(*device);
  const detail::SessionRequest request{.device = device->name(), .thread_order = {}, .tensor_cores = {}, .nonce = {}};
  const CandidateResult result =
      detail::check_through_session(suite, oracle(), axes, options, reference, request, describe(*device), session);
  EXPECT_EQ(result.outcome, Outcome::passed) << result.message;
  EXPECT_EQ(result.latency.has_value(), protocol != "none");
  if (grown_by_strict) *grown_by_strict = session.grown_by_strict;
  return session.sent;
}

TEST(ComparedPoints, NoneIsSentBeforeItsValueIsAskedAndNoneTwice) {
  std::map<std::int64_t, int> asked;  // index -> times sent
  std::map<std::string, int> commands;
  bool ran = false;
  for (const auto& header : checked_sampled("adaptive")) {  // timed samples too, each spot-checked
    const std::string command = header.at("command").get<std::string>();
    ++commands[command];
    if (command == "run") ran = true;
    if (!header.contains("indices")) continue;
    EXPECT_TRUE(command == "values" || command == "strict") << command << " carries indices";
    EXPECT_TRUE(ran) << command << " sent indices before the first run";
    for (const auto& index : header.at("indices")) ++asked[index.get<std::int64_t>()];
  }
  for (const auto& [index, times] : asked) EXPECT_EQ(times, 1) << "index " << index << " was asked " << times << " times";
  // Every checked run (A, B, B again) read 16 points, the strict reference
  // was checked twice at 8, and every timed sample at 8: all distinct. (The
  // three runs with an empty kernel, which time the harness's own share of
  // a round trip, read none.)
  const int timed = commands["run"] - 3 - 3;
  ASSERT_GE(timed, 2);
  EXPECT_EQ(static_cast<int>(asked.size()), 3 * 16 + 2 * 8 + timed * 8);
  EXPECT_EQ(commands["strict"], 2);
}

// The strict-FP32 reference is compared, then poisoned and freed, before the
// candidate's next call: after each strict command the child holds no more
// memory than before it.
TEST(StrictReferenceMemory, IsFreedAfterEachComparison) {
  std::vector<std::size_t> grown;
  checked_sampled("none", &grown);
  ASSERT_EQ(grown.size(), 2u);  // sets A and B
  for (const std::size_t bytes : grown) EXPECT_EQ(bytes, 0u) << "left registered after a strict command";
}

}  // namespace
}  // namespace kg::testing
