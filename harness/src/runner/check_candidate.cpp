// What the child process does for one candidate (DESIGN.md, "Checks"): it
// allocates every buffer with guard bands, runs the candidate on input set A,
// then on a fresh set B, then again on B, checking the contract after every
// run and the output against the float64 reference (and, where the float64
// reference is only sampled, the whole output against the workload's
// strict-FP32 GPU reference when it has one); then it times it.
#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>

#include "kernelgate/error.hpp"
#include "kernelgate/reference.hpp"
#include "runner_internal.hpp"

namespace kg {
namespace {

std::string format_number(double value) {
  std::ostringstream out;
  out.precision(9);
  out << value;
  return out.str();
}

// Which output points are compared: all of them at small shapes, otherwise
// the first and last element plus seeded uniform samples.
std::vector<std::int64_t> comparison_indices(std::int64_t numel, const RunOptions& options) {
  std::vector<std::int64_t> indices;
  if (numel <= options.full_reference_max_elements) {
    indices.resize(static_cast<std::size_t>(numel));
    for (std::int64_t i = 0; i < numel; ++i) indices[static_cast<std::size_t>(i)] = i;
    return indices;
  }
  std::mt19937_64 generator(options.seed ^ 0x9e3779b97f4a7c15ull);
  std::uniform_int_distribution<std::int64_t> pick(0, numel - 1);
  indices.push_back(0);
  indices.push_back(numel - 1);
  while (static_cast<std::int64_t>(indices.size()) < std::max<std::int64_t>(options.sample_points, 2))
    indices.push_back(pick(generator));
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return indices;
}

// The float64 reference at the compared points.
std::vector<double> reference_at(const Suite& suite, const Axes& axes, const Tensors& inputs,
                                 const std::vector<std::int64_t>& indices, bool whole) {
  if (whole) return reference_output(suite, axes, inputs).data;
  std::vector<double> values(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i)
    values[i] = reference_point(suite, axes, inputs, indices[i]);
  return values;
}

// A contract violation or wrong answer found while checking: ends the checks.
struct Finding {
  Outcome outcome;
  std::string check;  // "contract" or "equivalence"
  std::string rule;
  std::string message;
};

class CandidateChecker {
 public:
  CandidateChecker(const Suite& suite, const Candidate& candidate, Device& device, const Axes& axes,
                   const RunOptions& options)
      : suite_(suite), candidate_(candidate), device_(device), axes_(axes), options_(options),
        tolerance_(suite.tolerance(candidate.precision)) {}

  ~CandidateChecker() {
    for (auto& buffer : inputs_) device_.release(buffer);
    device_.release(output_);
    device_.release(workspace_);
  }

  CandidateResult run() {
    CandidateResult result;
    result.id = candidate_.id;
    result.precision = candidate_.precision;
    result.kind = "candidate";
    if (device_.interpreted()) {
      const char* order = std::getenv("KG_INTERPRET_ORDER");
      result.thread_orders.push_back(order && *order ? order : "forward");
    }

    try {
      prepare();
      check_runs(result);
    } catch (const Finding& finding) {
      result.outcome = finding.outcome;
      result.message = finding.message;
      result.checks.push_back(detail::make_check(finding.check, finding.outcome, finding.message, finding.rule));
      if (finding.check == "contract")
        result.checks.push_back(detail::make_check("equivalence", Outcome::skipped, "not judged after a contract violation"));
      result.checks.push_back(detail::make_check("latency", Outcome::skipped, "not timed: the candidate failed a check"));
      return result;
    }
    result.checks.push_back(detail::make_check("contract", Outcome::passed));
    result.checks.push_back(detail::make_check(
        "equivalence", Outcome::passed,
        strict_ ? "every output element also within tolerance of the strict-FP32 GPU reference (" +
                      strict_->summary() + ")"
                : std::string()));

    if (options_.timing.protocol == "none") {
      result.checks.push_back(detail::make_check("latency", Outcome::skipped, "timing disabled (--protocol none)"));
    } else {
      load(set_a_);
      result.latency = detail::measure_latency(
          device_, [&] { candidate_.launch(args_); }, options_.timing);
      result.checks.push_back(detail::make_check("latency", Outcome::passed));
    }
    result.outcome = Outcome::passed;
    return result;
  }

 private:
  void prepare() {
    const TensorSpec* output_spec = nullptr;
    std::vector<const TensorSpec*> ordered;  // suite order: inputs, then parameters
    for (const auto& spec : suite_.tensors)
      if (spec.role == TensorRole::input) ordered.push_back(&spec);
    for (const auto& spec : suite_.tensors)
      if (spec.role == TensorRole::parameter) ordered.push_back(&spec);
    for (const auto& spec : suite_.tensors)
      if (spec.role == TensorRole::output) output_spec = &spec;
    if (!output_spec) throw Error("workload " + suite_.id + " declares no output tensor");

    set_a_ = generate_inputs(suite_, axes_, options_.seed);
    set_b_ = generate_inputs(suite_, axes_, options_.seed + 1);

    args_.axes = axes_;
    for (const TensorSpec* spec : ordered) {
      const auto& host = set_a_.at(spec->name);
      const char* role = spec->role == TensorRole::input ? "input " : "parameter ";
      inputs_.push_back(device_.allocate(host.data.size() * sizeof(float), role + spec->name));
      args_.inputs.push_back({.name = spec->name, .shape = host.shape,
                              .data = reinterpret_cast<const float*>(inputs_.back().data)});
      input_names_.push_back(spec->name);
    }
    args_.output_shape = suite_.shape(output_spec->name, axes_);
    output_numel_ = detail::element_count(args_.output_shape);
    output_ = device_.allocate(static_cast<std::size_t>(output_numel_) * sizeof(float),
                               "output " + output_spec->name);
    args_.output = reinterpret_cast<float*>(output_.data);
    args_.workspace_bytes = candidate_.workspace_bytes ? candidate_.workspace_bytes(axes_) : 0;
    workspace_ = device_.allocate(args_.workspace_bytes, "workspace");
    args_.workspace = args_.workspace_bytes ? workspace_.data : nullptr;
    args_.stream = device_.stream();

    // The harness's own promise, checked rather than assumed.
    for (const auto& input : inputs_) {
      if (buffers_overlap(output_, input))
        throw Finding{Outcome::contract_violation, "contract", "output_not_overlapping",
                      "the output buffer overlaps " + input.label};
      if (buffers_overlap(workspace_, input))
        throw Finding{Outcome::contract_violation, "contract", "output_not_overlapping",
                      "the workspace overlaps " + input.label};
    }

    indices_ = comparison_indices(output_numel_, options_);
    whole_ = output_numel_ <= options_.full_reference_max_elements;
    want_a_ = reference_at(suite_, axes_, set_a_, indices_, whole_);
    want_b_ = reference_at(suite_, axes_, set_b_, indices_, whole_);
    if (const StrictReference* strict = whole_ ? nullptr : find_strict_reference(suite_.id))
      strict_ = std::make_unique<detail::StrictReferenceRun>(*strict, device_, args_);
  }

  void load(const Tensors& set) {
    input_hashes_.clear();
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      const auto& host = set.at(input_names_[i]);
      device_.copy_to_device(inputs_[i], host.data.data(), host.data.size() * sizeof(float));
      input_hashes_.push_back(device_.hash(inputs_[i]));
    }
  }

  // One checked run: poison, launch on the harness stream, then the contract.
  std::vector<float> run_once(const std::string& what) {
    device_.fill_words(output_, kPoisonWord);
    device_.fill_words(workspace_, kPoisonWord);
    device_.begin_stream_audit();
    candidate_.launch(args_);
    device_.synchronize();
    const std::string stream_problem = device_.end_stream_audit();
    if (!stream_problem.empty())
      violation("launch_stream", what + ": a kernel ran outside the harness's stream: " + stream_problem);

    for (const DeviceBuffer* buffer : all_buffers()) {
      const std::string damage = device_.check_guards(*buffer);
      if (!damage.empty()) violation("guard_bands", what + ": " + damage);
    }
    for (std::size_t i = 0; i < inputs_.size(); ++i)
      if (device_.hash(inputs_[i]) != input_hashes_[i])
        violation("inputs_unchanged", what + ": the candidate modified " + inputs_[i].label);

    std::vector<float> output(static_cast<std::size_t>(output_numel_));
    device_.copy_to_host(output.data(), output_, output.size() * sizeof(float));
    std::int64_t unwritten = 0, first_unwritten = -1;
    for (std::size_t i = 0; i < output.size(); ++i)
      if (std::bit_cast<std::uint32_t>(output[i]) == kPoisonWord) {
        if (first_unwritten < 0) first_unwritten = static_cast<std::int64_t>(i);
        ++unwritten;
      }
    if (unwritten > 0)
      violation("output_fully_written", what + ": " + std::to_string(unwritten) + " of " +
                                            std::to_string(output_numel_) +
                                            " output elements were never written (first at flat index " +
                                            std::to_string(first_unwritten) + ")");
    return output;
  }

  std::vector<float> at_indices(const std::vector<float>& output) const {
    if (whole_) return output;
    std::vector<float> picked(indices_.size());
    for (std::size_t i = 0; i < indices_.size(); ++i)
      picked[i] = output[static_cast<std::size_t>(indices_[i])];
    return picked;
  }

  std::string describe(const ErrorStats& stats) const {
    return describe(stats, tolerance_, candidate_.precision);
  }
  static std::string describe(const ErrorStats& stats, const Tolerance& tolerance,
                              const std::string& precision) {
    std::ostringstream message;
    if (stats.non_finite) message << "non-finite values where the reference is finite; ";
    message << stats.mismatches << " of " << stats.checked << (stats.sampled ? " sampled" : "")
            << " points outside atol " << tolerance.atol << " + rtol " << tolerance.rtol
            << " (" << precision << ")";
    if (stats.first_mismatch_index >= 0)
      message << ", first at flat index " << stats.first_mismatch_index << ": got "
              << format_number(stats.first_mismatch_got) << ", want "
              << format_number(stats.first_mismatch_want);
    message << "; max abs error" << (stats.non_finite ? " over the finite points " : " ")
            << format_number(stats.max_abs) << ", relative L2 "
            << format_number(stats.rel_l2);
    if (tolerance.rel_l2 > 0) message << " (bound " << tolerance.rel_l2 << ")";
    return message.str();
  }

  // At full size the float64 reference is only sampled; the strict-FP32 GPU
  // reference covers every element. It must itself agree with the float64
  // points (fp32 tolerance) first, so a broken reference can neither pass
  // nor fail a candidate: it stops the run with an error naming itself.
  void check_whole_output(const std::vector<float>& got, const std::vector<double>& want_sampled,
                          const std::string& what, CandidateResult& result) {
    if (!strict_) return;
    const std::vector<float> strict = strict_->output();
    const Tolerance& fp32 = suite_.tolerance("fp32");
    const ErrorStats reference_stats =
        compare_to_reference(at_indices(strict), want_sampled, indices_, fp32, true);
    if (!within_tolerance(reference_stats, fp32))
      throw Error("the strict-FP32 GPU reference of " + suite_.id + " (" + strict_->summary() +
                  ") disagrees with the float64 reference on " + what + ": " +
                  describe(reference_stats, fp32, "fp32"));
    const ErrorStats stats = compare_whole_output(got, strict, tolerance_);
    if (!within_tolerance(stats, tolerance_)) {
      result.error = stats;
      throw Finding{Outcome::incorrect, "equivalence", "",
                    what + ", every element against the strict-FP32 GPU reference: " + describe(stats)};
    }
  }

  void check_runs(CandidateResult& result) {
    // Set A: the answer must be right.
    load(set_a_);
    const auto got_a = run_once("input set A");
    ErrorStats stats_a = compare_to_reference(at_indices(got_a), want_a_, indices_, tolerance_, !whole_);
    result.error = stats_a;
    if (!within_tolerance(stats_a, tolerance_))
      throw Finding{Outcome::incorrect, "equivalence", "", "input set A: " + describe(stats_a)};
    check_whole_output(got_a, want_a_, "input set A", result);

    // Set B: a candidate that caches or replays its previous result fails here.
    load(set_b_);
    const auto got_b = run_once("input set B");
    const ErrorStats stats_b = compare_to_reference(at_indices(got_b), want_b_, indices_, tolerance_, !whole_);
    if (!within_tolerance(stats_b, tolerance_)) {
      result.error = stats_b;
      const ErrorStats against_a = compare_to_reference(at_indices(got_b), want_a_, indices_, tolerance_, !whole_);
      if (within_tolerance(against_a, tolerance_))
        violation("fresh_inputs",
                  "on fresh inputs (set B) the candidate returned the answer for the previous inputs (set A)");
      throw Finding{Outcome::incorrect, "equivalence", "", "input set B: " + describe(stats_b)};
    }
    check_whole_output(got_b, want_b_, "input set B", result);
    if (stats_b.max_abs > stats_a.max_abs) result.error = stats_b;

    // Set B again: repeated runs must agree within tolerance; report bitwise.
    const auto again = run_once("input set B, repeated");
    result.bitwise_deterministic = std::memcmp(again.data(), got_b.data(), got_b.size() * sizeof(float)) == 0;
    if (!*result.bitwise_deterministic) {
      const ErrorStats drift = compare_whole_output(again, got_b, tolerance_);
      if (!within_tolerance(drift, tolerance_))
        violation("repeat_agreement", "a repeated run on the same inputs disagrees with the first: " +
                                          describe(drift));
    }
  }

  [[noreturn]] void violation(const std::string& rule, const std::string& message) {
    throw Finding{Outcome::contract_violation, "contract", rule, rule + ": " + message};
  }

  std::vector<const DeviceBuffer*> all_buffers() const {
    std::vector<const DeviceBuffer*> buffers;
    for (const auto& input : inputs_) buffers.push_back(&input);
    buffers.push_back(&output_);
    buffers.push_back(&workspace_);
    return buffers;
  }

  const Suite& suite_;
  const Candidate& candidate_;
  Device& device_;
  const Axes& axes_;
  const RunOptions& options_;
  const Tolerance& tolerance_;

  Tensors set_a_, set_b_;
  std::vector<DeviceBuffer> inputs_;
  std::vector<std::string> input_names_;
  std::vector<std::uint64_t> input_hashes_;
  DeviceBuffer output_, workspace_;
  std::int64_t output_numel_ = 0;
  LaunchArgs args_;
  std::vector<std::int64_t> indices_;
  bool whole_ = true;
  std::vector<double> want_a_, want_b_;
  std::unique_ptr<detail::StrictReferenceRun> strict_;  // only where the float64 check is sampled
};

}  // namespace

CandidateResult check_candidate(const Suite& suite, const Candidate& candidate, Device& device,
                                const Axes& axes, const RunOptions& options) {
  CandidateChecker checker(suite, candidate, device, axes, options);
  return checker.run();
}

}  // namespace kg
