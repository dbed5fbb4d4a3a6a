#pragma once
// Workload definitions (suites/kernelbench/<workload>.json): loading,
// validation, axes, tensor shapes, tolerances, gate policy, identity.
// The file format is documented in docs/suite-format.md.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/axes.hpp"
#include "kernelgate/dtype.hpp"
#include "kernelgate/detail/ops.hpp"

namespace kg {

// Parses "k=v,k=v" (as given on the command line). Throws kg::Error.
Axes parse_axes_list(const std::string& text);
// "k=v,k=v" in axis-name order; the inverse of parse_axes_list.
std::string format_axes(const Axes& axes);

// Axes renamed in a release, old name -> new name, still accepted in --axes
// for one release: "batch" became "batch_size" (KernelBench's name for it)
// during 0.1 and is refused from 0.2.0. Suite::resolve_axes applies it and
// renamed_axis_notes (below Suite) says so.
const std::map<std::string, std::string>& renamed_axes();

struct Tolerance {
  double atol = 0;
  double rtol = 0;
  double rel_l2 = 0;  // bound on ||got - want||_2 / ||want||_2
};

// The ranges of the gate policy's overridable fields, the same in a suite
// file, on the command line and in apply_overrides (gate.hpp).
inline constexpr double kMaxLatencyTolerance = 10;  // a fraction
inline constexpr double kMaxNoiseMultiplier = 100;
inline constexpr int kMaxAgeDays = 36500;  // 0: a record from before today is stale

struct GatePolicy {
  double latency_tolerance = 0.05;  // relative slowdown allowed
  double noise_multiplier = 2.0;    // times the measured std added to the tolerance
  int max_age_days = 90;
  bool win_is_stale = true;  // a speed-up beyond tolerance asks for a publish
  // The noise guard: samples (a stored record's or this run's) with fewer
  // than min_samples or a coefficient of variation above max_cv cannot gate,
  // since a large std would let a large slowdown pass; they are `unreliable`.
  int min_samples = 5;
  double max_cv = 0.2;
  // When the samples cannot tell a slowdown beyond the tolerance from none
  // (docs/gate-statistics.md), `kernelgate run` times the candidate again,
  // up to max_rounds rounds in all; one still inconclusive then fails the
  // gate (`inconclusive`) unless inconclusive_fails is false (a warning).
  int max_rounds = 3;
  bool inconclusive_fails = true;
  // On the cpu key the gate compares interpret mode's counters, which are
  // exact: a counter above its modelled record by more than this regresses.
  double counter_tolerance = 0.01;
  // Interpret-mode (wall clock) latencies are informational unless this is
  // set: a CPU emulating a GPU says nothing about the kernel's speed. Never
  // read from a suite file: only --gate-interpret-latency sets it.
  bool gate_wall_clock = false;
};

enum class TensorRole { input, parameter, output };
std::string_view to_string(TensorRole role);

// One op of the forward pass (docs/suite-format.md, "forward"): its operands
// and its output by tensor name, its integer attributes as expressions over
// the axes (one for every spatial dimension, or one each), the rest as given.
struct ForwardStep {
  ops::OpKind kind = ops::OpKind::relu;
  std::vector<std::string> inputs;
  std::string output;
  std::map<std::string, std::vector<std::string>> integers;  // kernel, stride, padding, dilation, ...
  ops::Op constants;  // dims, keepdim, count_include_pad and the scalars
};

// How an input's or a parameter's values are drawn (docs/suite-format.md,
// docs/inputs.md).
struct NamedDraw;
struct TensorInit {
  enum class Distribution { uniform, normal, uniform_fan_in, randint };
  Distribution distribution = Distribution::uniform;
  double low = 0, high = 0;  // uniform: [low, high)
  // randint: the integers of [low, high), expressions over the axes
  // (torch.randint(0, num_classes, ...)); randint_bounds_problem says which
  // bounds a draw can take.
  std::string randint_low, randint_high;
  double mean = 0, std = 0;  // normal
  std::string fan_in;        // uniform_fan_in: an expression over the axes
  // An input built as KernelBench's get_inputs() builds it (docs/inputs.md,
  // "Inputs built by ops"): ops of the library over the draw above (named
  // kDrawn, of the tensor's shape) and further draws of their own shapes,
  // the last op making the tensor. Empty: the draw is the tensor.
  std::vector<NamedDraw> draws;
  std::vector<ForwardStep> then;
};
// Why a randint draw cannot take these bounds, or "" when it can: few
// enough integers that 24 random bits give each its share (high above low
// by at most 2^16; docs/inputs.md), each exact in float32 (within +-2^24).
std::string randint_bounds_problem(std::int64_t low, std::int64_t high);

// The name the ops of TensorInit::then give the tensor's own draw.
inline constexpr const char* kDrawn = "drawn";

// A further draw of an input built by ops: its name in the ops, its shape
// (expressions over the axes) and its distribution (with no draws or ops).
struct NamedDraw {
  std::string name;
  std::vector<std::string> shape;
  TensorInit values;
};

struct TensorSpec {
  std::string name;
  TensorRole role = TensorRole::input;
  // Expressions over the axes; empty for an output whose shape the forward
  // pass computes (Suite::shape gives it either way).
  std::vector<std::string> shape;
  DType dtype = DType::float32;
  // Where the tensor comes from in the module it was imported from:
  // "get_inputs()[0]", or a state_dict key ("conv.weight"); empty if not said.
  std::string source;
  std::optional<TensorInit> init;  // every tensor but the output has one
};

struct AxisSpec {
  std::string name;
  std::int64_t default_value = 0;
  std::int64_t min = 0;  // inclusive range
  std::int64_t max = 0;
  std::string description;
};

// A legality rule over the axes (PyTorch's own checks, e.g. "output_padding < stride").
struct AxisRule {
  std::string check;    // expression, true when legal
  std::string message;  // what the user reads when it is false
};

struct Contract {
  bool no_mutation = true;  // inputs and parameters must be unchanged after a launch
  bool no_aliasing = true;  // the output must not overlap any input
};

// The forward pass at given axes: each step as an op with its attributes
// evaluated, and the shape of every tensor it names (declared or produced).
struct ResolvedForward {
  std::vector<ops::Op> ops;
  std::map<std::string, ops::Shape> shapes;
};

struct Suite {
  std::filesystem::path file;  // absolute
  std::string id;
  std::string title;
  nlohmann::ordered_json json;  // the file as loaded
  std::string identity;         // sha256 (hex) of the canonical JSON
  std::vector<TensorSpec> tensors;
  std::map<std::string, Tolerance> tolerances;  // by precision: fp32, tf32, bf16
  GatePolicy gate;
  std::vector<AxisSpec> axes;          // file order
  std::map<std::string, Axes> presets; // name -> axes it sets (e.g. "ci")
  std::vector<AxisRule> rules;         // the file's "requires"
  std::vector<ForwardStep> forward;    // the float64 reference, op by op
  std::string flops_expression;        // "cost.flops"; empty: the sum of the ops' FLOPs
  std::string flops_description;
  Contract contract;
  nlohmann::ordered_json origin;       // KernelBench level, problem, file, module

  Axes default_axes() const;
  // The tensors of one role, in file order.
  std::vector<const TensorSpec*> tensors_with_role(TensorRole role) const;
  const TensorSpec& output() const;  // the one output tensor
  std::int64_t numel(const std::string& tensor, const Axes& axes) const;

  // Defaults, then the named preset ("" or "default": none), then overrides;
  // validated (known axes, ranges, constraints, legal shapes). An override
  // under a renamed axis's old name (renamed_axes) sets the new one when this
  // suite has the new name and not the old. Throws kg::Error.
  Axes resolve_axes(const std::string& preset, const Axes& overrides = {}) const;
  // The tensor's extents at these axes: its declared shape, or for an
  // output without one what the forward pass computes.
  std::vector<std::int64_t> shape(const std::string& tensor, const Axes& axes) const;
  const TensorSpec& tensor(const std::string& name) const;
  const Tolerance& tolerance(const std::string& precision) const;
  // The forward pass at these axes. Throws kg::Error naming the step
  // ("workload W: forward[2]: conv: ...") whose operands do not fit.
  ResolvedForward resolve_forward(const Axes& axes) const;
  double flops(const Axes& axes) const;  // cost.flops, or the sum of the ops' (kernelgate/detail/ops.hpp)
  double bytes(const Axes& axes) const;  // each declared tensor crossing memory once, at its dtype's size
};

// One line for each override of `overrides` that resolve_axes takes as a
// renamed axis of this suite (given under its old name, which the suite does
// not have); empty for a suite whose own axis has the old name.
std::vector<std::string> renamed_axis_notes(const Suite& suite, const Axes& overrides);

// Throws kg::Error naming the file and the JSON path of the problem.
Suite load_suite(const std::filesystem::path& file);
// Every *.json below dir (recursively), sorted by id.
std::vector<Suite> load_suites(const std::filesystem::path& dir);
// Throws kg::Error("unknown workload ...") listing the known ones.
Suite find_suite(const std::filesystem::path& dir, const std::string& id);

// One of N runners' share of the workloads (`kernelgate run --all --shard
// I/N`): by id, the I-th and every N-th after it, so the N shards are
// disjoint, cover every workload and agree on every runner.
struct Shard {
  int index = 1;  // 1 .. count
  int count = 1;
};
// "I/N"; throws kg::Error naming the option and the value otherwise.
Shard parse_shard(const std::string& text);
std::vector<Suite> shard_of(std::vector<Suite> suites, const Shard& shard);

// "suites" and "baselines": the folders of the working directory.
std::filesystem::path default_suites_dir();
std::filesystem::path default_baselines_dir();
// The folder of the --suites option (empty: default_suites_dir()); throws
// kg::Error when it is not a folder, saying how the default is found.
std::filesystem::path resolve_suites_dir(const std::string& option);

}  // namespace kg
