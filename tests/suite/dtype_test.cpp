// Tensors of dtype int64 and bool (docs/suite-format.md, "Dtypes"): what the
// loader accepts and refuses, how their values are drawn and laid out, and
// the forward pass's float64 reference of them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/reference.hpp"
#include "kernelgate/detail/suite.hpp"
#include "suite_test_util.hpp"
#include "support/error_of.hpp"
#include "support/typed_suite.hpp"

namespace kg {
namespace {

using Json = nlohmann::ordered_json;
using test::TempDir;

Suite typed_suite(const TempDir& dir, const std::function<void(Json&)>& edit = [](Json&) {}) {
  Json json = Json::parse(test_support::typed_suite_json());
  edit(json);
  return load_suite(test::write_text(dir.path() / "typed.json", json.dump(2)));
}

std::string typed_load_error(const TempDir& dir, const std::function<void(Json&)>& edit) {
  return test::error_of([&] { typed_suite(dir, edit); });
}

TEST(DTypes, IntegerAndBoolTensorsAreDrawnAndLaidOutAsTheirDtype) {
  TempDir dir;
  const Suite suite = typed_suite(dir);
  EXPECT_EQ(suite.tensor("mask").dtype, DType::boolean);
  EXPECT_EQ(suite.tensor("targets").dtype, DType::int64);
  const Axes axes = suite.resolve_axes("");
  // 30 float32 logits, 30 bool mask bytes, 6 int64 targets, 1 float32 loss.
  EXPECT_EQ(suite.bytes(axes), 30 * 4 + 30 * 1 + 6 * 8 + 4);
  const Tensors many = generate_inputs(suite, suite.resolve_axes("", {{"batch_size", 64}}), 3);
  std::set<float> targets(many.at("targets").data.begin(), many.at("targets").data.end());
  EXPECT_EQ(targets, (std::set<float>{0, 1, 2, 3, 4})) << "torch.randint(0, num_classes): every class, no other";
  const Tensors inputs = generate_inputs(suite, axes, 3);
  const std::vector<std::byte> bytes = tensor_bytes(inputs.at("targets"), DType::int64);
  ASSERT_EQ(bytes.size(), 6 * sizeof(std::int64_t));
  for (std::size_t i = 0; i < 6; ++i) {
    std::int64_t value = 0;
    std::memcpy(&value, bytes.data() + i * sizeof value, sizeof value);
    EXPECT_EQ(static_cast<float>(value), inputs.at("targets").data[i]) << i;
  }
  const std::vector<std::byte> mask = tensor_bytes(inputs.at("mask"), DType::boolean);
  ASSERT_EQ(mask.size(), 30u);
  for (std::size_t i = 0; i < mask.size(); ++i)
    EXPECT_EQ(static_cast<float>(mask[i]), inputs.at("mask").data[i]) << i;
}

// The reference of the fixture, element by element in plain C++: the mean
// over rows of -log_softmax(logits * mask)[row, target[row]].
TEST(DTypes, TheReferenceReadsTheMaskAsZeroAndOneAndTheTargetsAsPositions) {
  TempDir dir;
  const Suite suite = typed_suite(dir);
  const Axes axes = suite.resolve_axes("ci");
  const Tensors inputs = generate_inputs(suite, axes, 11);
  const auto& logits = inputs.at("logits").data;
  const auto& mask = inputs.at("mask").data;
  const auto& targets = inputs.at("targets").data;
  double loss = 0;
  for (std::size_t row = 0; row < 4; ++row) {
    double sum = 0;
    for (std::size_t c = 0; c < 5; ++c) sum += std::exp(double(logits[row * 5 + c]) * mask[row * 5 + c]);
    const auto target = static_cast<std::size_t>(targets[row]);
    loss -= double(logits[row * 5 + target]) * mask[row * 5 + target] - std::log(sum);
  }
  loss /= 4;
  const HostTensor<double> reference = reference_output(suite, axes, inputs);
  ASSERT_EQ(reference.data.size(), 1u);
  EXPECT_NEAR(reference.data[0], loss, 1e-14);
  EXPECT_NEAR(reference_point(suite, axes, inputs, 0), loss, 1e-14);
}

TEST(DTypes, TheLoaderRefusesWhatADtypeCannotHold) {
  TempDir dir;
  const auto tensor = [](Json& json, int index) -> Json& { return json["tensors"][index]; };
  EXPECT_NE(typed_load_error(dir, [&](Json& j) { tensor(j, 2)["dtype"] = "int32"; })
                .find("$.tensors[2].dtype: unknown dtype 'int32' (known: float32, int64, bool)"),
            std::string::npos);
  EXPECT_NE(typed_load_error(dir, [&](Json& j) {
              tensor(j, 2)["init"] = Json::parse(R"({"distribution": "uniform", "low": 0, "high": 5})");
            }).find("$.tensors[2].init.distribution: a tensor of dtype int64 is drawn by randint"),
            std::string::npos);
  EXPECT_NE(typed_load_error(dir, [&](Json& j) { tensor(j, 1)["init"]["high"] = 3; })
                .find("$.tensors[1].init: a bool tensor draws from [0, 2) (low 0, high 2)"),
            std::string::npos);
  EXPECT_NE(typed_load_error(dir, [&](Json& j) { tensor(j, 3)["dtype"] = "bool"; })
                .find("$.tensors[3].dtype: an output is float32 or int64, not bool"),
            std::string::npos);
  EXPECT_NE(typed_load_error(dir, [&](Json& j) { tensor(j, 3)["dtype"] = "int64"; })
                .find("$.forward[5].output: makes 'loss' as float32, its declared dtype is int64"),
            std::string::npos);
  // gather's index must stay int64 on its way from the declared tensor.
  EXPECT_NE(typed_load_error(dir, [&](Json& j) { tensor(j, 2).erase("dtype"); })
                .find("$.forward[3].inputs[1]: 'picks' is float32: gather's index is int64"),
            std::string::npos);
  // A forward pass whose last op makes another dtype than the output's:
  // data movement of the targets alone.
  EXPECT_NE(typed_load_error(dir, [&](Json& j) {
              j["tensors"] = Json::array({j["tensors"][2], j["tensors"][3]});
              j["forward"] = Json::parse(R"([
                {"op": "narrow", "inputs": ["targets"], "output": "loss", "dim": 0, "start": 0, "length": 1}])");
            }).find("$.forward[0].output: makes 'loss' as int64, its declared dtype is float32"),
            std::string::npos);
}

// A randint bound over the axes is checked wherever axes are resolved: at
// the defaults and presets when the suite loads, and for --axes.
TEST(DTypes, ARandintBoundOverTheAxesIsCheckedWhereItIsResolved) {
  TempDir dir;
  const auto bound = [](const char* high) {
    return [high](Json& j) { j["tensors"][2]["init"]["high"] = high; };
  };
  EXPECT_NE(typed_load_error(dir, bound("num_classes * 20000"))
                .find("$.tensors[2].init: randint's high 100000 must be above its low 0 by at most 2^16 at the "
                      "default axes"),
            std::string::npos);
  EXPECT_NE(typed_load_error(dir, [](Json& j) {
              j["tensors"][2]["init"]["low"] = 16777200;
              j["tensors"][2]["init"]["high"] = 16777300;
            }).find("$.tensors[2].init: randint's integers [16777200, 16777300) reach beyond +-2^24, where "
                    "float32 stops holding every integer"),
            std::string::npos);
  const Suite suite = typed_suite(dir, bound("num_classes * 2000"));
  EXPECT_EQ(test::error_of([&] { suite.resolve_axes("", {{"num_classes", 40}}); }),
            "illegal axes for workload typed_inputs: the values of 'targets': randint's high 80000 must be above "
            "its low 0 by at most 2^16");
}

}  // namespace
}  // namespace kg
