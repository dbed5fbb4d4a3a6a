// The checks of one candidate, decided in the parent from what its session
// observed (docs/runner.md, "What is checked, in order"): input set A, then a
// fresh set B, then B again, each checked for the contract and against the
// float64 reference (and, where that is sampled, every element against the
// workload's strict-FP32 GPU reference when it has one); then the timing,
// where every timed sample runs on inputs of its own and is checked as well.
//
// The candidate's code runs only on the other side of the session (its child
// process). The reference, the points compared and the tolerances stay here;
// what comes back are raw observations: times, scans for poison and
// non-finite values, guard bands, input hashes compared, output values at
// points picked here after the run.
#include <algorithm>
#include <cmath>
#include <chrono>
#include <random>
#include <sstream>
#include <unordered_set>

#include "candidate_host.hpp"
#include "kernelgate/detail/parallel.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/reference.hpp"
#include "kernelgate/detail/stream_audit_rule.hpp"
#include "kernelgate/detail/runner_testing.hpp"
#include "runner_internal.hpp"

#if defined(KG_INTERPRET)
#include "kernelgate/interpret/launch.hpp"
#include "kernelgate/interpret/tensor_core_arithmetic.hpp"
#endif

namespace kg {
namespace detail {
namespace {

// Points spot-checked after each timed sample, drawn fresh for every sample:
// a few suffice, since a skipped or replayed answer is wrong nearly
// everywhere and a candidate computing part of the output cannot know which
// part will be read. One sixty-fourth of the points of a checked run (64 by
// default), at least 8; 8 of an output compared whole, whose few points each
// read much of the inputs (l2_065's per-image sums at full size: 0.65 s a
// point on one core, each sample's inputs new).
std::int64_t timed_spot_checks(const RunOptions& options, bool whole) {
  return whole ? 8 : std::max<std::int64_t>(8, options.sample_points / 64);
}
// The parent's clock bounds what the child reports of its timed samples: a
// candidate's process may patch the child's timer, never the parent's. The
// round trip of a timed sample's run command, less the most the same
// command took with an empty kernel in the candidate's place (the harness's
// own share: fresh inputs, poison, scans), is time the candidate's call
// took at least. A child that reported under a quarter of it in every
// sample, with 2 ms and half the harness's share for the host's own noise
// (a busy CI machine delays every reply by a time slice or two), is a
// finding. Every sample, not the median: a patched timer lies each time,
// while a cold first call (a module loaded, interpret mode's first grid)
// or a descheduled child stretches one.
constexpr double kParentClockFactor = 4;
constexpr double kParentClockMarginMs = 2;
constexpr int kHarnessRuns = 3;  // empty-kernel run commands, the most of them kept
// The input sets of those commands: 2^62 + k, far from any timed sample's.
constexpr std::uint64_t kHarnessSets = std::uint64_t{1} << 62;

std::string judge_parent_clock(const std::vector<double>& child_ms, const std::vector<double>& round_trip_ms,
                               double harness_ms) {
  if (child_ms.empty() || child_ms.size() != round_trip_ms.size()) return "";
  double least_seen = round_trip_ms[0] - harness_ms;
  for (std::size_t i = 0; i < child_ms.size(); ++i) {
    const double seen = round_trip_ms[i] - harness_ms;
    if (seen <= kParentClockFactor * child_ms[i] + kParentClockMarginMs + 0.5 * harness_ms) return "";
    least_seen = std::min(least_seen, seen);
  }
  std::ostringstream message;
  message << "in every one of " << child_ms.size() << " samples the child reported under a quarter of what the "
          << "parent's clock saw of the candidate's call: a median of "
          << latency_statistics(child_ms, "child", "", 0).median_ms << " ms reported, at least " << least_seen
          << " ms seen (each round trip less at most " << harness_ms
          << " ms that the same command took with an empty kernel)";
  return message.str();
}

// Points the strict-FP32 GPU reference is checked at, against the float64
// reference, before its whole-output statistics are trusted.
std::int64_t strict_reference_checks(const RunOptions& options) {
  return std::max<std::int64_t>(8, options.sample_points / 4);
}

// Output elements and the reference there: what one comparison reads.
struct Points {
  std::vector<std::int64_t> indices;
  std::vector<double> want;
};

std::string format_number(double value) {
  std::ostringstream out;
  out.precision(9);
  out << value;
  return out.str();
}

std::string describe(const ErrorStats& stats, const Tolerance& tolerance, const std::string& precision,
                     const std::vector<std::int64_t>& shape) {
  std::ostringstream message;
  if (stats.non_finite) message << "non-finite values where the reference is finite; ";
  message << stats.mismatches << " of " << stats.checked << (stats.sampled ? " sampled" : "")
          << " points outside atol " << tolerance.atol << " + rtol " << tolerance.rtol << " (" << precision
          << ")";
  if (stats.first_mismatch_index >= 0)
    message << ", " << locate_mismatches(stats, shape) << "; first got " << format_number(stats.first_mismatch_got)
            << ", want " << format_number(stats.first_mismatch_want);
  message << "; max abs error" << (stats.non_finite ? " over the finite points " : " ")
          << format_number(stats.max_abs) << ", relative L2 " << format_number(stats.rel_l2);
  if (tolerance.rel_l2 > 0) message << " (bound " << tolerance.rel_l2 << ")";
  message << "; headroom " << format_number(stats.headroom()) << "x";
  return message.str();
}

// The rule an output is compared by, and what messages call it: the
// tolerance of the candidate's precision, or for an int64 output
// (positions, right or wrong) equality.
struct ComparisonRule {
  const Tolerance& tolerance;
  std::string name;
};

ComparisonRule comparison_rule(const Suite& suite, const std::string& precision) {
  static const Tolerance kExact{};
  if (suite.output().dtype == DType::float32) return {suite.tolerance(precision), precision};
  return {kExact, "exact: an int64 output"};
}

class CandidateChecker {
 public:
  CandidateChecker(const Suite& suite, const Candidate& candidate, const Axes& axes, const RunOptions& options,
                   const ReferencePoints& reference, const SessionRequest& request, const DeviceDescription& device,
                   CandidateSession& session)
      : suite_(suite), candidate_(candidate), axes_(axes), options_(options), reference_(reference),
        request_(request), interpreted_(device.interpreted), slow_(device.kernels_interpreted()),
        clock_(device.clock_name), session_(session),
        rule_(comparison_rule(suite, candidate.precision)),
        output_shape_(suite.shape(suite.output().name, axes)),
        point_picker_(std::random_device{}()) {}

  CandidateResult run() {
    CandidateResult result;
    result.id = candidate_.id;
    result.precision = candidate_.precision;
    result.kind = "candidate";
    if (interpreted_) result.thread_orders.push_back(request_.thread_order.empty() ? "forward" : request_.thread_order);

    try {
      if (!open(result)) return result;
      if (options_.model_blocks_per_launch > 0) {
        model_run(result);
        return result;
      }
      check_runs(result);
      result.checks.push_back(make_check(kContractCheck, Outcome::passed));
      result.checks.push_back(make_check(
          kEquivalenceCheck, Outcome::passed,
          strict_summary_.empty() ? std::string()
                                  : "every output element also within tolerance of the strict-FP32 GPU reference (" +
                                        strict_summary_ + ")"));
      // The latency check is the gate's, which judges these figures against
      // the baselines; a failed check of a timed output is this runner's.
      if (options_.timing.protocol != "none") result.latency = time_checked();
    } catch (const Finding& finding) {
      return failed_result(std::move(result), finding);
    } catch (const nlohmann::json::exception& e) {
      // A reply without the fields its command answers with: forged or garbled.
      return failed_result(std::move(result), Finding{Outcome::crashed, kIsolationCheck, "",
                                               std::string("its reply to the runner could not be read: ") + e.what()});
    }
    decide(result);
    return result;
  }

 private:
  // A reply read with its strict reader (child_channel.hpp): one with a
  // member missing, malformed or unknown was forged or garbled, the
  // candidate's crash like any reply that cannot be read.
  template <typename Reply>
  static Reply read_reply(const Message& reply, Reply (*read)(const Message&)) {
    try {
      return read(reply);
    } catch (const Error& e) {
      throw Finding{Outcome::crashed, kIsolationCheck, "", e.what()};
    }
  }

  // One command; a reply saying the candidate threw is its crash.
  Message call(Message message) {
    Message reply = session_.call(message);
    if (reply.header.contains("failed"))
      throw Finding{Outcome::crashed, kIsolationCheck, "", printable(reply.header["failed"].get<std::string>())};
    return reply;
  }

  bool open(CandidateResult& result) {
    const Message command = open_command({.workload = suite_.id,
                                          .suite_file = suite_.file.string(),
                                          .candidate = candidate_.id,
                                          .device = request_.device,
                                          .axes = axes_,
                                          .seed_a = input_set_seed(options_.seed, 0),
                                          .seed_b = input_set_seed(options_.seed, 1),
                                          .thread_order = request_.thread_order,
                                          .tensor_cores = request_.tensor_cores,
                                          .nonce = request_.nonce,
                                          .model = options_.model_blocks_per_launch > 0});
    const OpenReply reply = read_reply(call(command), read_open_reply);
    if (!reply.unsupported.empty()) {
      result.thread_orders.clear();
      result.checks.push_back(make_check(kSupportCheck, Outcome::not_supported, reply.unsupported));
      decide(result);
      return false;
    }
    if (reply.numel != reference_.numel)
      throw Error("the child of " + candidate_.id + " sees an output of " + std::to_string(reply.numel) +
                  " elements, the parent " + std::to_string(reference_.numel));
    // The suite's contract says which promises are checked.
    if (suite_.contract.no_aliasing && !reply.overlap.empty()) violation("output_not_overlapping", reply.overlap);
    return true;
  }

  // The contract after one launch, from the run command's reply. `timed`
  // failures of the output itself get the rule of timed runs.
  void check_contract(const RunReply& reply, const std::string& what, bool timed) {
    if (!reply.stream.empty())
      violation("launch_stream", what + ": a kernel ran outside the harness's stream: " + reply.stream);
    if (!reply.guards.empty()) violation("guard_bands", what + ": " + reply.guards);
    if (suite_.contract.no_mutation && !reply.inputs.empty())
      violation("inputs_unchanged", what + ": the candidate modified " + reply.inputs);
    if (reply.scan.poisoned > 0)
      violation(timed ? "timed_outputs" : "output_fully_written",
                what + ": " + std::to_string(reply.scan.poisoned) + " of " + std::to_string(reference_.numel) +
                    " output elements were never written (first at " +
                    describe_index(reply.scan.first_poisoned, output_shape_) + ")");
  }

  // Every element is scanned for NaN and infinity; where only sampled points
  // are compared, that scan is what sees the rest.
  void check_finite(const RunReply& reply, const std::string& what, bool timed) {
    if (reply.scan.non_finite == 0) return;
    const std::string message = what + ": " + std::to_string(reply.scan.non_finite) + " of " +
                                std::to_string(reference_.numel) +
                                " output elements are NaN or infinite (first at " +
                                describe_index(reply.scan.first_non_finite, output_shape_) + ")";
    if (timed) violation("timed_outputs", message);
    throw Finding{Outcome::incorrect, kEquivalenceCheck, "", message};
  }

  RunReply run_checked(const std::string& set, const std::string& what, bool count = false) {
    const RunReply reply =
        read_reply(call(run_command({.set = set, .timed = false, .audit = true, .count = count})), read_run_reply);
    check_contract(reply, what, false);
    return reply;
  }

  // Sampled outputs: `count` output elements never asked of this child
  // before, drawn from a source it cannot read (the first and the last
  // element with the first draw). The child learns a point only when asked
  // for its value, after the run, and is never asked it again: it cannot
  // compute only the points that will be read. Fewer when the output has
  // fewer left.
  std::vector<std::int64_t> fresh_points(std::int64_t count) {
    std::vector<std::int64_t> drawn;
    const std::int64_t left = reference_.numel - static_cast<std::int64_t>(asked_.size());
    count = std::min(count, left);
    if (asked_.empty() && count >= 2 && reference_.numel >= 2) drawn = {0, reference_.numel - 1};
    for (const std::int64_t index : drawn) asked_.insert(index);
    std::uniform_int_distribution<std::int64_t> pick(0, reference_.numel - 1);
    while (static_cast<std::int64_t>(drawn.size()) < count) {
      const std::int64_t index = pick(point_picker_);
      if (asked_.insert(index).second) drawn.push_back(index);
    }
    std::sort(drawn.begin(), drawn.end());
    return drawn;
  }

  // The float64 reference at these points of input set A or B.
  std::vector<double> reference_at(const std::vector<std::int64_t>& indices, const std::string& set) const {
    if (!reference_.whole) return reference_at(indices, set == "A" ? reference_.set_a : reference_.set_b);
    std::vector<double> want;
    want.reserve(indices.size());
    const auto& all = set == "A" ? reference_.want_a : reference_.want_b;
    for (const std::int64_t index : indices) want.push_back(all[static_cast<std::size_t>(index)]);
    return want;
  }

  // point(index) at each index, over the host's cores: each point is
  // evaluated on its own, so the split changes no value.
  template <typename Point>
  static std::vector<double> evaluate_points(const std::vector<std::int64_t>& indices, const Point& point) {
    std::vector<double> want(indices.size());
    parallel_for(static_cast<std::int64_t>(indices.size()), 4, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i)
        want[static_cast<std::size_t>(i)] = point(indices[static_cast<std::size_t>(i)]);
    });
    return want;
  }

  // The float64 reference at these points of `inputs`, from the definition.
  std::vector<double> reference_at(const std::vector<std::int64_t>& indices, const Tensors& inputs) const {
    return evaluate_points(indices,
                           [&](std::int64_t index) { return reference_point(suite_, axes_, inputs, index); });
  }

  // The same at these points of input set `seed` (a timed sample's), from
  // only the generated values they depend on.
  std::vector<double> reference_at_seed(const std::vector<std::int64_t>& indices, std::uint64_t seed) const {
    return evaluate_points(
        indices, [&](std::int64_t index) { return reference_point_of_seed(suite_, axes_, seed, index); });
  }

  // What a checked run of `set` is compared at: every element of a small
  // output, fresh points of a sampled one.
  Points checked_points(const std::string& set) {
    if (reference_.whole) return {reference_.indices, set == "A" ? reference_.want_a : reference_.want_b};
    Points points{fresh_points(options_.sample_points), {}};
    points.want = reference_at(points.indices, set);
    return points;
  }

  std::vector<float> values_at(const Points& points) {
    if (reference_.whole) return call(values_command({.all = true, .indices = {}})).values;
    return call(values_command({.all = false, .indices = points.indices})).values;
  }

  ErrorStats compare(const std::vector<float>& got, const std::vector<double>& want, const Points& points) const {
    return compare_to_reference(got, want, points.indices, rule_.tolerance, !reference_.whole);
  }

  // Where the float64 reference is sampled, the strict-FP32 GPU reference
  // covers every element, in the child (it runs on the device). It must
  // itself agree with the float64 points (fp32 tolerance) first, so a
  // broken reference can neither pass nor fail a candidate.
  void check_whole_output(const std::string& set, const std::string& what, CandidateResult& result) {
    if (reference_.whole || !find_strict_reference(suite_.id)) return;
    const std::vector<std::int64_t> indices = fresh_points(strict_reference_checks(options_));
    const Message reply = call(strict_command({.indices = indices,
                                               .atol = rule_.tolerance.atol,
                                               .rtol = rule_.tolerance.rtol,
                                               .rel_l2 = rule_.tolerance.rel_l2}));
    const StrictReply strict = read_reply(reply, read_strict_reply);
    strict_summary_ = strict.summary;
    const Tolerance& fp32 = suite_.tolerance("fp32");
    const ErrorStats reference_stats =
        compare_to_reference(reply.values, reference_at(indices, set), indices, fp32, true);
    if (!within_tolerance(reference_stats, fp32))
      throw Finding{Outcome::crashed, kIsolationCheck, "",
                    "the strict-FP32 GPU reference of " + suite_.id + " (" + strict_summary_ +
                        ") disagrees with the float64 reference on " + what + ": " +
                        describe(reference_stats, fp32, "fp32", output_shape_)};
    const ErrorStats& stats = strict.stats;
    if (!within_tolerance(stats, rule_.tolerance)) {
      result.error = stats;
      throw Finding{Outcome::incorrect, kEquivalenceCheck, "",
                    what + ", every element against the strict-FP32 GPU reference: " +
                        describe(stats, rule_.tolerance, rule_.name, output_shape_)};
    }
  }

  // `kernelgate model`: one sampled, counted run; nothing is checked.
  void model_run(CandidateResult& result) {
    const RunReply reply = read_reply(call(run_command({.set = "A",
                                                        .timed = false,
                                                        .audit = false,
                                                        .count = true,
                                                        .sample_blocks = options_.model_blocks_per_launch,
                                                        .hardware = options_.model_hardware})),
                                      read_run_reply);
    if (!reply.counters_unavailable.empty()) {
      result.counters_unavailable = reply.counters_unavailable;
      result.checks.push_back(make_check(kModelCheck, Outcome::skipped, "not counted: " + result.counters_unavailable));
    } else {
      result.counters = reply.counters;
      auto count = [&](const std::string& name) {
        for (const auto& [key, value] : reply.counters)
          if (key == name) return value;
        return std::uint64_t{0};
      };
      result.checks.push_back(make_check(kModelCheck, Outcome::skipped,
                                         "counted " + std::to_string(count("blocks_run")) + " of " +
                                             std::to_string(count("blocks")) +
                                             " blocks, scaled to the grid; not checked, not timed"));
    }
    decide(result);
  }

  void check_runs(CandidateResult& result) {
    // Set A: the answer must be right.
    const RunReply run_a = run_checked("A", "input set A", /*count=*/interpreted_ && options_.count_accesses);
    if (run_a.counted) {
      result.counters_unavailable = run_a.counters_unavailable;
      result.counters = run_a.counters;
    }
    const Points points_a = checked_points("A");
    const auto got_a = values_at(points_a);
    const ErrorStats stats_a = compare(got_a, points_a.want, points_a);
    result.error = stats_a;
    if (!within_tolerance(stats_a, rule_.tolerance))
      throw Finding{Outcome::incorrect, kEquivalenceCheck, "",
                    "input set A: " + describe(stats_a, rule_.tolerance, rule_.name, output_shape_)};
    check_finite(run_a, "input set A", false);
    check_whole_output("A", "input set A", result);

    // Set B: a candidate that caches or replays its previous result fails here.
    const RunReply run_b = run_checked("B", "input set B");
    const Points points_b = checked_points("B");
    const auto got_b = values_at(points_b);
    const ErrorStats stats_b = compare(got_b, points_b.want, points_b);
    if (!within_tolerance(stats_b, rule_.tolerance)) {
      result.error = stats_b;
      if (within_tolerance(compare(got_b, reference_at(points_b.indices, "A"), points_b), rule_.tolerance))
        violation("fresh_inputs",
                  "on fresh inputs (set B) the candidate returned the answer for the previous inputs (set A)");
      throw Finding{Outcome::incorrect, kEquivalenceCheck, "",
                    "input set B: " + describe(stats_b, rule_.tolerance, rule_.name, output_shape_)};
    }
    check_finite(run_b, "input set B", false);
    check_whole_output("B", "input set B", result);
    if (stats_b.max_abs > stats_a.max_abs) result.error = stats_b;

    // Set B again: repeated runs must agree within tolerance; bitwise
    // identity is reported (from the hash of the whole output). A sampled
    // output is read at fresh points, so the repeat is held to the reference
    // there, which the first run met.
    const RunReply again = run_checked("B", "input set B, repeated");
    const Points points_again = checked_points("B");
    const auto got_again = values_at(points_again);
    result.bitwise_deterministic = again.output_hash == run_b.output_hash;
    if (!*result.bitwise_deterministic) {
      const std::vector<double> first(got_b.begin(), got_b.end());
      const ErrorStats drift = reference_.whole ? compare(got_again, first, points_again)
                                                : compare(got_again, points_again.want, points_again);
      if (!within_tolerance(drift, rule_.tolerance))
        violation("repeat_agreement", "a repeated run on the same inputs disagrees with the first: " +
                                          describe(drift, rule_.tolerance, rule_.name, output_shape_));
    }
  }

  // The points of one timed sample, on its input set: fresh ones of a
  // sampled output; of a small one (whose every element the checked runs
  // read), a random few.
  Points spot_points(std::uint64_t seed) {
    std::vector<std::int64_t> indices;
    const std::int64_t count = timed_spot_checks(options_, reference_.whole);
    if (!reference_.whole) {
      indices = fresh_points(count);
    } else if (reference_.numel <= count) {
      indices = reference_.indices;
    } else {
      std::uniform_int_distribution<std::int64_t> pick(0, reference_.numel - 1);
      for (std::int64_t i = 0; i < count; ++i) indices.push_back(pick(point_picker_));
      std::sort(indices.begin(), indices.end());
      indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    }
    std::vector<double> want = reference_at_seed(indices, seed);
    return {std::move(indices), std::move(want)};
  }

  // One timed sample: inputs no earlier call saw (set 2 + k of the run's
  // seed, generated in the child when asked, and here only where the spot
  // checks read them), the launch between events (or the wall clock), then
  // the same contract as a checked run, the poison and non-finite scan of
  // every element and a spot check of fresh points against the reference
  // of those inputs. Returns the timed milliseconds and the clocks.
  TimedLaunch timed_sample() {
    const std::int64_t number = samples_taken_++;
    const std::uint64_t seed = input_set_seed(options_.seed, 2 + static_cast<std::uint64_t>(number));
    const std::string what = "timed sample " + std::to_string(number + 1) + " (inputs of its own)";
    const auto started = std::chrono::steady_clock::now();
    const RunReply reply = read_reply(
        call(run_command({.set = "fresh", .fresh_seed = seed, .timed = true, .audit = interpreted_})),
        read_run_reply);
    run_trips_ms_.push_back(milliseconds_since(started));
    check_contract(reply, what, true);
    check_finite(reply, what, true);
    const Points spots = spot_points(seed);
    const std::vector<float> got = call(values_command({.all = false, .indices = spots.indices})).values;
    const ErrorStats stats = compare_to_reference(got, spots.want, spots.indices, rule_.tolerance, true);
    // The checked runs hold the whole output to the relative L2 bound; a
    // few points get the spot rule's slack (runner.hpp).
    if (!within_spot_tolerance(stats, rule_.tolerance))
      violation("timed_outputs", what + " is not the answer for its inputs: " +
                                     describe(stats, rule_.tolerance, rule_.name, output_shape_));
    timed_ms_.push_back(reply.time_ms);
    busy_after_ms_.push_back(reply.busy_after_ms);
    TimedLaunch timing{.ms = reply.time_ms,
                       .sm_clock_mhz = clock_reading(reply.sm_clock_mhz),
                       .sm_clock_max_mhz = clock_reading(reply.sm_clock_max_mhz),
                       .sm_clock_set_mhz = clock_reading(reply.sm_clock_set_mhz),
                       .clock_event_reasons = reply.clock_event_reasons >= 0 ? reply.clock_event_reasons : -1,
                       .busy_after_ms = reply.busy_after_ms,
                       .hold_expired = reply.hold_expired};
    check_ms_ += std::max(0.0, milliseconds_since(started) - timing.ms);
    return timing;
  }

  static double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  // The most a timed sample's run command took with an empty kernel in the
  // candidate's place, over kHarnessRuns of them: the harness's own share of
  // a round trip, at its longest.
  double harness_round_trip_ms() {
    double most = 0;
    for (int k = 0; k < kHarnessRuns; ++k) {
      const auto started = std::chrono::steady_clock::now();
      call(run_command({.set = "fresh",
                        .fresh_seed = input_set_seed(options_.seed, kHarnessSets + static_cast<std::uint64_t>(k)),
                        .timed = true,
                        .audit = interpreted_,
                        .empty_kernel = true}));
      most = std::max(most, milliseconds_since(started));
    }
    return most;
  }

  // A clock of the child's reply: MHz from 1 to 100000, else unknown (0).
  static int clock_reading(std::int64_t mhz) { return mhz > 0 && mhz <= 100000 ? static_cast<int>(mhz) : 0; }

  LatencyStats time_checked() {
    LatencyStats stats = measure_latency(
        [&](int count) { call(count_command("warmup", {.count = count})); }, [&] { return timed_sample(); },
        options_.timing, slow_, clock_);
    // Work moved off the timed stream once timed: unaudited on a GPU, so seen
    // by how long the device stayed busy after the samples.
    const BusyAfterTiming busy_after = judge_busy_after_timing(timed_ms_, busy_after_ms_);
    if (!busy_after.finding.empty()) violation("launch_stream", "timed samples: " + busy_after.finding);
    const std::string parent_clock = judge_parent_clock(timed_ms_, run_trips_ms_, harness_round_trip_ms());
    if (!parent_clock.empty()) violation("parent_clock", "timed samples: " + parent_clock);
    stats.checked_samples = samples_taken_;
    stats.check_ms = samples_taken_ > 0 ? check_ms_ / samples_taken_ : 0.0;
    stats.overhead_ms = empty_kernel_ms();
    stats.busy_after_ms = busy_after.busy_median_ms;
    return stats;
  }

  // The median of a few empty kernels timed as the samples were: 16, or 4
  // where kernels run in interpret mode, whose figure informs nobody of a
  // GPU's overhead and whose timed samples each cost an L2 flush there
  // (the simulated GPU's).
  double empty_kernel_ms() {
    const int samples = slow_ ? 4 : 16;
    const OverheadReply reply = read_reply(call(count_command("overhead", {.count = samples})), read_overhead_reply);
    std::vector<double> times;
    for (const double time : reply.times_ms)
      if (std::isfinite(time) && time >= 0) times.push_back(time);
    if (times.empty()) return 0;
    return latency_statistics(std::move(times), "overhead", "", 0).median_ms;  // only the median is used
  }

  [[noreturn]] void violation(const std::string& rule, const std::string& message) {
    throw Finding{Outcome::contract_violation, kContractCheck, rule, rule + ": " + message};
  }

  const Suite& suite_;
  const Candidate& candidate_;
  const Axes& axes_;
  const RunOptions& options_;
  const ReferencePoints& reference_;
  const SessionRequest& request_;
  const bool interpreted_;  // the cpu device: thread orders, counters, timed samples audited
  const bool slow_;         // kernels in interpret mode: the timing protocols' small defaults
  const std::string clock_;
  CandidateSession& session_;
  const ComparisonRule rule_;
  const std::vector<std::int64_t> output_shape_;  // where mismatches are located
  std::mt19937_64 point_picker_;
  std::unordered_set<std::int64_t> asked_;  // sampled outputs: every index this child was asked
  std::string strict_summary_;
  std::int64_t samples_taken_ = 0;
  double check_ms_ = 0;
  std::vector<double> timed_ms_, busy_after_ms_;  // per timed sample, as the child measured them
  std::vector<double> run_trips_ms_;              // per timed sample, the run command's round trip here
};

}  // namespace

CandidateResult failed_result(CandidateResult result, const Finding& finding) {
  result.latency.reset();
  if (finding.check == kIsolationCheck) {
    result.checks = {make_check(kIsolationCheck, finding.outcome, finding.message)};
    decide(result);
    return result;
  }
  std::erase_if(result.checks, [&](const CheckResult& check) { return check.name == finding.check; });
  result.checks.push_back(make_check(finding.check, finding.outcome, finding.message, finding.rule));
  if (finding.check == kContractCheck &&
      std::none_of(result.checks.begin(), result.checks.end(),
                   [](const CheckResult& check) { return check.name == kEquivalenceCheck; }))
    result.checks.push_back(make_check(kEquivalenceCheck, Outcome::skipped, "not judged after a contract violation"));
  decide(result);
  return result;
}

ReferencePoints compute_reference_points(const Suite& suite, const Axes& axes, const RunOptions& options) {
  ReferencePoints points;
  points.numel = suite.numel(suite.output().name, axes);
  Tensors set_a = generate_inputs(suite, axes, input_set_seed(options.seed, 0));
  Tensors set_b = generate_inputs(suite, axes, input_set_seed(options.seed, 1));
  points.whole = points.numel <= options.full_reference_max_elements;
  if (points.whole) {
    points.indices.resize(static_cast<std::size_t>(points.numel));
    for (std::int64_t i = 0; i < points.numel; ++i) points.indices[static_cast<std::size_t>(i)] = i;
    points.want_a = reference_output(suite, axes, set_a).data;
    points.want_b = reference_output(suite, axes, set_b).data;
    return points;
  }
  // Each candidate's checker draws its own points and evaluates the
  // reference there (CandidateChecker::fresh_points).
  points.set_a = std::move(set_a);
  points.set_b = std::move(set_b);
  return points;
}

CandidateResult check_through_session(const Suite& suite, const Candidate& candidate, const Axes& axes,
                                      const RunOptions& options, const ReferencePoints& reference,
                                      const SessionRequest& request, const DeviceDescription& device,
                                      CandidateSession& session) {
  CandidateChecker checker(suite, candidate, axes, options, reference, request, device, session);
  return checker.run();
}

}  // namespace detail

CandidateResult check_candidate(const Suite& suite, const Candidate& candidate, Device& device, const Axes& axes,
                                const RunOptions& options) {
  const detail::ReferencePoints reference = detail::compute_reference_points(suite, axes, options);
  detail::InProcessSession session(device);
  detail::SessionRequest request{.device = device.name(), .thread_order = {}, .tensor_cores = {}, .nonce = {}};
#if defined(KG_INTERPRET)
  // In this process the order is the environment's, read at each launch.
  if (device.interpreted()) {
    request.thread_order = interp::to_string(interp::current_thread_order());
    request.tensor_cores = interp::to_string(interp::current_tensor_core_arithmetic());
  }
#endif
  return detail::check_through_session(suite, candidate, axes, options, reference, request, describe(device),
                                       session);
}

}  // namespace kg
