// The gate on simulated noise: how often each rule fails an unchanged kernel
// and how often it catches a real slowdown. A benchmark, not a test: it
// prints the table of docs/gate-statistics.md (run it to refresh the table).
//
//   cmake --build --preset cpu --target gate_simulation
//   build/cpu/tests/report/gate_simulation [RUNS_PER_CELL]
//
// Each simulated comparison: a stored run (the baseline) and a new run of a
// kernel whose true latency is (1 + slowdown) times the stored one, each with
// the cudnn_eager samples of its own run, drawn under one noise model and
// sampled as the adaptive protocol does (at least 100 samples, until the
// relative standard error is under 1%, at most kMaxSamples). Both rules are
// the shipped gate, kg::evaluate_gate: the old one (mean and std) on records
// without their samples, as version 1 baseline files hold them, the new one
// (kg::compare_samples) on records with them, re-timing an inconclusive
// candidate up to kMaxRounds rounds in all, as `kernelgate run` does.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernelgate/detail/gate.hpp"
#include "kernelgate/detail/runner.hpp"
#include "kernelgate/detail/sample_comparison.hpp"

namespace {

using Rng = std::mt19937_64;

constexpr int kMinSamples = 100;        // the adaptive protocol's minimum on a GPU
constexpr double kTargetRse = 0.01;     // its stopping rule
constexpr int kMaxSamples = 2000;       // about 5 s of budget at 2.5 ms a sample
constexpr int kMaxRounds = 3;           // the new rule's timing rounds at most
constexpr double kCandidateMs = 1.0;    // nominal latencies
constexpr double kEagerMs = 1.5;

// A noise model: what one run does to the latency of each sample. `run`
// holds what is fixed for a run (a drift of the whole machine, where a
// throttled stretch starts).
struct RunState {
  double drift = 1;
  int throttle_start = -1;
};
struct NoiseModel {
  const char* name;
  const char* what;
  std::function<RunState(Rng&)> start_run;
  std::function<double(Rng&, const RunState&, int index)> factor;
};

double normal(Rng& rng, double sigma) { return std::normal_distribution<double>(0.0, sigma)(rng); }
double uniform(Rng& rng) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng); }

std::vector<NoiseModel> noise_models() {
  auto plain = [](Rng&) { return RunState{}; };
  return {
      {"gaussian_1pct", "each sample 1% Gaussian noise", plain,
       [](Rng& rng, const RunState&, int) { return 1 + normal(rng, 0.01); }},
      {"lognormal_heavy_tail", "log-normal body (sigma 5%), 2% of samples slower by an exponential (mean +100%)",
       plain,
       [](Rng& rng, const RunState&, int) {
         double f = std::exp(normal(rng, 0.05));
         if (uniform(rng) < 0.02) f *= 1 + std::exponential_distribution<double>(1.0)(rng);
         return f;
       }},
      {"outliers_3pct_3x", "1% Gaussian, and 3% of samples 3x slower", plain,
       [](Rng& rng, const RunState&, int) { return (uniform(rng) < 0.03 ? 3.0 : 1.0) * (1 + normal(rng, 0.01)); }},
      {"throttled_stretch", "1% Gaussian, and a stretch of 10% of the run 15% slower (SM clock at 87%)",
       [](Rng& rng) { return RunState{1, int(uniform(rng) * 0.9 * kMinSamples)}; },
       [](Rng& rng, const RunState& run, int index) {
         const bool throttled = run.throttle_start >= 0 && index >= run.throttle_start &&
                                index < run.throttle_start + kMinSamples / 10;
         return (throttled ? 1.15 : 1.0) * (1 + normal(rng, 0.01));
       }},
      {"drift_8pct", "1% Gaussian, the whole run (candidate and cudnn_eager) up to 8% slower", [](Rng& rng) {
         return RunState{1 + 0.08 * uniform(rng), -1};
       },
       [](Rng& rng, const RunState& run, int) { return run.drift * (1 + normal(rng, 0.01)); }},
      {"bimodal", "two modes 6% apart, half the samples each, 0.5% Gaussian", plain,
       [](Rng& rng, const RunState&, int) { return (uniform(rng) < 0.5 ? 1.0 : 1.06) * (1 + normal(rng, 0.005)); }},
  };
}

// Samples of one kernel in one run, until the adaptive protocol stops.
std::vector<double> adaptive_samples(Rng& rng, const NoiseModel& model, const RunState& run, double latency_ms) {
  std::vector<double> samples;
  double sum = 0, squares = 0;
  while (int(samples.size()) < kMaxSamples) {
    const double sample = latency_ms * model.factor(rng, run, int(samples.size()));
    samples.push_back(sample);
    sum += sample;
    squares += sample * sample;
    const double n = double(samples.size());
    if (n < kMinSamples) continue;
    const double mean = sum / n;
    const double std = std::sqrt(std::max(0.0, (squares - n * mean * mean) / (n - 1)));
    if (std / mean / std::sqrt(n) < kTargetRse) break;
  }
  return samples;
}

struct Timed {
  std::vector<double> candidate, eager;
};
Timed time_run(Rng& rng, const NoiseModel& model, const RunState& run, double slowdown) {
  return {adaptive_samples(rng, model, run, kCandidateMs * (1 + slowdown)), adaptive_samples(rng, model, run, kEagerMs)};
}

// The gate's latency outcome for the stored record against this run; with
// keep_samples false, both sides are statistics only (the mean-and-std rule).
kg::Outcome gate_outcome(const Timed& stored, const Timed& now, bool keep_samples) {
  auto stats = [&](const std::vector<double>& samples) {
    kg::LatencyStats latency = kg::latency_statistics(samples, "adaptive", "cuda_event", 3);
    if (!keep_samples) latency.samples_ms.clear();
    return latency;
  };
  kg::RunResult run;
  run.workload = "l0_000_simulated";
  run.hardware = "h100-sxm";
  run.identity = std::string(64, 'a');
  run.axes = {{"n", 1}};
  run.started_at = "2026-03-10T12:00:00Z";
  kg::BaselineFile file;
  file.workload = run.workload;
  file.hardware = run.hardware;
  for (const std::string id : {"candidate", "cudnn_eager"}) {
    const bool eager = id == std::string(kg::kEagerBaselineId);
    kg::CandidateResult result;
    result.id = id;
    result.precision = "fp32";
    result.outcome = kg::Outcome::passed;
    result.latency = stats(eager ? now.eager : now.candidate);
    run.candidates.push_back(result);
    kg::BaselineRecord record;
    record.implementation = id;
    record.precision = "fp32";
    record.latency = stats(eager ? stored.eager : stored.candidate);
    record.latency.samples_ms = kg::stored_samples(record.latency.samples_ms);
    if (!eager) record.ratio_to_eager = record.latency.mean_ms / stats(stored.eager).mean_ms;
    record.observed = "2026-03-09";
    record.workload_identity = run.identity;
    record.axes = run.axes;
    file.records.push_back(record);
  }
  file.ranking = kg::rank_records(file.records);
  kg::GateOptions options;
  options.today_days = *kg::iso_date_days("2026-03-10");
  const kg::GateVerdict verdict = kg::evaluate_gate(run, &file, options);
  return verdict.find("candidate")->latency.outcome;
}

struct Cell {
  int mean_std_regressed = 0, mean_std_unreliable = 0, mean_std_passed = 0;
  int samples_regressed = 0, samples_passed = 0, samples_inconclusive = 0;
  long samples = 0, rounds = 0;
};

Cell simulate(const NoiseModel& model, double slowdown, int runs, std::uint64_t seed) {
  Rng rng(seed);
  Cell cell;
  for (int i = 0; i < runs; ++i) {
    const Timed stored = time_run(rng, model, model.start_run(rng), 0.0);
    const RunState job = model.start_run(rng);  // the machine's state in this job
    Timed now = time_run(rng, model, job, slowdown);

    const kg::Outcome old_rule = gate_outcome(stored, now, false);
    cell.mean_std_regressed += old_rule == kg::Outcome::regressed;
    cell.mean_std_unreliable += old_rule == kg::Outcome::unreliable;
    cell.mean_std_passed += old_rule == kg::Outcome::passed;

    kg::Outcome verdict = kg::Outcome::inconclusive;
    int round = 1;
    for (;; ++round) {
      verdict = gate_outcome(stored, now, true);
      if (verdict != kg::Outcome::inconclusive || round == kMaxRounds) break;
      // Time again in the same job, and judge every sample so far.
      RunState again = model.start_run(rng);
      again.drift = job.drift;
      const Timed more = time_run(rng, model, again, slowdown);
      now.candidate.insert(now.candidate.end(), more.candidate.begin(), more.candidate.end());
      now.eager.insert(now.eager.end(), more.eager.begin(), more.eager.end());
    }
    cell.samples_regressed += verdict == kg::Outcome::regressed;
    cell.samples_passed += verdict == kg::Outcome::passed;
    cell.samples_inconclusive += verdict == kg::Outcome::inconclusive;
    cell.samples += long(now.candidate.size());
    cell.rounds += round;
  }
  return cell;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 2000;
  const double slowdowns[] = {0.0, 0.02, 0.05, 0.10, 0.20};
  std::printf("%d simulated comparisons per row; tolerance 5%%, detection margin 2.5%%, 99%% intervals, "
              "at most %d rounds\n\n",
              runs, kMaxRounds);
  std::printf("| noise model | slowdown | mean-std: regressed | mean-std: unreliable | mean-std: passed | samples: regressed "
              "| samples: inconclusive | samples: passed | samples per run | rounds per run |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::uint64_t seed = 1;
  for (const auto& model : noise_models()) {
    for (double slowdown : slowdowns) {
      const Cell c = simulate(model, slowdown, runs, seed++);
      auto pct = [&](int count) { return 100.0 * count / runs; };
      std::printf("| %s | %.0f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.0f | %.2f |\n", model.name,
                  slowdown * 100, pct(c.mean_std_regressed), pct(c.mean_std_unreliable), pct(c.mean_std_passed),
                  pct(c.samples_regressed), pct(c.samples_inconclusive), pct(c.samples_passed), double(c.samples) / runs,
                  double(c.rounds) / runs);
      std::fflush(stdout);
    }
  }
  std::printf("\nNoise models:\n");
  for (const auto& model : noise_models()) std::printf("- %s: %s\n", model.name, model.what);
  return 0;
}
