// Each kind of malformed suite file gives one exact error naming the file and
// the JSON path.
#include <unistd.h>

#include <gtest/gtest.h>

#include <limits>

#include "kernelgate/detail/ops.hpp"
#include "suite_test_util.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

using test::load_error;
using test::load_edited;
using test::TempDir;
using Json = nlohmann::ordered_json;

class SuiteValidation : public ::testing::Test {
 protected:
  // "<file>: <path>: <problem>" for the edited suite.
  void expect_error(const std::function<void(Json&)>& edit, const std::string& path_and_problem) {
    std::string file;
    std::string error = load_error(dir_, edit, &file);
    EXPECT_EQ(error, file + ": " + path_and_problem);
  }
  TempDir dir_;
};

const char* kAxes =
    "batch_size, in_channels, out_channels, kernel_size, height_in, width_in, stride, padding, "
    "output_padding, groups";

TEST_F(SuiteValidation, StockSuitesLoad) {
  for (const char* id : {"l1_071_conv_transposed_2d", "l1_086_conv_depthwise_separable_2d",
                         "l2_078_conv_transpose3d_max_max_sum"}) {
    Suite suite = load_suite(test::stock_suite_file(id));
    EXPECT_EQ(suite.id, id);
    EXPECT_EQ(suite.identity.size(), 64u);
    EXPECT_TRUE(suite.presets.count("ci"));
  }
}

TEST_F(SuiteValidation, UnknownKey) {
  expect_error([](Json& j) { j["colour"] = "red"; },
               "$.colour: unknown key (allowed here: axes, contract, cost, description, format, "
               "forward, gate, id, kind, origin, presets, requires, schema_version, tensors, title, "
               "tolerance)");
  expect_error([](Json& j) { j["axes"]["batch_size"]["defualt"] = 8; },
               "$.axes.batch_size.defualt: unknown key (allowed here: default, description, max, min)");
}

TEST_F(SuiteValidation, GateRoundsAndInconclusivePolicy) {
  expect_error([](Json& j) { j["gate"]["max_rounds"] = 0; }, "$.gate.max_rounds: must be between 1 and 20");
  // The ranges of the command line's overrides (suite.hpp).
  expect_error([](Json& j) { j["gate"]["max_age_days"] = 36501; }, "$.gate.max_age_days: must be between 0 and 36500");
  expect_error([](Json& j) { j["gate"]["latency_tolerance"] = 11; },
               "$.gate.latency_tolerance: must be between 0 and 10");
  expect_error([](Json& j) { j["gate"]["inconclusive"] = "ignore"; },
               "$.gate.inconclusive: must be \"fail\" or \"warn\"");
  std::string file;
  EXPECT_EQ(load_error(dir_, [](Json& j) { j["gate"]["inconclusive"] = "warn"; j["gate"]["max_rounds"] = 5; }, &file),
            "no error");
  const Suite suite = load_suite(file);
  EXPECT_FALSE(suite.gate.inconclusive_fails);
  EXPECT_EQ(suite.gate.max_rounds, 5);
  EXPECT_TRUE(load_suite(test::stock_suite_file("l1_086_conv_depthwise_separable_2d")).gate.inconclusive_fails);
}

TEST_F(SuiteValidation, WrongType) {
  expect_error([](Json& j) { j["axes"]["batch_size"]["default"] = "8"; },
               "$.axes.batch_size.default: expected an integer, got string \"8\"");
  expect_error([](Json& j) { j["tolerance"]["fp32"]["atol"] = "tight"; },
               "$.tolerance.fp32.atol: expected a number, got string \"tight\"");
  expect_error([](Json& j) { j["contract"]["no_mutation"] = 1; },
               "$.contract.no_mutation: expected true or false, got number 1");
  expect_error([](Json& j) { j["tensors"] = Json::object(); },
               "$.tensors: expected an array, got an object");
  expect_error([](Json& j) { j["tensors"][0]["shape"][1] = 2.5; },
               "$.tensors[0].shape[1]: expected an expression (a string or an integer), got number 2.5");
}

TEST_F(SuiteValidation, MissingField) {
  expect_error([](Json& j) { j.erase("forward"); }, "$.forward: missing required field");
  expect_error([](Json& j) { j["axes"]["stride"].erase("max"); },
               "$.axes.stride.max: missing required field");
  expect_error([](Json& j) { j["tensors"][1].erase("init"); }, "$.tensors[1].init: missing required field");
  expect_error([](Json& j) { j["tensors"][0].erase("shape"); }, "$.tensors[0].shape: missing required field");
}

// An output without a declared shape has the one its forward pass computes
// (a transposed convolution's here), wherever a shape is asked for.
TEST_F(SuiteValidation, AnOutputsShapeMayBeLeftToTheForwardPass) {
  const Suite stock = load_edited(dir_, [](Json&) {});
  const Suite computed = load_edited(dir_, [](Json& j) {
    j["tensors"][2].erase("shape");
    j["tensors"][0]["source"] = "get_inputs()[0]";
  });
  EXPECT_TRUE(computed.output().shape.empty());
  EXPECT_EQ(computed.tensor("x").source, "get_inputs()[0]");
  for (const char* preset : {"", "ci"}) {
    const Axes axes = stock.resolve_axes(preset);
    EXPECT_EQ(computed.shape(computed.output().name, axes), stock.shape(stock.output().name, axes)) << preset;
    EXPECT_EQ(computed.bytes(axes), stock.bytes(axes)) << preset;
  }
}

TEST_F(SuiteValidation, AxisOutOfRange) {
  expect_error([](Json& j) { j["axes"]["batch_size"]["default"] = 0; },
               "$.axes.batch_size.default: 0 is out of range [1, 1024]");
  expect_error([](Json& j) { j["presets"]["ci"]["batch_size"] = 5000; },
               "$.presets.ci.batch_size: 5000 is out of range [1, 1024]");
  expect_error([](Json& j) { j["presets"]["ci"]["chanels"] = 4; },
               std::string("$.presets.ci.chanels: unknown axis (axes: ") + kAxes + ")");
}

TEST_F(SuiteValidation, ExpressionNamingUnknownAxis) {
  expect_error([](Json& j) { j["tensors"][1]["shape"][1] = "out_channels / grups"; },
               std::string("$.tensors[1].shape[1]: expression 'out_channels / grups' names unknown "
                           "axis 'grups' (axes: ") +
                   kAxes + ")");
  expect_error([](Json& j) { j["cost"]["flops"] = "2 * "; },
               "$.cost.flops: expression '2 * ' at position 5: expected a number, an axis name or "
               "'(' but the expression ends");
}

TEST_F(SuiteValidation, EmptyOrNegativeShape) {
  expect_error([](Json& j) { j["tensors"][0]["shape"] = Json::array(); },
               "$.tensors[0].shape: a shape needs at least one dimension");
  expect_error([](Json& j) { j["tensors"][0]["shape"][2] = "height_in - 600"; },
               "$.tensors[0].shape[2]: evaluates to -88 at the default axes, must be positive");
  expect_error([](Json& j) { j["tensors"][0]["shape"][2] = "height_in - 19"; },
               "$.tensors[0].shape[2]: evaluates to 0 at the axes of preset 'ci', must be positive");
}

TEST_F(SuiteValidation, MalformedForwardPass) {
  std::string known;  // every op of the library, in its order
  for (const auto& [kind, name] : ops::op_kinds()) known += (known.empty() ? "" : ", ") + std::string(name);
  expect_error([](Json& j) { j["forward"][0]["op"] = "convolve"; },
               "$.forward[0].op: unknown op 'convolve' (known: " + known + ")");
  expect_error([](Json& j) { j["forward"][0]["inputs"][1] = "w"; },
               "$.forward[0].inputs[1]: 'w' is neither an input or parameter nor the output of an earlier op");
  expect_error([](Json& j) { j["forward"][0]["inputs"] = {"x"}; },
               "$.forward[0].inputs: conv_transpose takes 2 or 3 operands, got 1");
  expect_error([](Json& j) { j["forward"][0]["kernel"] = 3; },
               "$.forward[0].kernel: unknown key (allowed here: dilation, groups, inputs, op, output, "
               "output_padding, padding, stride)");
  expect_error([](Json& j) { j["forward"][0]["output"] = "z"; },
               "$.forward[0].output: the last op must produce 'y'");
  expect_error([](Json& j) { j["forward"][0]["output"] = "x"; },
               "$.forward[0].output: 'x' is already a tensor: every op makes a new one");
  expect_error([](Json& j) { j["forward"][0]["stride"] = "bad axis"; },
               "$.forward[0].stride: expression 'bad axis' at position 5: unexpected 'a'");
  expect_error(
      [](Json& j) {
        j["tensors"].push_back({{"name", "extra"}, {"role", "parameter"}, {"shape", {1}},
                                {"init", {{"distribution", "uniform"}, {"low", 0}, {"high", 1}}}});
      },
      "$.forward: tensor 'extra' is declared or made but no op reads it");
  expect_error(
      [](Json& j) {
        j["forward"].insert(j["forward"].begin(), Json{{"op", "relu"}, {"inputs", {"x"}}, {"output", "spare"}});
      },
      "$.forward: tensor 'spare' is declared or made but no op reads it");
}

// The suite with a second op after the transposed convolution, which now
// makes "t": `op` reads t and makes the output y.
std::function<void(Json&)> then(Json op) {
  return [op](Json& j) {
    j["forward"][0]["output"] = "t";
    Json step = op;
    step["inputs"] = {"t"};
    step["output"] = "y";
    j["forward"].push_back(step);
  };
}

TEST_F(SuiteValidation, TheScalarsAndDimOfAnOp) {
  expect_error(then({{"op", "softmax"}}), "$.forward[1].dim: missing required field");
  expect_error(then({{"op", "cumprod"}, {"dim", 1}, {"reverse", 1}}),
               "$.forward[1].reverse: expected true or false, got number 1");
  expect_error(then({{"op", "pow"}}), "$.forward[1].exponent: missing required field");
  expect_error(then({{"op", "leaky_relu"}, {"negative_slop", 0.1}}),
               "$.forward[1].negative_slop: unknown key (allowed here: inputs, negative_slope, op, output)");
  expect_error(then({{"op", "clamp"}}), "$.forward[1]: clamp needs low, high or both");
  expect_error(then({{"op", "hardtanh"}, {"min_val", 2}}),
               "$.forward[1]: hardtanh: min_val is above max_val at the default axes");
  expect_error(then({{"op", "softmax"}, {"dim", 4}}),
               "$.forward[1]: softmax: dim 4 is outside a tensor of rank 4 at the default axes");
  expect_error(then({{"op", "layer_norm"}, {"normalized_shape", {5}}}),
               "$.forward[1]: layer_norm: normalized_shape [5] is not the trailing shape of [8, 32, 514, 1026] "
               "at the default axes");
  expect_error(then({{"op", "group_norm"}, {"num_groups", "out_channels / 3"}}),
               "$.forward[1]: group_norm: channels 32 are not divisible by num_groups 10 at the default axes");
  expect_error(then({{"op", "group_norm"}, {"num_groups", {2, 2}}}),
               "$.forward[1].num_groups: num_groups is one value");
  expect_error(then({{"op", "narrow"}, {"dim", 3}, {"start", 2}, {"length", "width_in * 3"}}),
               "$.forward[1]: narrow: start 2 and length 3072 do not fit in extent 1026 at the default axes");

  // Given values reach the op; the others keep PyTorch's defaults.
  TempDir dir;
  Suite softplus = test::load_edited(dir, then({{"op", "softplus"}, {"beta", 2}}));
  EXPECT_EQ(softplus.forward[1].constants.scalar("beta"), 2.0);
  EXPECT_EQ(softplus.forward[1].constants.scalar("threshold"), 20.0);
  Suite clamp = test::load_edited(dir, then({{"op", "clamp"}, {"high", 0.5}}));
  EXPECT_EQ(clamp.forward[1].constants.scalar("high"), 0.5);
  EXPECT_EQ(clamp.forward[1].constants.scalar("low"), -std::numeric_limits<double>::infinity());
  Suite grouped = test::load_edited(dir, then({{"op", "group_norm"}, {"num_groups", "out_channels / 8"}, {"eps", 0}}));
  EXPECT_EQ(grouped.forward[1].constants.scalar("eps"), 0.0);
  EXPECT_EQ(grouped.forward[1].integers.at("num_groups"), (std::vector<std::string>{"out_channels / 8"}));
  Suite scan = test::load_edited(dir, then({{"op", "cumsum"}, {"dim", 2}, {"reverse", true}, {"exclusive", true}}));
  EXPECT_TRUE(scan.forward[1].constants.reverse);
  EXPECT_TRUE(scan.forward[1].constants.exclusive);
  Suite softmax = test::load_edited(dir, then({{"op", "log_softmax"}, {"dim", -3}}));
  EXPECT_EQ(softmax.forward[1].constants.dims, (std::vector<std::int64_t>{-3}));
}

// Each integer attribute, an expression over the axes, reaches its op's
// field at the axes resolved: a chain that narrows, masks, normalises,
// scales and reshapes the transposed convolution's output.
TEST(SuiteForward, IntegerAttributesReachTheirOps) {
  test::TempDir dir;
  const Suite suite = test::load_edited(dir, [](Json& j) {
    j["forward"][0]["output"] = "t";
    const std::vector<Json> chain = {
        {{"op", "narrow"}, {"inputs", {"t"}}, {"output", "u"}, {"dim", 3}, {"start", "stride"},
         {"length", "width_in"}},
        {{"op", "triu"}, {"inputs", {"u"}}, {"output", "v"}, {"diagonal", "padding - 1"}},
        {{"op", "group_norm"}, {"inputs", {"v"}}, {"output", "w"}, {"num_groups", "out_channels / 8"}},
        {{"op", "layer_norm"}, {"inputs", {"w"}}, {"output", "n"}, {"normalized_shape", {"width_in"}}},
        {{"op", "scale"}, {"inputs", {"n"}}, {"output", "s"}, {"value", 2}, {"divisor", "batch_size"}},
        {{"op", "reshape"}, {"inputs", {"s"}}, {"output", "y"},
         {"shape", {"batch_size", "out_channels", -1, "width_in"}}},
    };
    for (const Json& step : chain) j["forward"].push_back(step);
    j["tensors"].back()["shape"][3] = "width_in";
  });
  const Axes axes = suite.resolve_axes("ci");
  const ResolvedForward forward = suite.resolve_forward(axes);
  ASSERT_EQ(forward.ops.size(), 7u);
  EXPECT_EQ(forward.ops[1].start, axes.at("stride"));
  EXPECT_EQ(forward.ops[1].length, axes.at("width_in"));
  EXPECT_EQ(forward.ops[2].diagonal, axes.at("padding") - 1);
  EXPECT_EQ(forward.ops[3].num_groups, axes.at("out_channels") / 8);
  EXPECT_EQ(forward.ops[4].normalized_shape, (ops::Shape{axes.at("width_in")}));
  EXPECT_EQ(forward.ops[5].divisor, axes.at("batch_size"));
  EXPECT_EQ(forward.ops[6].shape,
            (ops::Shape{axes.at("batch_size"), axes.at("out_channels"), -1, axes.at("width_in")}));
}

TEST_F(SuiteValidation, ForwardPassThatDoesNotFit) {
  // The op's own rule, at the axes where it first fails.
  expect_error([](Json& j) { j["forward"][0]["groups"] = 3; },
               "$.forward[0]: conv_transpose: input channels 32 are not divisible by groups 3 at the default axes");
  // An output other than the declared one.
  expect_error([](Json& j) { j["forward"][0]["stride"] = 2; },
               "$.forward[0]: computes the output 'y' as [8, 32, 1025, 2049], its declared shape is "
               "[8, 32, 514, 1026] at the default axes");
  // The same check on axes given at run time.
  Suite suite = load_suite(test::stock_suite_file("l2_078_conv_transpose3d_max_max_sum"));
  suite.forward[1].integers["kernel"] = {"5"};  // a 2-pool that became a 5-pool
  EXPECT_EQ(test::error_of([&] { suite.resolve_axes("ci"); }),
            "illegal axes for workload l2_078_conv_transpose3d_max_max_sum: forward[2]: max_pool: the kernel "
            "spans 3, more than the padded input's 2 of spatial dimension 0");
}

TEST_F(SuiteValidation, IllegalPresetAxes) {
  expect_error([](Json& j) { j["presets"]["ci"]["output_padding"] = 1; },
               "$.presets.ci: the axes of preset 'ci' are illegal: output_padding must be smaller "
               "than stride (PyTorch: smaller than stride or dilation, and this module has dilation "
               "1) (requires output_padding < stride; output_padding=1, stride=1)");
}

TEST_F(SuiteValidation, OtherMalformedFields) {
  expect_error([](Json& j) { j["tensors"].erase(2); },
               "$.tensors: expected exactly one tensor with role output, found 0");
  expect_error([](Json& j) { j["tensors"][1]["name"] = "x"; },
               "$.tensors[1].name: tensor 'x' is declared twice");
  expect_error([](Json& j) { j["tensors"][1]["init"]["distribution"] = "gaussian"; },
               "$.tensors[1].init.distribution: unknown distribution 'gaussian' (known: uniform, "
               "normal, uniform_fan_in, randint)");
  expect_error([](Json& j) { j["tensors"][0]["init"] = {{"distribution", "normal"}, {"mean", 0}, {"std", 0}}; },
               "$.tensors[0].init.std: must be positive");
  expect_error([](Json& j) { j["tensors"][0]["init"] = {{"distribution", "normal"}, {"mean", 0}}; },
               "$.tensors[0].init.std: missing required field");
  expect_error([](Json& j) { j["tolerance"]["fp64"] = j["tolerance"]["fp32"]; },
               "$.tolerance.fp64: unknown key (allowed here: bf16, fp16, fp32, tf32)");
  expect_error([](Json& j) { j["axes"]["batch_size"]["min"] = 2000; },
               "$.axes.batch_size.max: max 1024 is below min 2000");
  // Names may have capitals (KernelBench's N, A, B) but not begin with a digit;
  // ids stay lowercase.
  expect_error([](Json& j) { j["axes"]["2d"] = j["axes"]["stride"]; },
               "$.axes.2d: axis names are letters, digits and '_', not starting with a digit");
  expect_error([](Json& j) { j["tensors"][0]["name"] = "1x"; },
               "$.tensors[0].name: tensor names are letters, digits and '_', not starting with a digit");
  expect_error([](Json& j) { j["id"] = "L1_071"; }, "$.id: workload ids are lowercase letters, digits and '_'");
}

// The header every kernelgate file has: "kind" and "schema_version"; the
// older "format" spelling still loads, as the same workload.
TEST_F(SuiteValidation, TheHeaderNamesTheKindAndVersion) {
  expect_error([](Json& j) { j["schema_version"] = 9; },
               "$.schema_version: unsupported schema version 9 (this kernelgate reads 1 to 1)");
  expect_error([](Json& j) { j["kind"] = "kernelgate-baseline"; },
               "$.kind: a 'kernelgate-baseline' file, not a 'kernelgate-suite' file");
  expect_error([](Json& j) { j.erase("schema_version"); },
               "$.schema_version: missing required field (a kernelgate-suite file has \"kind\": "
               "\"kernelgate-suite\" and \"schema_version\")");
  expect_error([](Json& j) { j.erase("kind"); },
               "$.kind: missing required field (expected \"kernelgate-suite\")");
  expect_error([](Json& j) { j["format"] = "kernelgate-suite/1"; },
               "$.format: the old spelling of \"kind\" and \"schema_version\": give one or the other");
  const auto legacy = [](const std::string& format) {
    return [format](Json& j) {
      j.erase("kind");
      j.erase("schema_version");
      j["format"] = format;
    };
  };
  expect_error(legacy("kernelgate-suite/9"),
               "$.format: unsupported format 'kernelgate-suite/9' (this kernelgate reads kernelgate-suite/1)");
  Json json = test::stock_suite_json("l1_071_conv_transposed_2d");
  legacy("kernelgate-suite/1")(json);
  const auto old_spelling = test::write_text(dir_.path() / "old.json", json.dump(2));
  EXPECT_EQ(load_suite(old_spelling).identity, load_suite(test::stock_suite_file("l1_071_conv_transposed_2d")).identity);
}

TEST_F(SuiteValidation, NotJson) {
  auto file = test::write_text(dir_.path() / "broken.json", "{\"id\": ");
  try {
    load_suite(file);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(file.string() + ": not valid JSON: parse error at line 1", 0), 0u)
        << e.what();
  }
  // A number beyond a double is the parser's other kind of error: named too.
  auto overflow = test::write_text(dir_.path() / "overflow.json", "{\"id\": 1e999}");
  EXPECT_EQ(test::error_of([&] { load_suite(overflow); }),
            overflow.string() + ": $.id: not valid JSON: number overflow parsing '1e999'");
}

TEST_F(SuiteValidation, IdentityIgnoresFormattingButNotContent) {
  Json json = test::stock_suite_json("l1_071_conv_transposed_2d");
  auto compact = test::write_text(dir_.path() / "compact.json", json.dump());
  auto pretty = test::write_text(dir_.path() / "pretty.json", json.dump(4));
  Suite stock = load_suite(test::stock_suite_file("l1_071_conv_transposed_2d"));
  EXPECT_EQ(load_suite(compact).identity, stock.identity);
  EXPECT_EQ(load_suite(pretty).identity, stock.identity);
  json["tolerance"]["fp32"]["atol"] = 1e-3;
  auto changed = test::write_text(dir_.path() / "changed.json", json.dump(2));
  EXPECT_NE(load_suite(changed).identity, stock.identity);
}

TEST_F(SuiteValidation, DuplicateIdsAndUnknownWorkload) {
  Json json = test::stock_suite_json("l1_071_conv_transposed_2d");
  auto first = test::write_text(dir_.path() / "a.json", json.dump());
  auto second = test::write_text(dir_.path() / "b.json", json.dump());
  EXPECT_EQ(test::error_of([&] { load_suites(dir_.path()); }),
            second.string() + ": $.id: workload 'l1_071_conv_transposed_2d' is also defined in " + first.string());
  std::filesystem::remove(second);
  EXPECT_EQ(test::error_of([&] { find_suite(dir_.path(), "l9_999_nothing"); }),
            "unknown workload 'l9_999_nothing' in " + dir_.path().string() + " (known: l1_071_conv_transposed_2d)");
  EXPECT_EQ(test::error_of([&] { load_suites(dir_.path() / "missing"); }),
            "suites folder '" + (dir_.path() / "missing").string() + "' does not exist or is not a folder");
}

}  // namespace
}  // namespace kg
