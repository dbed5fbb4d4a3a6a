// Timing protocols (docs/runner.md): `kernelbench` (3 warm-ups, then a fixed
// number of trials, the figures published baselines use) and `adaptive`
// (after warm-up, sample until the relative standard error of the mean is
// under a target or a time budget is spent, as nvbench does).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <thread>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/throttle_rule.hpp"
#include "runner_internal.hpp"

namespace kg {

LatencyStats latency_statistics(std::vector<double> samples_ms, const std::string& protocol,
                                const std::string& clock, int warmups) {
  LatencyStats stats;
  stats.protocol = protocol;
  stats.clock = clock;
  stats.warmups = warmups;
  stats.n = static_cast<std::int64_t>(samples_ms.size());
  if (samples_ms.empty()) return stats;
  stats.samples_ms = samples_ms;  // in the order taken, before the sort below
  std::sort(samples_ms.begin(), samples_ms.end());
  const double n = static_cast<double>(samples_ms.size());
  stats.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / n;
  double squares = 0;
  for (double sample : samples_ms) squares += (sample - stats.mean_ms) * (sample - stats.mean_ms);
  // Sample standard deviation (n - 1), as torch.std and nvbench report it.
  stats.std_ms = samples_ms.size() > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
  stats.min_ms = samples_ms.front();
  stats.max_ms = samples_ms.back();
  const std::size_t middle = samples_ms.size() / 2;
  stats.median_ms = samples_ms.size() % 2 ? samples_ms[middle]
                                           : 0.5 * (samples_ms[middle - 1] + samples_ms[middle]);
  stats.cv = stats.mean_ms > 0 ? stats.std_ms / stats.mean_ms : 0.0;
  return stats;
}

void add_timing_round(CandidateResult& into, CandidateResult again) {
  if (is_failure(again.outcome) || !again.latency || !into.latency) {
    if (is_failure(again.outcome)) {
      detail::prefix_failures(again, "when run again to time it: ");
      into = std::move(again);
    }
    return;
  }
  const LatencyStats& first = *into.latency;
  std::vector<double> samples = first.samples_ms;
  samples.insert(samples.end(), again.latency->samples_ms.begin(), again.latency->samples_ms.end());
  LatencyStats merged = latency_statistics(std::move(samples), first.protocol, first.clock, first.warmups);
  merged.rounds = first.rounds + again.latency->rounds;
  merged.checked_samples = first.checked_samples + again.latency->checked_samples;
  const double checked = double(merged.checked_samples);
  merged.check_ms = checked > 0 ? (first.check_ms * double(first.checked_samples) +
                                   again.latency->check_ms * double(again.latency->checked_samples)) /
                                      checked
                                : 0.0;
  merged.overhead_ms = first.overhead_ms;
  merged.busy_after_ms = std::max(first.busy_after_ms, again.latency->busy_after_ms);  // the worse round
  // The clocks stay paired with the samples only if both rounds have them.
  const LatencyStats& second = *again.latency;
  if (first.sm_clock_mhz.size() == first.samples_ms.size() && second.sm_clock_mhz.size() == second.samples_ms.size() &&
      !first.sm_clock_mhz.empty() && !second.sm_clock_mhz.empty()) {
    merged.sm_clock_mhz = first.sm_clock_mhz;
    merged.sm_clock_mhz.insert(merged.sm_clock_mhz.end(), second.sm_clock_mhz.begin(), second.sm_clock_mhz.end());
  }
  merged.throttled_samples = first.throttled_samples + second.throttled_samples;
  merged.hold_expired_samples = first.hold_expired_samples + second.hold_expired_samples;
  merged.clock_event_reasons = first.clock_event_reasons;
  for (const std::string& reason : second.clock_event_reasons)
    if (std::find(merged.clock_event_reasons.begin(), merged.clock_event_reasons.end(), reason) ==
        merged.clock_event_reasons.end())
      merged.clock_event_reasons.push_back(reason);
  into.latency = std::move(merged);
}

void add_timing_round(RunResult& into, RunResult again) {
  for (CandidateResult& candidate : again.candidates) {
    auto same = std::find_if(into.candidates.begin(), into.candidates.end(),
                             [&](const CandidateResult& c) { return c.id == candidate.id; });
    if (same == into.candidates.end())
      into.candidates.push_back(std::move(candidate));
    else
      add_timing_round(*same, std::move(candidate));
  }
}

namespace detail {

void prefix_failures(CandidateResult& result, const std::string& context) {
  for (CheckResult& check : result.checks)
    if (is_failure(check.outcome)) check.message = context + check.message;
  decide(result);
}

void sleep_seconds(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

LatencyStats measure_latency(const std::function<void(int)>& warm_up, const std::function<TimedLaunch()>& take_sample,
                             const TimingOptions& options, bool slow_device, const std::string& clock,
                             const std::function<void(double)>& wait) {
  // Interpret mode is orders of magnitude slower than a GPU: a small budget
  // keeps CI fast while still giving a wall-clock figure.
  std::string protocol = options.protocol.empty() ? "adaptive" : options.protocol;
  if (protocol != "kernelbench" && protocol != "adaptive" && protocol != "none")
    throw Error("unknown timing protocol '" + protocol + "' (known: kernelbench, adaptive, none)");
  if (protocol == "none") return latency_statistics({}, protocol, clock, 0);

  const int warmups = options.warmups >= 0 ? options.warmups
                      : protocol == "kernelbench" ? 3
                      : slow_device             ? 0
                                                : 3;
  if (warmups > 0) warm_up(warmups);

  std::vector<double> samples;
  std::vector<int> clocks;
  std::int64_t discarded = 0, hold_expired = 0;
  std::uint64_t reasons_seen = 0;  // of every sample, kept or not
  // One sample, kept unless the clock was throttled. False once the
  // discards reach their limit: the protocol stops with what it kept.
  auto sample_once = [&] {
    const TimedLaunch sample = take_sample();
    if (sample.clock_event_reasons > 0) reasons_seen |= static_cast<std::uint64_t>(sample.clock_event_reasons);
    if (judge_throttle(sample, options.throttle_fraction).throttled) {
      ++discarded;
      if (discarded >= options.max_throttled_samples) return false;
      wait(options.throttle_wait_s);
      return true;
    }
    samples.push_back(sample.ms);
    clocks.push_back(sample.sm_clock_mhz);
    hold_expired += sample.hold_expired ? 1 : 0;
    return true;
  };
  auto finish = [&] {
    LatencyStats stats = latency_statistics(std::move(samples), protocol, clock, warmups);
    // Clocks travel only where every kept sample has one.
    if (std::all_of(clocks.begin(), clocks.end(), [](int mhz) { return mhz > 0; })) stats.sm_clock_mhz = clocks;
    stats.throttled_samples = discarded;
    // An idle GPU between samples says nothing of how the samples ran.
    stats.clock_event_reasons = clock_event_reason_names(reasons_seen & ~clock_event::kGpuIdle);
    stats.hold_expired_samples = hold_expired;
    return stats;
  };

  if (protocol == "kernelbench") {
    while (static_cast<int>(samples.size()) < options.trials)
      if (!sample_once()) break;
    return finish();
  }

  const double budget_s = options.budget_s >= 0 ? options.budget_s : slow_device ? 1.0 : 5.0;
  // On GPU take at least the KernelBench trial count (docs/runner.md);
  // on the cpu device two samples give a spread within the 1 s budget.
  const int min_samples = options.min_samples >= 0 ? options.min_samples : slow_device ? 2 : 100;
  // A minimum asked for is taken even beyond the device's default maximum.
  const int max_samples =
      std::max(options.max_samples >= 0 ? options.max_samples : slow_device ? 10 : 10000, options.min_samples);
  const auto start = std::chrono::steady_clock::now();
  while (static_cast<int>(samples.size()) < std::max(1, max_samples)) {
    if (!sample_once()) break;
    const int n = static_cast<int>(samples.size());
    if (n < std::min(min_samples, std::max(1, max_samples))) continue;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed >= budget_s) break;
    if (n >= 2) {
      const LatencyStats so_far = latency_statistics(samples, protocol, clock, warmups);
      const double relative_standard_error = so_far.cv / std::sqrt(static_cast<double>(n));
      if (relative_standard_error < options.target_rse) break;
    }
  }
  return finish();
}

}  // namespace detail
}  // namespace kg
