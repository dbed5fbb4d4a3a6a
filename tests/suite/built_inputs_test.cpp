// Inputs built by ops after their draw (docs/inputs.md, "Inputs built by
// ops"): the values, the reference's boxes of them, and the loader's errors.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/reference.hpp"
#include "kernelgate/detail/suite.hpp"
#include "suite_test_util.hpp"

namespace kg {
namespace {

using Json = nlohmann::ordered_json;
using test::TempDir;

// y = (A @ B) * c * t with A symmetric ((D + D^T) / 2), B upper triangular,
// c a draw scaled by a random scalar and t targets of plus or minus one
// (torch.randint(0, 2, ...) * 2 - 1): KernelBench's problems 13, 14, 94 and
// 100.
Json built_suite() {
  return Json::parse(R"({
    "kind": "kernelgate-suite", "schema_version": 1,
    "id": "built_inputs", "title": "inputs built by ops",
    "origin": {"benchmark": "test"},
    "axes": {"n": {"default": 7, "min": 1, "max": 64, "description": "side"}},
    "presets": {"ci": {"n": 5}},
    "tensors": [
      {"name": "A", "role": "input", "shape": ["n", "n"],
       "init": {"distribution": "uniform", "low": 0, "high": 1,
                "then": [{"op": "permute", "inputs": ["drawn"], "output": "transposed", "dims": [1, 0]},
                         {"op": "add", "inputs": ["drawn", "transposed"], "output": "summed"},
                         {"op": "scale", "inputs": ["summed"], "output": "A", "value": 0.5}]}},
      {"name": "B", "role": "input", "shape": ["n", "n"],
       "init": {"distribution": "normal", "mean": 0, "std": 1,
                "then": [{"op": "triu", "inputs": ["drawn"], "output": "B"}]}},
      {"name": "c", "role": "input", "shape": ["n"],
       "init": {"distribution": "uniform", "low": 0, "high": 1,
                "draws": [{"name": "scale", "shape": [1], "distribution": "uniform", "low": 0, "high": 1}],
                "then": [{"op": "multiply", "inputs": ["drawn", "scale"], "output": "c"}]}},
      {"name": "t", "role": "input", "shape": ["n"],
       "init": {"distribution": "randint", "low": 0, "high": 2,
                "then": [{"op": "scale", "inputs": ["drawn"], "output": "doubled", "value": 2},
                         {"op": "shift", "inputs": ["doubled"], "output": "t", "value": -1}]}},
      {"name": "y", "role": "output", "shape": ["n", "n"]}
    ],
    "forward": [
      {"op": "matmul", "inputs": ["A", "B"], "output": "product"},
      {"op": "multiply", "inputs": ["product", "c"], "output": "scaled"},
      {"op": "multiply", "inputs": ["scaled", "t"], "output": "y"}
    ],
    "tolerance": {"fp32": {"atol": 1e-4, "rtol": 1e-4, "rel_l2": 1e-5}},
    "contract": {"no_mutation": true, "no_aliasing": true}
  })");
}

// The same suite with every input a plain draw: the same keys, so its
// tensors are the built inputs' draws.
Json drawn_suite() {
  Json json = built_suite();
  for (Json& tensor : json["tensors"])
    if (tensor.contains("init")) {
      tensor["init"].erase("then");
      tensor["init"].erase("draws");
    }
  return json;
}

Suite load(const TempDir& dir, const Json& json, const std::string& name = "suite.json") {
  return load_suite(test::write_text(dir.path() / name, json.dump(2)));
}

std::string load_error(const TempDir& dir, const Json& json) {
  try {
    load(dir, json);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Inputs, AnInputBuiltByOpsIsThoseOpsOnItsDraws) {
  TempDir dir;
  const Suite built = load(dir, built_suite(), "built.json");
  const Suite drawn = load(dir, drawn_suite(), "drawn.json");
  const Axes axes = built.resolve_axes("");
  const std::uint64_t seed = 11;
  const Tensors inputs = generate_inputs(built, axes, seed);
  const Tensors draws = generate_inputs(drawn, axes, seed);
  const std::int64_t n = axes.at("n");
  auto at = [n](const HostTensor<float>& t, std::int64_t i, std::int64_t j) {
    return t.data[static_cast<std::size_t>(i * n + j)];
  };
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double d_ij = at(draws.at("A"), i, j), d_ji = at(draws.at("A"), j, i);
      EXPECT_EQ(at(inputs.at("A"), i, j), static_cast<float>((d_ij + d_ji) * 0.5)) << i << ", " << j;
      EXPECT_EQ(at(inputs.at("B"), i, j), j >= i ? at(draws.at("B"), i, j) : 0.0f) << i << ", " << j;
    }
  // The scalar is a draw of its own, keyed by the name "c/scale".
  const double scale = uniform_at(input_key(built.id, axes, seed, "c/scale"), 0);
  EXPECT_GT(scale, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(inputs.at("c").data[i], static_cast<float>(draws.at("c").data[i] * scale)) << i;
    EXPECT_EQ(inputs.at("t").data[i], draws.at("t").data[i] * 2 - 1) << i;
  }
  EXPECT_EQ(std::set<float>(inputs.at("t").data.begin(), inputs.at("t").data.end()), (std::set<float>{-1.0f, 1.0f}));
}

TEST(Inputs, TheReferenceOfABuiltInputsSeedIsThatOfItsTensors) {
  // A point of a full-size run generates only the boxes it reads, and the
  // built inputs on them: the same float32 values as the whole tensors.
  TempDir dir;
  const Suite suite = load(dir, built_suite());
  const Axes axes = suite.resolve_axes("");
  const std::uint64_t seed = 3;
  const Tensors inputs = generate_inputs(suite, axes, seed);
  for (std::int64_t index : {0, 8, 24, 48})
    EXPECT_EQ(reference_point_of_seed(suite, axes, seed, index), reference_point(suite, axes, inputs, index))
        << "output element " << index;
}

TEST(BuiltInputs, OpsThatGiveANonFiniteInputAreNamed) {
  // The log of a normal draw: NaN for every negative value.
  TempDir dir;
  Json json = built_suite();
  json["tensors"][1]["init"]["then"][0] = {{"op", "log"}, {"inputs", {"drawn"}}, {"output", "B"}};
  const Suite suite = load(dir, json);
  try {
    generate_inputs(suite, suite.resolve_axes(""), 1);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "workload built_inputs: the ops building 'B' give a value that is not a finite float32 "
                           "(docs/inputs.md)");
  }
}

TEST(BuiltInputs, TheOpsBuildingAnInputAreChecked) {
  TempDir dir;
  auto error_after = [&](const std::function<void(Json&)>& edit) {
    Json json = built_suite();
    edit(json);
    return load_error(dir, json);
  };
  auto init = [](Json& json, int tensor) -> Json& { return json["tensors"][tensor]["init"]; };
  EXPECT_NE(error_after([&](Json& j) { init(j, 1)["then"][0]["output"] = "upper"; })
                .find("$.tensors[1].init.then[0].output: the last op must produce 'B'"),
            std::string::npos);
  EXPECT_NE(error_after([&](Json& j) { init(j, 2)["then"][0]["inputs"] = {"drawn", "drawn"}; })
                .find("$.tensors[2].init.then: tensor 'scale' is declared or made but no op reads it"),
            std::string::npos);
  EXPECT_NE(error_after([&](Json& j) { init(j, 2).erase("then"); })
                .find("$.tensors[2].init.then: draws are read by ops: give them"),
            std::string::npos);
  EXPECT_NE(error_after([&](Json& j) { init(j, 2)["draws"][0]["name"] = "drawn"; })
                .find("$.tensors[2].init.draws[0].name: a draw's name is a new name"),
            std::string::npos);
  EXPECT_NE(error_after([&](Json& j) { init(j, 1)["then"][0]["inputs"] = {"A"}; })
                .find("$.tensors[1].init.then[0].inputs[0]: 'A' is neither a draw of this tensor nor the output "
                      "of an earlier op"),
            std::string::npos);
  EXPECT_NE(error_after([&](Json& j) { init(j, 2)["draws"][0]["shape"] = {"n - 7"}; })
                .find("$.tensors[2].init.draws[0].shape[0]: evaluates to 0, must be positive at the default axes"),
            std::string::npos);
  EXPECT_NE(error_after([&](Json& j) { init(j, 3)["high"] = 0; })
                .find("$.tensors[3].init: randint's high 0 must be above its low 0 by at most 2^16"),
            std::string::npos);
  // A last op that makes another shape.
  EXPECT_NE(error_after([&](Json& j) {
              init(j, 1)["then"] = Json::parse(R"([{"op": "narrow", "inputs": ["drawn"], "output": "B",
                                                    "dim": 0, "start": 0, "length": 5}])");
            }).find("$.tensors[1].init.then[0]: computes 'B' as [5, 7], its declared shape is [7, 7] at the "
                    "default axes"),
            std::string::npos);
}

}  // namespace
}  // namespace kg
