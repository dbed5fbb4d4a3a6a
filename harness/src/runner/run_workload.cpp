// The parent side of a run: which candidates, one child process per candidate
// (and per interpret-mode thread order), the results in registration order.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/source_lint.hpp"
#include "runner_internal.hpp"

#if defined(KG_INTERPRET)
#include "kernelgate/interpret/launch.hpp"
#endif

namespace kg {
namespace {

std::vector<const Candidate*> select_candidates(const Suite& suite, const RunOptions& options,
                                               const DeviceDescription& device) {
  std::vector<const Candidate*> all = candidates_for(suite.id);
  // A GPU library's baseline (cudnn_eager) is a GPU's: not the cpu device's
  // to run. A GPU without that library reports it not_supported.
  if (device.interpreted)
    std::erase_if(all, [](const Candidate* candidate) { return !candidate->gpu_library.empty(); });
  // A run that judges nothing must not pass: a new workload without its
  // candidates, or candidates registered under a misspelt workload id.
  if (all.empty())
    throw Error("workload " + suite.id + " has no candidate in this build (each is a kernels/" + suite.id +
                "/<id>.cu registered with .workload = \"" + suite.id + "\"; docs/adding-a-candidate.md)");
  if (options.candidate_ids.empty()) return all;
  std::vector<const Candidate*> selected;
  for (const auto& id : options.candidate_ids) {
    const Candidate* found = nullptr;
    for (const Candidate* candidate : all)
      if (candidate->id == id) found = candidate;
    if (!found) {
      std::string known;
      for (const Candidate* candidate : all) known += (known.empty() ? "" : ", ") + candidate->id;
      throw Error("workload " + suite.id + " has no candidate '" + id + "' (known: " +
                  (known.empty() ? "none" : known) + ")");
    }
    selected.push_back(found);
  }
  return selected;
}

// One candidate under every thread order: the first order does every check
// and the timing; the others repeat the checks, so a missing barrier shows as
// a wrong answer. The first failure wins, naming its order.
CandidateResult run_candidate(const Suite& suite, const Candidate& candidate, const DeviceDescription& device,
                              const Axes& axes, const RunOptions& options,
                              const detail::ReferencePoints& reference, double timeout_s) {
  // Registration data, read in the parent: a GPU of another architecture
  // would run the trap its build put in place of the kernel.
  if (std::string reason = architecture_problem(candidate.needs, device.compute_capability); !reason.empty()) {
    CandidateResult result;
    result.id = candidate.id;
    result.precision = candidate.precision;
    result.checks.push_back(make_check(kSupportCheck, Outcome::not_supported, std::move(reason)));
    decide(result);
    return result;
  }
  std::vector<std::string> orders;
  if (device.interpreted) orders = options.thread_orders;
  if (options.model_blocks_per_launch > 0) orders.resize(std::min<std::size_t>(orders.size(), 1));  // counts do not depend on it
  if (orders.empty()) orders.push_back("");

  CandidateResult merged;
  for (std::size_t i = 0; i < orders.size(); ++i) {
    RunOptions order_options = options;
    if (i > 0) order_options.timing.protocol = "none";
    CandidateResult result =
        detail::run_in_child(suite, candidate, axes, order_options, reference, device, orders[i], timeout_s);
    if (result.outcome == Outcome::not_supported) return result;
    if (!orders[i].empty()) {
      result.thread_orders = {orders[i]};
      if (i > 0 && is_failure(result.outcome)) detail::prefix_failures(result, "under thread order " + orders[i] + ": ");
    }
    if (i == 0) {
      merged = std::move(result);
      if (is_failure(merged.outcome)) return merged;
      continue;
    }
    if (is_failure(result.outcome)) {
      result.thread_orders.insert(result.thread_orders.begin(), merged.thread_orders.begin(),
                                  merged.thread_orders.end());
      result.latency = merged.latency;
      return result;
    }
    merged.thread_orders.push_back(orders[i]);
    if (result.bitwise_deterministic && merged.bitwise_deterministic)
      merged.bitwise_deterministic = *merged.bitwise_deterministic && *result.bitwise_deterministic;
    if (result.error && merged.error && result.error->max_abs > merged.error->max_abs)
      merged.error = result.error;
  }
  return merged;
}

// The candidate's source file through the tripwire (docs/lint.md), named
// from its workload folder on as in the kernels tree. Its findings are listed
// in the result; under lint_fails a finding, or a source file that cannot be
// read, fails the candidate: a file nobody linted is not a clean one.
void lint_source_file(const Candidate& candidate, const RunOptions& options, CandidateResult& result) {
  const std::filesystem::path file = candidate_source_file(candidate);
  const std::filesystem::path shown = file.parent_path().filename() / file.filename();
  std::string failure;
  std::error_code error;
  try {
    if (file.empty() || !std::filesystem::is_regular_file(file, error)) throw Error("not a readable file");
    for (lint::Finding& finding : lint::lint_file(file)) {
      finding.file = shown.string();
      result.source_lint.push_back(lint::format(finding));
    }
    if (!result.source_lint.empty())
      failure = std::to_string(result.source_lint.size()) + " lint finding(s), the first: " + result.source_lint[0];
  } catch (const Error&) {
    failure = "the source file " + (file.empty() ? std::string("of the registration") : file.string()) +
              " cannot be read, so it was not linted";
  }
  if (!options.lint_fails || failure.empty()) return;
  result.checks.push_back(make_check(kSourceLintCheck, Outcome::contract_violation, failure));
  decide(result);
}

// A GPU whose SM clock is locked or set (nvidia-smi -lgc, application
// clocks) says so while it times: the report's environment records it, since
// every figure of the run was taken at that clock, not at boost.
void note_clock_setting(RunResult& run) {
  for (const CandidateResult& candidate : run.candidates) {
    if (!candidate.latency) continue;
    const auto& reasons = candidate.latency->clock_event_reasons;
    if (std::find(reasons.begin(), reasons.end(), "applications_clocks_setting") != reasons.end()) {
      run.environment["sm_clock_locked"] = true;
      return;
    }
  }
}

}  // namespace

std::vector<const Candidate*> candidates_for(const std::string& workload) {
  check_candidate_registry();
  std::vector<const Candidate*> found;
  for (const auto& candidate : candidate_registry())
    if (candidate.workload == workload) found.push_back(&candidate);
  return found;
}

void check_run_fits(const Suite& suite, const Axes& axes, const DeviceDescription& device, double timeout_s,
                    bool allow_slow) {
  auto gib = [](double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / double(1ull << 30));
    return std::string(text);
  };
  // Inputs and parameters I, output O, each at its dtype's size. The device
  // holds each input three times (live, set A, set B) and the output: 3I + O.
  // The host holds sets A and B, generated as float32 whatever their dtype,
  // in the parent and again in the child: 4 such sets, and on cpu and the
  // simulated GPU the device is host memory too, and kernels run at
  // interpret mode's pace.
  double input_bytes = 0, generated_bytes = 0;
  for (const auto& tensor : suite.tensors) {
    if (tensor.role == TensorRole::output) continue;
    const double count = double(suite.numel(tensor.name, axes));
    input_bytes += double(element_bytes(tensor.dtype)) * count;
    generated_bytes += sizeof(float) * count;
  }
  const TensorSpec& output = suite.output();
  const double output_bytes = double(element_bytes(output.dtype)) * double(suite.numel(output.name, axes));
  const double device_bytes = 3 * input_bytes + output_bytes;
  const bool host_memory = device.kernels_interpreted();
  const double needed = host_memory ? device_bytes + 4 * generated_bytes : device_bytes;
  const std::uint64_t available = device.memory_bytes;
  if (available > 0 && needed > double(available))
    throw Error(suite.id + " at axes " + format_axes(axes) + " needs about " + gib(needed) + " (inputs " +
                gib(input_bytes) + ", output " + gib(output_bytes) + "), more than the " + gib(double(available)) +
                " of " + device.name + ": use smaller axes");
  if (!host_memory || allow_slow) return;
  const double timeout = timeout_s > 0 ? timeout_s : device.default_timeout_s;
  const double floor_s = kMinimumCallsPerCandidate * suite.flops(axes) / kInterpretFlopPerSecond;
  if (floor_s > timeout) {
    char text[400];
    std::snprintf(text, sizeof text,
                  "%s at these axes is %.1f GFLOP: interpret mode needs at least %.0f s per candidate (%d calls at "
                  "most %g GFLOP/s), over the %.0f s watchdog; use --preset ci or smaller axes, raise --timeout, "
                  "or give --allow-slow",
                  suite.id.c_str(), suite.flops(axes) / 1e9, floor_s, kMinimumCallsPerCandidate,
                  kInterpretFlopPerSecond / 1e9, timeout);
    throw Error(text);
  }
}

RunResult run_workload(const Suite& suite, const DeviceDescription& device, const RunOptions& options) {
  RunResult run;
  run.workload = suite.id;
  run.identity = suite.identity;
  run.preset = options.preset;
  run.axes = suite.resolve_axes(options.preset, options.axis_overrides);
  run.device = device.name;
  run.hardware = device.hardware_key;
  run.environment = device.environment;
  if (!run.environment.contains("git_revision")) run.environment["git_revision"] = detail::current_git_revision(suite.file.parent_path());
  run.seed = options.seed;
  run.started_at = utc_timestamp_now();

  const double timeout_s = options.timeout_s > 0 ? options.timeout_s : device.default_timeout_s;
  const bool model = options.model_blocks_per_launch > 0;
  if (model && !device.interpreted) throw Error("kernelgate model counts in interpret mode: use the cpu device");
  // A model runs a sample of the blocks: the memory must fit, the time is not the full grid's.
  check_run_fits(suite, run.axes, device, timeout_s, options.allow_slow || model);
  // Validate the thread orders before anything runs: a bad one is one usage
  // error, not a crash of every candidate.
#if defined(KG_INTERPRET)
  if (device.interpreted)
    for (const auto& order : options.thread_orders) {
      try {
        interp::parse_thread_order(order);
      } catch (const Error& e) {
        throw Error("--orders: " + std::string(e.what()));
      }
    }
#endif
  const std::vector<const Candidate*> selected = select_candidates(suite, options, device);
  // The float64 reference, once for every candidate, here in the parent (a
  // model checks nothing, and needs only the output's size).
  detail::ReferencePoints reference;
  if (model)
    reference.numel = suite.numel(suite.output().name, run.axes);
  else
    reference = detail::compute_reference_points(suite, run.axes, options);
  for (const Candidate* candidate : selected) {
    // Everything of the candidate's, unsupported_reason included, runs in its child.
    CandidateResult result = run_candidate(suite, *candidate, device, run.axes, options, reference, timeout_s);
    lint_source_file(*candidate, options, result);
    if (options.on_result) options.on_result(result);
    run.candidates.push_back(std::move(result));
  }
  note_clock_setting(run);
  return run;
}

}  // namespace kg
