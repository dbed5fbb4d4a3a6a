// Every op of kernelgate/detail/ops.hpp against torch in float64, at non-default
// geometry (tests/golden/make_op_fixtures.py): the whole output, and single
// elements computed from only the boxes of the operands that input_boxes names.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "kernelgate/detail/npy.hpp"
#include "kernelgate/detail/ops.hpp"
#include "support/l2_distance.hpp"

namespace kg::ops {
namespace {

const std::filesystem::path kFixtures = std::filesystem::path(KERNELGATE_TEST_DATA_DIR) / "golden" / "op_fixtures";

std::vector<std::int64_t> integers(const nlohmann::json& value) {
  if (value.is_array()) return value.get<std::vector<std::int64_t>>();
  return {value.get<std::int64_t>()};
}

// The attributes as a suite file spells them, already integers.
Op op_of(const nlohmann::json& c) {
  Op op;
  op.kind = op_kind_from_string(c["op"].get<std::string>());
  for (const auto& [key, value] : c["attributes"].items()) {
    if (key == "kernel") op.kernel = integers(value);
    else if (key == "stride") op.stride = integers(value);
    else if (key == "padding") op.padding = integers(value);
    else if (key == "dilation") op.dilation = integers(value);
    else if (key == "output_padding") op.output_padding = integers(value);
    else if (key == "groups") op.groups = value.get<std::int64_t>();
    else if (key == "dims") op.dims = integers(value);
    else if (key == "keepdim") op.keepdim = value.get<bool>();
    else if (key == "reverse") op.reverse = value.get<bool>();
    else if (key == "exclusive") op.exclusive = value.get<bool>();
    else if (key == "count_include_pad") op.count_include_pad = value.get<bool>();
    else if (key == "dim") op.dims = {value.get<std::int64_t>()};
    else if (key == "normalized_shape") op.normalized_shape = integers(value);
    else if (key == "num_groups") op.num_groups = value.get<std::int64_t>();
    else if (key == "shape") op.shape = integers(value);
    else if (key == "start") op.start = value.get<std::int64_t>();
    else if (key == "length") op.length = value.get<std::int64_t>();
    else if (key == "diagonal") op.diagonal = value.get<std::int64_t>();
    else if (key == "divisor") op.divisor = value.get<std::int64_t>();
    else op.scalars[key] = value.get<double>();  // output_shape refuses a name the op does not take
  }
  return op;
}

// The part `box` of a whole operand.
Region part_of(const Shape& shape, const std::vector<float>& values, const Box& box) {
  Region region(box);
  std::vector<std::int64_t> index(shape.size());
  for (std::int64_t flat = 0; flat < box.numel(); ++flat) {
    std::int64_t rest = flat, at = 0, stride = 1;
    for (std::size_t d = shape.size(); d-- > 0;) {
      index[d] = box.lo[d] + rest % (box.hi[d] - box.lo[d]);
      rest /= box.hi[d] - box.lo[d];
    }
    for (std::size_t d = shape.size(); d-- > 0;) {
      EXPECT_TRUE(index[d] >= 0 && index[d] < shape[d]);
      at += index[d] * stride;
      stride *= shape[d];
    }
    region.data[static_cast<std::size_t>(flat)] = values[static_cast<std::size_t>(at)];
  }
  return region;
}

TEST(OpsGolden, EveryOpAgreesWithTorch) {
  std::ifstream in(kFixtures / "manifest.json");
  const auto manifest = nlohmann::json::parse(in);
  std::set<std::string> seen;
  for (const auto& c : manifest["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const Op op = op_of(c);
    seen.insert(c["op"].get<std::string>());
    std::vector<Shape> shapes;
    std::vector<std::vector<float>> values;
    std::vector<Region> whole;
    for (const auto& file : c["operands"]) {
      NpyArray array = read_npy(kFixtures / file.get<std::string>());
      shapes.push_back(array.shape);
      values.push_back(array.f32);
      whole.push_back(part_of(array.shape, array.f32, Box::whole(array.shape)));
    }
    NpyArray want = read_npy(kFixtures / c["output"].get<std::string>());
    ASSERT_EQ(output_shape(op, shapes), want.shape);
    std::vector<const Region*> operands;
    for (const Region& region : whole) operands.push_back(&region);
    Region got(Box::whole(want.shape));
    evaluate(op, shapes, operands, got);
    ASSERT_EQ(got.data.size(), want.f64.size());
    const test_support::L2Distance l2 = test_support::l2_distance(got.data, want.f64);
    ASSERT_GT(l2.reference, 0.0);
    EXPECT_LT(l2.relative(), 1e-12);
    // Each element again from the smallest parts of the operands it reads:
    // a box that misses a tap reads outside its part (and fails above) or
    // gets another value.
    for (std::size_t i = 0; i < want.f64.size(); i += 3) {
      const Box element = Box::element(want.shape, static_cast<std::int64_t>(i));
      const std::vector<Box> boxes = input_boxes(op, shapes, element);
      ASSERT_EQ(boxes.size(), shapes.size());
      std::vector<Region> parts;
      for (std::size_t j = 0; j < shapes.size(); ++j) parts.push_back(part_of(shapes[j], values[j], boxes[j]));
      std::vector<const Region*> part_operands;
      for (const Region& part : parts) part_operands.push_back(&part);
      Region one(element);
      evaluate(op, shapes, part_operands, one);
      EXPECT_NEAR(one.data[0], want.f64[i], 1e-12 * l2.reference) << "element " << i;
    }
  }
  for (const auto& [kind, name] : op_kinds()) EXPECT_TRUE(seen.count(std::string(name))) << name << " has no case";
}

}  // namespace
}  // namespace kg::ops
