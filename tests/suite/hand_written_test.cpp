// The op-list forward pass against the hand-written references it replaced:
// on every golden case the whole output and every fifth point agree to 1e-12
// (relative to the output's norm).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "hand_written/references.hpp"
#include "kernelgate/npy.hpp"

namespace kg {
namespace {

const std::filesystem::path kFixtures = std::filesystem::path(KERNELGATE_TEST_DATA_DIR) / "golden" / "fixtures";

TEST(HandWritten, OpListAgreesOnEveryGoldenCase) {
  const std::vector<WorkloadReference> hand_written = {
      make_conv_transposed_2d_reference("l1_071_conv_transposed_2d"),
      make_conv_depthwise_separable_2d_reference("l1_086_conv_depthwise_separable_2d"),
      make_conv_transpose3d_max_max_sum_reference("l2_078_conv_transpose3d_max_max_sum"),
  };
  std::ifstream in(kFixtures / "manifest.json");
  const auto manifest = nlohmann::ordered_json::parse(in);
  int compared = 0;
  for (const auto& c : manifest["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const Suite suite = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), c["workload"]);
    const WorkloadReference* old = nullptr;
    for (const auto& reference : hand_written)
      if (reference.name == suite.id) old = &reference;
    ASSERT_NE(old, nullptr);
    Axes axes;
    for (const auto& [axis, value] : c["axes"].items()) axes[axis] = value.get<std::int64_t>();
    Tensors inputs;
    for (const auto& [tensor, file] : c["inputs"].items()) {
      NpyArray array = read_npy(kFixtures / file.get<std::string>());
      inputs[tensor] = HostTensor<float>{array.shape, array.f32};
    }
    HostTensor<double> want;
    want.shape = suite.shape(suite.output().name, axes);
    want.data.assign(static_cast<std::size_t>(want.numel()), 0.0);
    old->full(axes, inputs, want);
    const HostTensor<double> got = reference_output(suite, axes, inputs);
    ASSERT_EQ(got.shape, want.shape);
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < want.data.size(); ++i) {
      diff += (got.data[i] - want.data[i]) * (got.data[i] - want.data[i]);
      norm += want.data[i] * want.data[i];
    }
    EXPECT_LT(std::sqrt(diff / norm), 1e-12);
    for (std::size_t i = 0; i < want.data.size(); i += 5)
      EXPECT_NEAR(reference_point(suite, axes, inputs, static_cast<std::int64_t>(i)),
                  old->point(axes, inputs, static_cast<std::int64_t>(i)), 1e-12 * std::sqrt(norm));
    ++compared;
  }
  EXPECT_GE(compared, 10);
}

}  // namespace
}  // namespace kg
