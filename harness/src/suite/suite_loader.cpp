// Loading and validating suite files (docs/suite-format.md). Every malformed
// field is reported with the file and its JSON path.
#include <algorithm>
#include <fstream>
#include <regex>
#include <set>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/expression.hpp"
#include "kernelgate/detail/json_reader.hpp"
#include "kernelgate/detail/suite.hpp"
#include "sha256.hpp"
#include "suite_checks.hpp"

namespace kg {

namespace {

using Json = nlohmann::ordered_json;

// The header: "kind" and "schema_version", as in every file kernelgate
// reads. Suites written before that convention say "format" instead.
const FileKind kSuiteKind{.kind = "kernelgate-suite", .oldest_version = 1, .version = 1};
constexpr const char* kLegacyFormat = "kernelgate-suite/1";  // schema version 1
const std::set<std::string> kHeaderKeys{"kind", "schema_version", "format"};

// Ids and preset names are lowercase: they become file and test names.
bool is_identifier(const std::string& text) {
  static const std::regex pattern("[a-z_][a-z0-9_]*");
  return std::regex_match(text, pattern);
}

// Axis and tensor names may have capitals: they are spelled as the source
// module spells them (KernelBench's matmul problems say N, A and B).
bool is_name(const std::string& text) {
  static const std::regex pattern("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(text, pattern);
}

std::string axis_list(const Suite& suite) {
  std::string names;
  for (const auto& axis : suite.axes) names += (names.empty() ? "" : ", ") + axis.name;
  return names;
}

const AxisSpec* find_axis(const Suite& suite, const std::string& name) {
  for (const auto& axis : suite.axes)
    if (axis.name == name) return &axis;
  return nullptr;
}

// Parses an expression field and checks that it only names axes of the suite.
std::string read_expression(const JsonReader& field, const Suite& suite) {
  std::string text;
  if (field.json().is_number_integer()) {
    text = std::to_string(field.json().get<std::int64_t>());
  } else if (field.json().is_string()) {
    text = field.as_nonempty_string();
  } else {
    field.fail("expected an expression (a string or an integer), got " +
               JsonReader::describe(field.json()));
  }
  Expression expression = [&] {
    try {
      return Expression::parse(text);
    } catch (const Error& e) {
      field.fail(e.what());
    }
  }();
  for (const auto& name : expression.names())
    if (!find_axis(suite, name))
      field.fail("expression '" + text + "' names unknown axis '" + name + "' (axes: " +
                 axis_list(suite) + ")");
  return text;
}

void read_origin(const JsonReader& field, Suite& suite) {
  field.expect_keys({"benchmark"}, {"level", "problem", "file", "module", "url"});
  field.at("benchmark").as_nonempty_string();
  if (field.has("level")) field.at("level").as_integer();
  if (field.has("problem")) field.at("problem").as_integer();
  for (const char* key : {"file", "module", "url"})
    if (field.has(key)) field.at(key).as_nonempty_string();
  suite.origin = field.json();
}

void read_axes(const JsonReader& field, Suite& suite) {
  field.expect_object();
  if (field.json().empty()) field.fail("a workload needs at least one axis");
  for (const auto& [name, unused] : field.json().items()) {
    JsonReader axis_field = field.at(name);
    if (!is_name(name))
      axis_field.fail("axis names are letters, digits and '_', not starting with a digit");
    if (name == "min" || name == "max" || name == "convt_taps")
      axis_field.fail("'" + name + "' is a function of the expression language, not an axis name");
    axis_field.expect_keys({"default", "min", "max"}, {"description"});
    AxisSpec axis;
    axis.name = name;
    axis.min = axis_field.at("min").as_integer();
    axis.max = axis_field.at("max").as_integer();
    if (axis.min > axis.max)
      axis_field.at("max").fail("max " + std::to_string(axis.max) + " is below min " +
                                   std::to_string(axis.min));
    axis.default_value = axis_field.at("default").as_integer();
    if (axis.default_value < axis.min || axis.default_value > axis.max)
      axis_field.at("default").fail(std::to_string(axis.default_value) + " is out of range [" +
                                       std::to_string(axis.min) + ", " + std::to_string(axis.max) +
                                       "]");
    if (axis_field.has("description")) axis.description = axis_field.at("description").as_string();
    suite.axes.push_back(axis);
  }
}

void read_presets(const JsonReader& field, Suite& suite) {
  field.expect_object();
  for (const auto& [preset_name, unused] : field.json().items()) {
    JsonReader preset_field = field.at(preset_name);
    if (!is_identifier(preset_name))
      preset_field.fail("preset names are lowercase letters, digits and '_'");
    if (preset_name == "default") preset_field.fail("'default' names the defaults themselves");
    preset_field.expect_object();
    Axes values;
    for (const auto& [axis_name, unused_value] : preset_field.json().items()) {
      JsonReader value_field = preset_field.at(axis_name);
      const AxisSpec* axis = find_axis(suite, axis_name);
      if (!axis) value_field.fail("unknown axis (axes: " + axis_list(suite) + ")");
      std::int64_t value = value_field.as_integer();
      if (value < axis->min || value > axis->max)
        value_field.fail(std::to_string(value) + " is out of range [" + std::to_string(axis->min) +
                         ", " + std::to_string(axis->max) + "]");
      values[axis_name] = value;
    }
    suite.presets[preset_name] = values;
  }
}

void read_rules(const JsonReader& field, Suite& suite) {
  field.expect_array();
  for (std::size_t i = 0; i < field.json().size(); ++i) {
    JsonReader rule_field = field.at(i);
    rule_field.expect_keys({"check", "message"});
    AxisRule rule;
    rule.check = read_expression(rule_field.at("check"), suite);
    rule.message = rule_field.at("message").as_nonempty_string();
    suite.rules.push_back(rule);
  }
}

// The distribution of an init or of a further draw; `also` are the keys
// allowed beside its own.
TensorInit read_distribution(const JsonReader& field, const Suite& suite, const std::set<std::string>& also) {
  field.expect_object();
  if (!field.has("distribution")) field.fail_at("distribution", "missing required field");
  const std::string distribution = field.at("distribution").as_string();
  TensorInit init;
  if (distribution == "uniform") {
    field.expect_keys({"distribution", "low", "high"}, also);
    init.low = field.at("low").as_number();
    init.high = field.at("high").as_number();
    if (!(init.low < init.high)) field.at("high").fail("must be greater than low");
  } else if (distribution == "normal") {
    field.expect_keys({"distribution", "mean", "std"}, also);
    init.distribution = TensorInit::Distribution::normal;
    init.mean = field.at("mean").as_number();
    init.std = field.at("std").as_number();
    if (!(init.std > 0)) field.at("std").fail("must be positive");
  } else if (distribution == "uniform_fan_in") {
    field.expect_keys({"distribution", "fan_in"}, also);
    init.distribution = TensorInit::Distribution::uniform_fan_in;
    init.fan_in = read_expression(field.at("fan_in"), suite);
  } else if (distribution == "randint") {
    field.expect_keys({"distribution", "low", "high"}, also);
    init.distribution = TensorInit::Distribution::randint;
    init.randint_low = read_expression(field.at("low"), suite);
    init.randint_high = read_expression(field.at("high"), suite);
    // Bounds over the axes are checked where they are resolved.
    if (field.at("low").json().is_number_integer() && field.at("high").json().is_number_integer()) {
      const std::string problem =
          randint_bounds_problem(field.at("low").as_integer(), field.at("high").as_integer());
      if (!problem.empty()) field.fail(problem);
    }
  } else {
    field.at("distribution")
        .fail("unknown distribution '" + distribution + "' (known: uniform, normal, uniform_fan_in, randint)");
  }
  return init;
}

// An input's draws and the ops that build it from them (TensorInit::then).
void read_init_ops(const JsonReader& field, const Suite& suite, const std::string& tensor, TensorInit& init) {
  std::vector<std::string> available{kDrawn};
  if (field.has("draws")) {
    const JsonReader draws_field = field.at("draws");
    draws_field.expect_array();
    for (std::size_t i = 0; i < draws_field.size(); ++i) {
      const JsonReader draw_field = draws_field.at(i);
      NamedDraw draw;
      draw.values = read_distribution(draw_field, suite, {"name", "shape"});
      draw.name = draw_field.at("name").as_nonempty_string();
      if (!is_name(draw.name) || draw.name == kDrawn || draw.name == tensor ||
          std::find(available.begin(), available.end(), draw.name) != available.end())
        draw_field.at("name").fail("a draw's name is a new name of letters, digits and '_' (not '" +
                                   std::string(kDrawn) + "' or the tensor's)");
      const JsonReader shape_field = draw_field.at("shape");
      shape_field.expect_array();
      if (shape_field.size() == 0) shape_field.fail("a shape needs at least one dimension");
      for (std::size_t d = 0; d < shape_field.size(); ++d)
        draw.shape.push_back(read_expression(shape_field.at(d), suite));
      available.push_back(draw.name);
      init.draws.push_back(std::move(draw));
    }
  }
  if (!field.has("then")) field.fail_at("then", "draws are read by ops: give them");
  init.then = read_steps(field.at("then"), available, "a draw of this tensor", tensor,
                         [&](const JsonReader& expression) { return read_expression(expression, suite); });
}

TensorInit read_init(const JsonReader& field, const Suite& suite, const std::string& tensor) {
  TensorInit init = read_distribution(field, suite, {"draws", "then"});
  if (field.has("draws") || field.has("then")) read_init_ops(field, suite, tensor, init);
  return init;
}

DType read_dtype(const JsonReader& field) {
  const std::string name = field.as_string();
  if (const auto dtype = kDTypeNames.find(name)) return *dtype;
  field.fail("unknown dtype '" + name + "' (known: " + kDTypeNames.known() + ")");
}

// An integer or boolean input holds what its draw makes, exactly: integers
// of a randint draw (0 and 1 for a bool), with no ops after it, which
// compute in floating point. An output is float32 or int64 (positions,
// compared exactly); no op makes a bool.
void check_dtype(const JsonReader& tensor_field, const TensorSpec& tensor) {
  if (tensor.dtype == DType::float32) return;
  const std::string dtype(to_string(tensor.dtype));
  if (tensor.role == TensorRole::output) {
    if (tensor.dtype != DType::int64) tensor_field.fail_at("dtype", "an output is float32 or int64, not " + dtype);
    return;
  }
  const TensorInit& init = *tensor.init;
  const JsonReader init_field = tensor_field.at("init");
  if (init.distribution != TensorInit::Distribution::randint)
    init_field.fail_at("distribution", "a tensor of dtype " + dtype + " is drawn by randint");
  if (!init.then.empty())
    init_field.fail_at("then", "a tensor of dtype " + dtype + " is its draw, with no ops after it");
  if (tensor.dtype == DType::boolean && !(init.randint_low == "0" && init.randint_high == "2"))
    init_field.fail("a bool tensor draws from [0, 2) (low 0, high 2)");
}

void read_tensors(const JsonReader& field, Suite& suite) {
  field.expect_array();
  if (field.json().empty()) field.fail("a workload needs tensors");
  std::set<std::string> names;
  for (std::size_t i = 0; i < field.json().size(); ++i) {
    JsonReader tensor_field = field.at(i);
    tensor_field.expect_keys({"name", "role"}, {"shape", "init", "dtype", "description", "source"});
    TensorSpec tensor;
    tensor.name = tensor_field.at("name").as_nonempty_string();
    if (!is_name(tensor.name))
      tensor_field.at("name").fail("tensor names are letters, digits and '_', not starting with a digit");
    if (!names.insert(tensor.name).second)
      tensor_field.at("name").fail("tensor '" + tensor.name + "' is declared twice");
    const std::string role = tensor_field.at("role").as_string();
    if (const auto known_role = kTensorRoleNames.find(role)) tensor.role = *known_role;
    else tensor_field.at("role").fail("unknown role '" + role + "' (known: " + kTensorRoleNames.known() + ")");
    // The output's shape may be left to the forward pass, which computes it.
    if (tensor.role != TensorRole::output && !tensor_field.has("shape"))
      tensor_field.fail_at("shape", "missing required field");
    if (tensor_field.has("shape")) {
      JsonReader shape_field = tensor_field.at("shape");
      shape_field.expect_array();
      if (shape_field.json().empty()) shape_field.fail("a shape needs at least one dimension");
      for (std::size_t d = 0; d < shape_field.json().size(); ++d)
        tensor.shape.push_back(read_expression(shape_field.at(d), suite));
    }
    if (tensor_field.has("source")) tensor.source = tensor_field.at("source").as_nonempty_string();
    if (tensor_field.has("dtype")) tensor.dtype = read_dtype(tensor_field.at("dtype"));
    if (tensor.role == TensorRole::output) {
      if (tensor_field.has("init"))
        tensor_field.fail_at("init", "an output is computed, it has no init");
    } else {
      if (!tensor_field.has("init")) tensor_field.fail_at("init", "missing required field");
      tensor.init = read_init(tensor_field.at("init"), suite, tensor.name);
    }
    check_dtype(tensor_field, tensor);
    suite.tensors.push_back(tensor);
  }
  auto outputs = suite.tensors_with_role(TensorRole::output).size();
  if (outputs != 1)
    field.fail("expected exactly one tensor with role output, found " + std::to_string(outputs));
  if (suite.tensors_with_role(TensorRole::input).empty())
    field.fail("expected at least one tensor with role input");
}

// Optional: without it the FLOPs are the sum of the forward pass's ops.
void read_cost(const JsonReader& field, Suite& suite) {
  field.expect_keys({"flops"}, {"description"});
  suite.flops_expression = read_expression(field.at("flops"), suite);
  if (field.has("description")) suite.flops_description = field.at("description").as_string();
}

void read_tolerances(const JsonReader& field, Suite& suite) {
  field.expect_keys({"fp32"}, {"tf32", "bf16", "fp16"});
  for (const auto& [precision, unused] : field.json().items()) {
    JsonReader tolerance_field = field.at(precision);
    tolerance_field.expect_keys({"atol", "rtol", "rel_l2"}, {"description"});
    Tolerance tolerance;
    auto non_negative = [](const JsonReader& f) {
      double value = f.as_number();
      if (!(value >= 0)) f.fail("must be zero or positive");
      return value;
    };
    tolerance.atol = non_negative(tolerance_field.at("atol"));
    tolerance.rtol = non_negative(tolerance_field.at("rtol"));
    tolerance.rel_l2 = non_negative(tolerance_field.at("rel_l2"));
    suite.tolerances[precision] = tolerance;
  }
}

void read_gate(const JsonReader& field, Suite& suite) {
  field.expect_keys({}, {"latency_tolerance", "noise_multiplier", "max_age_days", "win_is_stale", "min_samples",
                         "max_cv", "max_rounds", "inconclusive", "counter_tolerance"});
  if (field.has("latency_tolerance")) {
    suite.gate.latency_tolerance = field.at("latency_tolerance").as_number();
    if (!(suite.gate.latency_tolerance >= 0 && suite.gate.latency_tolerance <= kMaxLatencyTolerance))
      field.at("latency_tolerance").fail("must be between 0 and " + std::to_string(int(kMaxLatencyTolerance)));
  }
  if (field.has("counter_tolerance")) {
    suite.gate.counter_tolerance = field.at("counter_tolerance").as_number();
    if (!(suite.gate.counter_tolerance >= 0 && suite.gate.counter_tolerance <= 1))
      field.at("counter_tolerance").fail("must be between 0 and 1");
  }
  if (field.has("noise_multiplier")) {
    suite.gate.noise_multiplier = field.at("noise_multiplier").as_number();
    if (!(suite.gate.noise_multiplier >= 0 && suite.gate.noise_multiplier <= kMaxNoiseMultiplier))
      field.at("noise_multiplier").fail("must be between 0 and " + std::to_string(int(kMaxNoiseMultiplier)));
  }
  if (field.has("max_age_days")) {
    std::int64_t days = field.at("max_age_days").as_integer();
    if (days < 0 || days > kMaxAgeDays)
      field.at("max_age_days").fail("must be between 0 and " + std::to_string(kMaxAgeDays));
    suite.gate.max_age_days = static_cast<int>(days);
  }
  if (field.has("win_is_stale")) suite.gate.win_is_stale = field.at("win_is_stale").as_bool();
  if (field.has("min_samples")) {
    std::int64_t samples = field.at("min_samples").as_integer();
    if (samples < 2 || samples > 100000) field.at("min_samples").fail("must be between 2 and 100000");
    suite.gate.min_samples = static_cast<int>(samples);
  }
  if (field.has("max_cv")) {
    suite.gate.max_cv = field.at("max_cv").as_number();
    if (!(suite.gate.max_cv > 0 && suite.gate.max_cv <= 10)) field.at("max_cv").fail("must be above 0, at most 10");
  }
  if (field.has("max_rounds")) {
    std::int64_t rounds = field.at("max_rounds").as_integer();
    if (rounds < 1 || rounds > 20) field.at("max_rounds").fail("must be between 1 and 20");
    suite.gate.max_rounds = static_cast<int>(rounds);
  }
  if (field.has("inconclusive")) {
    const std::string policy = field.at("inconclusive").as_string();
    if (policy != "fail" && policy != "warn") field.at("inconclusive").fail("must be \"fail\" or \"warn\"");
    suite.gate.inconclusive_fails = policy == "fail";
  }
}

void read_contract(const JsonReader& field, Suite& suite) {
  field.expect_keys({"no_mutation", "no_aliasing"});
  suite.contract.no_mutation = field.at("no_mutation").as_bool();
  suite.contract.no_aliasing = field.at("no_aliasing").as_bool();
}

// The defaults and every preset must be legal axes: a suite whose own axes
// fail would only surface later, in the middle of a run.
void check_declared_axes(const JsonReader& root, const Suite& suite) {
  auto check = [&](const Axes& axes, const JsonReader& where, const std::string& which) {
    if (auto violation = find_rule_violation(suite, axes))
      where.fail(which + " are illegal: " + *violation);
    if (auto problem = find_shape_problem(suite, axes))
      root.at("tensors")
          .at(problem->tensor_index)
          .at("shape")
          .at(problem->dimension)
          .fail("evaluates to " + std::to_string(problem->extent) + " at " + which +
                ", must be positive");
  };
  check(suite.default_axes(), root.at("axes"), "the default axes");
  for (const auto& [name, values] : suite.presets) {
    Axes axes = suite.default_axes();
    for (const auto& [axis, value] : values) axes[axis] = value;
    check(axes, root.at("presets").at(name), "the axes of preset '" + name + "'");
  }
  // Then the forward pass, whose shapes follow from the tensors' at each.
  auto check_forward = [&](const Axes& axes, const std::string& which) {
    for (std::size_t t = 0; t < suite.tensors.size(); ++t) {
      if (auto problem = find_draw_problem(axes, suite.tensors[t]))
        root.at("tensors").at(t).at("init").fail(*problem + " at " + which);
      if (auto problem = find_init_problem(suite, axes, suite.tensors[t])) {
        const JsonReader init = root.at("tensors").at(t).at("init");
        if (problem->where == InitProblem::Where::draw_shape)
          init.at("draws").at(problem->index).at("shape").at(problem->dimension).fail(problem->message + " at " + which);
        init.at("then").at(problem->index).fail(problem->message + " at " + which);
      }
    }
    if (auto problem = find_forward_problem(suite, axes))
      root.at("forward").at(problem->step).fail(problem->message + " at " + which);
  };
  check_forward(suite.default_axes(), "the default axes");
  for (const auto& [name, values] : suite.presets) {
    Axes axes = suite.default_axes();
    for (const auto& [axis, value] : values) axes[axis] = value;
    check_forward(axes, "the axes of preset '" + name + "'");
  }
}

void read_header(const JsonReader& root) {
  if (root.has("format") && !root.has("kind") && !root.has("schema_version")) {
    const std::string format = root.at("format").as_string();
    if (format != kLegacyFormat)
      root.at("format").fail("unsupported format '" + format + "' (this kernelgate reads " + kLegacyFormat + ")");
    return;
  }
  if (root.has("format"))
    root.fail_at("format", "the old spelling of \"kind\" and \"schema_version\": give one or the other");
  read_file_kind(root, kSuiteKind);
}

}  // namespace

Suite load_suite(const std::filesystem::path& file) {
  const std::string file_name = file.string();
  Suite suite;
  // Absolute: the candidate's child process loads the suite again from its
  // own scratch folder, where a path relative to the run's folder means nothing.
  suite.file = std::filesystem::absolute(file);
  suite.json = read_json_file(file);
  JsonReader root(suite.json, file_name);
  read_header(root);
  std::set<std::string> optional{"presets", "requires", "cost", "gate", "description"};
  optional.insert(kHeaderKeys.begin(), kHeaderKeys.end());
  root.expect_keys({"id", "title", "origin", "axes", "tensors", "forward", "tolerance", "contract"}, optional);
  suite.id = root.at("id").as_nonempty_string();
  if (!is_identifier(suite.id))
    root.at("id").fail("workload ids are lowercase letters, digits and '_'");
  suite.title = root.at("title").as_nonempty_string();
  if (root.has("description")) root.at("description").as_string();
  read_origin(root.at("origin"), suite);
  read_axes(root.at("axes"), suite);
  if (root.has("presets")) read_presets(root.at("presets"), suite);
  if (root.has("requires")) read_rules(root.at("requires"), suite);
  read_tensors(root.at("tensors"), suite);
  read_forward(root.at("forward"), suite, [&](const JsonReader& field) { return read_expression(field, suite); });
  if (root.has("cost")) read_cost(root.at("cost"), suite);
  read_tolerances(root.at("tolerance"), suite);
  if (root.has("gate")) read_gate(root.at("gate"), suite);
  read_contract(root.at("contract"), suite);
  check_declared_axes(root, suite);

  // Identity: the canonical form is nlohmann's compact dump with sorted keys
  // (a plain nlohmann::json sorts its object keys), so whitespace and key
  // order do not change it, but any change of content does. The header is
  // left out: it says how the file is spelled, not what the workload is.
  nlohmann::json canonical = nlohmann::json::parse(suite.json.dump());
  for (const auto& key : kHeaderKeys) canonical.erase(key);
  suite.identity = sha256_hex(canonical.dump());
  return suite;
}

std::vector<Suite> load_suites(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error))
    throw Error("suites folder '" + dir.string() + "' does not exist or is not a folder");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<Suite> suites;
  for (const auto& file : files) {
    Suite suite = load_suite(file);
    for (const auto& other : suites)
      if (other.id == suite.id)
        throw Error(file.string() + ": $.id: workload '" + suite.id + "' is also defined in " +
                    other.file.string());
    suites.push_back(std::move(suite));
  }
  std::sort(suites.begin(), suites.end(),
            [](const Suite& a, const Suite& b) { return a.id < b.id; });
  return suites;
}

Suite find_suite(const std::filesystem::path& dir, const std::string& id) {
  std::vector<Suite> suites = load_suites(dir);
  for (auto& suite : suites)
    if (suite.id == id) return std::move(suite);
  std::string known;
  for (const auto& suite : suites) known += (known.empty() ? "" : ", ") + suite.id;
  throw Error("unknown workload '" + id + "' in " + dir.string() + " (known: " +
              (known.empty() ? "none" : known) + ")");
}

}  // namespace kg
