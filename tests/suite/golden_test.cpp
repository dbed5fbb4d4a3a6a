// The float64 references against PyTorch: tests/golden/fixtures holds inputs,
// parameters and torch's float64 output at small shapes with non-default
// stride, padding, output_padding, groups, dilation and kernel sizes
// (tests/golden/make_fixtures.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "kernelgate/detail/npy.hpp"
#include "kernelgate/detail/reference.hpp"
#include "kernelgate/detail/suite.hpp"
#include "support/l2_distance.hpp"

namespace kg {
namespace {

const std::filesystem::path kFixtures = std::filesystem::path(KERNELGATE_TEST_DATA_DIR) / "golden" / "fixtures";

nlohmann::ordered_json manifest() {
  std::ifstream in(kFixtures / "manifest.json");
  return nlohmann::ordered_json::parse(in);
}

// Every KernelBench workload; a suite the importer wrote from a module of
// another origin (suites/examples/) is checked against that module by the
// importer itself, and tests/importer checks it is what the importer writes.
TEST(Golden, EveryWorkloadHasFixturesWithNonDefaultGeometry) {
  std::set<std::string> workloads;
  const auto fixtures = manifest();
  for (const auto& c : fixtures["cases"]) workloads.insert(c["workload"].get<std::string>());
  std::size_t kernelbench = 0;
  for (const Suite& suite : load_suites(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR))) {
    if (suite.origin.value("benchmark", "") != "KernelBench") continue;
    ++kernelbench;
    EXPECT_TRUE(workloads.count(suite.id)) << suite.id;
  }
  EXPECT_GE(kernelbench, 7u);  // the shipped ones: the filter leaves none out
}

TEST(Golden, ReferencesAgreeWithTorchFloat64) {
  const auto fixtures = manifest();
  const auto& cases = fixtures["cases"];
  ASSERT_GE(cases.size(), 9u);
  for (const auto& c : cases) {
    std::string name = c["name"];
    SCOPED_TRACE(name);
    Suite suite = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), c["workload"].get<std::string>());
    Axes overrides;
    for (const auto& [axis, value] : c["axes"].items()) overrides[axis] = value.get<std::int64_t>();
    Axes axes = suite.resolve_axes("", overrides);
    ASSERT_EQ(axes, overrides);

    // The inputs are read from the fixture, and the generator must still
    // reproduce them bit for bit (it is part of the suite's contract).
    Tensors inputs;
    Tensors generated = generate_inputs(suite, axes, c["seed"].get<std::uint64_t>());
    for (const auto& [tensor, file] : c["inputs"].items()) {
      NpyArray array = read_npy(kFixtures / file.get<std::string>());
      ASSERT_EQ(array.descr, "<f4");
      inputs[tensor] = HostTensor<float>{array.shape, array.f32};
      EXPECT_EQ(generated.at(tensor).data, array.f32) << tensor;
    }
    NpyArray want = read_npy(kFixtures / c["output"]["file"].get<std::string>());
    ASSERT_EQ(want.descr, "<f8");
    HostTensor<double> got = reference_output(suite, axes, inputs);
    ASSERT_EQ(got.shape, want.shape);
    ASSERT_EQ(got.data.size(), want.f64.size());
    const test_support::L2Distance l2 = test_support::l2_distance(got.data, want.f64);
    ASSERT_GT(l2.reference, 0.0);
    EXPECT_LT(l2.relative(), 1e-12);
    // Every fifth element, at most about 500 per case: each point is a whole
    // reference evaluation of its own window.
    const std::size_t step = std::max<std::size_t>(5, want.f64.size() / 500);
    for (std::size_t i = 0; i < want.f64.size(); i += step)
      EXPECT_NEAR(reference_point(suite, axes, inputs, static_cast<std::int64_t>(i)), want.f64[i],
                  1e-12 * l2.reference);
  }
}

}  // namespace
}  // namespace kg
