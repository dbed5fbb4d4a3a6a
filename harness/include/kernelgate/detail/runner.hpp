#pragma once
// The runner: every candidate of a workload in its own child process, checked
// against the float64 reference and the contract, and timed (docs/runner.md).
//
// The parent (run_workload) starts the child by executing its own binary again
// (fork + exec of /proc/self/exe) with the hidden subcommand kChildSubcommand:
// CUDA does not survive a fork, and a fresh process is what isolation means.
// Any binary that calls run_workload must therefore answer that subcommand:
// the kernelgate CLI does (cmd_run.cpp); test binaries call
// run_child_if_requested() first thing in main().
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/candidate.hpp"
#include "kernelgate/detail/device.hpp"
#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

// Timing protocols (docs/runner.md).
struct TimingOptions {
  std::string protocol;  // "kernelbench" | "adaptive" | "none"; "" = the device's default
  // -1: the protocol's default (kernelbench: 3; adaptive: 3 on GPU, 0 on the
  // cpu device, where the checks' runs just before have warmed it up).
  int warmups = -1;
  // kernelbench: exactly this many trials (default 100).
  int trials = 100;
  // adaptive: sample until the relative standard error of the mean is below
  // target_rse, or budget_s is spent, or max_samples are taken (at least min_samples).
  double target_rse = 0.01;
  double budget_s = -1;  // -1: the device's default (cpu: 1 s, cuda: 5 s)
  int min_samples = -1;  // -1: the device's default (cpu: 2, cuda: 100, KernelBench's trial count)
  int max_samples = -1;  // -1: the device's default (cpu: 10, cuda: 10000)
  // Throttling (a GPU that reads its SM clock): a sample that ran below this
  // fraction of the clock the GPU is set to run at, for a throttling reason
  // (kernelgate/detail/throttle_rule.hpp), is discarded and counted, and the next
  // one waits throttle_wait_s for the clock to recover (nvbench's wait and
  // fraction). After max_throttled_samples discards the protocol stops with
  // the samples it kept: too few of them then fail the gate as unreliable.
  double throttle_fraction = 0.75;
  double throttle_wait_s = 0.05;
  int max_throttled_samples = 200;
};

struct RunOptions {
  std::string preset;  // axes preset; "" (as the CLI) or "default": the suite's default axes
  Axes axis_overrides;
  // The run's seed: input set i uses input_set_seed(seed, i), A = 0, B = 1,
  // timed sample k 2 + k (kernelgate/detail/reference.hpp).
  std::uint64_t seed = 0;
  std::vector<std::string> candidate_ids;  // empty: every candidate of the workload
  TimingOptions timing;
  double timeout_s = 0;  // watchdog per candidate; 0 = the device's default
  // Interpret mode: each candidate runs under each of these thread orders
  // (forward | reverse | random:<seed>). At least two by default.
  std::vector<std::string> thread_orders = {"forward", "reverse"};
  // Outputs up to this many elements are compared whole; larger ones at
  // sample_points sampled points recomputed with reference_point().
  std::int64_t full_reference_max_elements = std::int64_t{1} << 21;
  std::int64_t sample_points = 4096;
  // The binary executed for the child; empty = this process's own binary.
  std::filesystem::path executable;
  // Called in the parent as each candidate finishes (progress lines).
  std::function<void(const CandidateResult&)> on_result;
  // Run even where interpret mode cannot finish a candidate inside the
  // watchdog (check_run_fits).
  bool allow_slow = false;
  // Interpret mode: count what each candidate's first checked run asks of
  // the hardware (docs/interpret-mode.md, "Counters"). Off by default: a
  // counted run of a direct candidate takes several times an uncounted one.
  bool count_accesses = false;
  // `kernelgate model` (docs/roofline.md): interpret mode counts one run of
  // each candidate on input set A, running this many blocks of each launch
  // (kg::interp::set_block_sample) and scaling their counts to the grid. No
  // check and no timing: the blocks left out leave the output unwritten, so
  // the candidate's outcome is `skipped` with a `model` check saying what
  // ran. 0: a normal run.
  std::uint64_t model_blocks_per_launch = 0;
  // The GPU key whose grids the model run sizes (kg::interp::set_modelled_gpu):
  // a persistent kernel launches the blocks that key's SMs hold at once.
  std::string model_hardware;
  // A finding of `kernelgate lint` in a candidate's source file fails it
  // (contract_violation, check `source_lint`); otherwise findings are listed
  // in its result for review only.
  bool lint_fails = false;
};

// Interpret mode runs at most about this many FLOP per second (measured at
// the ci preset: 0.04 to 0.6 GFLOP/s), and a candidate makes at least this
// many calls in its child (checked calls and one timed): the floor of its
// time on cpu.
inline constexpr double kInterpretFlopPerSecond = 1e9;
inline constexpr int kMinimumCallsPerCandidate = 4;

// Refuses, before anything runs, axes that cannot work on this device
// (kg::Error in words): tensors that need more memory than the device has
// (inputs staged twice beside the live copy, the output, and on cpu the
// host's copies too), and on cpu a size whose floor time exceeds the watchdog unless
// allow_slow. timeout_s: the watchdog per candidate (0: the device's).
void check_run_fits(const Suite& suite, const Axes& axes, const DeviceDescription& device, double timeout_s,
                    bool allow_slow);

// Runs every selected candidate of suite's workload, each in a child process
// that opens the device `device` describes (describe_device: the parent holds
// none of it), and returns the run. Candidates that declare the axes
// unsupported are `not_supported` without running. Throws kg::Error for bad
// options (unknown candidate id, invalid axes).
RunResult run_workload(const Suite& suite, const DeviceDescription& device, const RunOptions& options);

// The candidates of a workload linked into this binary, in registration order.
std::vector<const Candidate*> candidates_for(const std::string& workload);

// Statistics of timing samples (milliseconds), for the given protocol name.
LatencyStats latency_statistics(std::vector<double> samples_ms, const std::string& protocol,
                                const std::string& clock, int warmups);

// Adds another run of the same candidate (checked and timed again, as
// `kernelgate run` does while a comparison is inconclusive) to `into`: the
// samples of both rounds, or `again` as it is when it failed (every round's
// checks count, so a candidate that breaks when run again fails).
void add_timing_round(CandidateResult& into, CandidateResult again);
// The same for every candidate of `again`, another round of the run `into`,
// matched by id; a candidate `into` does not have is added as it is.
void add_timing_round(RunResult& into, RunResult again);

// Compares got against want (both flat, same length; want_index[i] is the flat
// output index of want[i], for messages) with the tolerance.
ErrorStats compare_to_reference(const std::vector<float>& got, const std::vector<double>& want,
                                const std::vector<std::int64_t>& want_index,
                                const Tolerance& tolerance, bool sampled);
// Compares the whole of got against a float reference of the same length
// (the strict-FP32 GPU reference at full size): flat index i is point i.
ErrorStats compare_whole_output(const std::vector<float>& got, const std::vector<float>& want,
                                const Tolerance& tolerance);
// The mismatches a comparison keeps the indices of (ErrorStats::mismatch_indices).
constexpr std::size_t kMaxLocatedMismatches = std::size_t{1} << 16;
// Where the mismatches lie in an output of `shape` (row-major, NCHW and its
// relatives as PyTorch lays them out): "first at (n=0, c=3, h=0, w=17), flat
// index 1234", then what at least three mismatches all share, if anything:
// "; all 40 mismatches share c=3" (one channel, one row), or "; all 40
// mismatches lie on the border (first or last h or w)". "" without mismatches.
std::string locate_mismatches(const ErrorStats& stats, const std::vector<std::int64_t>& shape);
// One element of such an output: "(n=0, c=3, h=0, w=17), flat index 1234";
// only the flat index where it is outside the shape.
std::string describe_index(std::int64_t flat, const std::vector<std::int64_t>& shape);

// True when the comparison is within tolerance: no mismatch, nothing
// non-finite, relative L2 within bound.
bool within_tolerance(const ErrorStats& stats, const Tolerance& tolerance);
// The judgement of a few spot points (a timed sample's): every point finite
// and within the elementwise bound, and their relative L2 within
// kSpotRelL2Slack times the bound. The norm of 8 to 64 points wanders from
// the whole output's (1.1e-3 on 8 points of an l1_086 output whose checked
// runs gave 2.8e-4, against a bound of 1e-3), while an output of zeros
// still has 1.
inline constexpr double kSpotRelL2Slack = 4;
bool within_spot_tolerance(const ErrorStats& stats, const Tolerance& tolerance);

// The hidden subcommand the child runs: `<exe> __kg-candidate-child <scratch folder>`,
// with the parent's commands on fd 3 and its replies on fd 4.
inline constexpr const char* kChildSubcommand = "__kg-candidate-child";

// The child's work: answers the parent's commands (the candidate's code runs
// here) until the close command. Returns the process exit code.
int run_child(const std::filesystem::path& scratch_folder);

}  // namespace kg
