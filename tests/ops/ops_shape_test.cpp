// Shapes that do not fit are refused with a message naming the op and what
// does not fit, before any value is computed; shapes that fit get PyTorch's
// output shape and input boxes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/ops.hpp"

namespace kg::ops {
namespace {

void expect_refused(const Op& op, const std::vector<Shape>& inputs, const std::string& message) {
  try {
    (void)output_shape(op, inputs);
    ADD_FAILURE() << "expected an error containing: " << message;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

Op of(OpKind kind) {
  Op op;
  op.kind = kind;
  return op;
}

TEST(OpsShape, ConvolutionShapesThatDoNotFitAreRefused) {
  Op conv = of(OpKind::conv);
  conv.groups = 3;
  expect_refused(conv, {{1, 4, 8, 8}, {6, 2, 3, 3}}, "conv: input channels 4 are not divisible by groups 3");
  conv.groups = 1;
  expect_refused(conv, {{1, 4, 8, 8}, {6, 3, 3, 3}}, "conv: weight [6, 3, 3, 3] must have");
  expect_refused(conv, {{1, 4, 2, 2}, {6, 4, 3, 3}}, "conv: the kernel spans 3");
  expect_refused(conv, {{1, 4, 8, 8}, {6, 4, 3, 3}, {5}}, "conv: bias [5] must be [6]");
  expect_refused(conv, {{4, 8, 8}, {6, 8, 3, 3}}, "conv: weight [6, 8, 3, 3] must have the rank");
  conv.stride = {1, 1, 1};
  expect_refused(conv, {{1, 4, 8, 8}, {6, 4, 3, 3}}, "conv: stride has 3 values for 2");
  expect_refused(of(OpKind::conv), {{1, 4, 8, 8}}, "conv: takes 2 or 3");
}

TEST(OpsShape, TransposedConvolutionAndPoolAttributesAreChecked) {
  Op up = of(OpKind::conv_transpose);
  up.stride = {2, 2};
  up.output_padding = {2, 0};
  expect_refused(up, {{1, 4, 5, 5}, {4, 3, 3, 3}}, "conv_transpose: output_padding must be smaller than stride");
  Op conv = of(OpKind::conv);
  conv.output_padding = {1, 1};
  expect_refused(conv, {{1, 4, 8, 8}, {6, 4, 3, 3}}, "only a transposed convolution takes output_padding");
  Op pool = of(OpKind::max_pool);
  expect_refused(pool, {{1, 4, 8, 8}}, "max_pool: a pool needs a kernel");
  pool.kernel = {2, 2};
  pool.padding = {2, 2};
  expect_refused(pool, {{1, 4, 8, 8}}, "padding must be at most half the kernel");
}

TEST(OpsShape, DenseShapesThatDoNotFitAreRefused) {
  expect_refused(of(OpKind::add), {{2, 3, 4}, {3, 5}}, "add: shapes [2, 3, 4] and [3, 5] do not broadcast");
  Op sum = of(OpKind::sum);
  expect_refused(sum, {{2, 3}}, "sum: names no dims to reduce");
  sum.dims = {2};
  expect_refused(sum, {{2, 3}}, "sum: dim 2 is outside a tensor of rank 2");
  sum.dims = {1, -1};
  expect_refused(sum, {{2, 3}}, "sum: dim -1 is named twice");
  expect_refused(of(OpKind::matmul), {{2, 3}, {4, 5}}, "matmul: [2, 3] @ [4, 5]: the inner extents differ");
  Op clamp = of(OpKind::clamp);
  expect_refused(clamp, {{2}}, "clamp: needs low, high or both");
  clamp.scalars = {{"low", 1}, {"high", 0}};
  expect_refused(clamp, {{2}}, "clamp: low is above high");
  clamp.scalars = {{"min_val", 0}};
  expect_refused(clamp, {{2}}, "clamp: takes no attribute min_val");
  Op scale = of(OpKind::scale);
  scale.scalars = {{"value", 1}};
  scale.divisor = 0;
  expect_refused(scale, {{2}}, "scale: divisor is 0, must be positive");
  Op hardtanh = of(OpKind::hardtanh);
  hardtanh.scalars = {{"min_val", 2}};  // above the default max_val 1
  expect_refused(hardtanh, {{2}}, "hardtanh: min_val is above max_val");
  expect_refused(of(OpKind::pow), {{2}}, "pow: needs exponent");
  Op softmax = of(OpKind::softmax);
  expect_refused(softmax, {{2, 3}}, "softmax: names one dim");
  softmax.dims = {-3};
  expect_refused(softmax, {{2, 3}}, "softmax: dim -3 is outside a tensor of rank 2");
  expect_refused(of(OpKind::divide), {{2, 3}, {2}}, "divide: shapes [2, 3] and [2] do not broadcast");
  expect_refused(of(OpKind::relu), {{2, 0}}, "relu: operand of shape [2, 0] is empty");
}

TEST(OpsShape, ShapesThatFitGetTorchsOutputShape) {
  Op up = of(OpKind::conv_transpose);
  up.stride = {2, 2};
  up.padding = {1, 1};
  up.output_padding = {1, 1};
  up.groups = 2;
  // (5 - 1) * 2 - 2 * 1 + (3 - 1) + 1 + 1 = 10; out channels 3 per group * 2.
  EXPECT_EQ(output_shape(up, {{1, 4, 5, 5}, {4, 3, 3, 3}}), (Shape{1, 6, 10, 10}));
  Op sum = of(OpKind::sum);
  sum.dims = {1};
  sum.keepdim = true;
  EXPECT_EQ(output_shape(sum, {{2, 3, 4}}), (Shape{2, 1, 4}));
  EXPECT_EQ(output_shape(of(OpKind::multiply), {{2, 1, 4}, {3, 1}}), (Shape{2, 3, 4}));
  EXPECT_EQ(output_shape(of(OpKind::matmul), {{5, 2, 3}, {3, 4}}), (Shape{5, 2, 4}));
}

TEST(OpsShape, OneOutputElementOfAConvolutionReadsOnlyItsWindow) {
  Op conv = of(OpKind::conv);
  conv.padding = {1, 1};
  const std::vector<Shape> shapes{{2, 4, 8, 8}, {6, 4, 3, 3}};
  const Shape out = output_shape(conv, shapes);
  // Element (n=1, c=5, y=0, x=7): image 1, every channel, rows [0, 2) (row -1
  // is padding), columns [6, 8). Weights and bias are read whole: they are
  // parameters, small beside the activations a sampled element avoids.
  const std::int64_t flat = ((1 * out[1] + 5) * out[2] + 0) * out[3] + 7;
  const auto boxes = input_boxes(conv, shapes, Box::element(out, flat));
  ASSERT_EQ(boxes.size(), 2u);
  EXPECT_EQ(boxes[0].lo, (Shape{1, 0, 0, 6}));
  EXPECT_EQ(boxes[0].hi, (Shape{2, 4, 2, 8}));
  EXPECT_EQ(boxes[1].lo, (Shape{0, 0, 0, 0}));
  EXPECT_EQ(boxes[1].hi, (Shape{6, 4, 3, 3}));
}

TEST(OpsShape, NormalisationsThatDoNotFitAreRefused) {
  Op layer = of(OpKind::layer_norm);
  expect_refused(layer, {{2, 3}}, "layer_norm: normalized_shape needs 1 to 2 extents");
  layer.normalized_shape = {2};
  expect_refused(layer, {{2, 3}}, "layer_norm: normalized_shape [2] is not the trailing shape of [2, 3]");
  layer.normalized_shape = {3};
  expect_refused(layer, {{2, 3}, {2}}, "layer_norm: weight [2] is not [3]");
  Op group = of(OpKind::group_norm);
  group.num_groups = 4;
  expect_refused(group, {{2, 6, 5}}, "group_norm: channels 6 are not divisible by num_groups 4");
  expect_refused(of(OpKind::instance_norm), {{2, 6}}, "instance_norm: x [2, 6] needs rank 3 or more");
  Op batch = of(OpKind::batch_norm);
  expect_refused(batch, {{2, 6, 5}, {6}, {5}}, "batch_norm: bias [5] is not [6]");
  batch.scalars = {{"eps", -1}};
  expect_refused(batch, {{2, 6, 5}}, "batch_norm: eps is negative");
}

// One output element of group_norm reads its whole group (two channels here,
// all of space) and nothing of the other images or groups.
TEST(OpsShape, AGroupNormElementReadsItsGroup) {
  Op group = of(OpKind::group_norm);
  group.num_groups = 3;
  const std::vector<Box> boxes = input_boxes(group, {{2, 6, 4}, {6}}, Box::element({2, 6, 4}, 1 * 24 + 3 * 4 + 1));
  EXPECT_EQ(boxes.at(0), (Box{{1, 2, 0}, {2, 4, 4}}));
  EXPECT_EQ(boxes.at(1), (Box{{0}, {6}}));
}

// A box of a reshape's output reads the input's box that holds the flat
// range from its first element to its last: where that range wraps, whole
// rows of the input.
TEST(OpsShape, AReshapedBoxReadsItsFlatRange) {
  Op reshape = of(OpKind::reshape);
  reshape.shape = {3, -1};
  EXPECT_EQ(output_shape(reshape, {{2, 6}}), (Shape{3, 4}));
  // Rows 1 and 2 of [3, 4] are elements 4 to 11: the end of input row 0 and all of row 1.
  EXPECT_EQ(input_boxes(reshape, {{2, 6}}, Box{{1, 0}, {3, 4}}).at(0), (Box{{0, 0}, {2, 6}}));
  // Element (0, 1) alone is input element 1.
  EXPECT_EQ(input_boxes(reshape, {{2, 6}}, Box{{0, 1}, {1, 2}}).at(0), (Box{{0, 1}, {1, 2}}));
  reshape.shape = {5, -1};
  expect_refused(reshape, {{2, 6}}, "reshape: shape [5, -1] does not hold the 12 elements of [2, 6]");
  Op permute = of(OpKind::permute);
  permute.dims = {0, 0};
  expect_refused(permute, {{2, 6}}, "permute: dims [0, 0] is not a permutation of 2 dimensions");
  Op concat = of(OpKind::concat);
  concat.dims = {0};
  expect_refused(concat, {{2, 6}, {2, 5}}, "concat: [2, 6] and [2, 5] differ outside dim 0");
}

// gather's index picks along dim, so a box of its output reads the whole of
// x along dim; an index that is no position of x is an error naming it.
TEST(OpsShape, AGatherReadsItsDimWholeAndChecksItsIndex) {
  Op gather = of(OpKind::gather);
  gather.dims = {1};
  EXPECT_EQ(output_shape(gather, {{3, 5}, {2, 7}}), (Shape{2, 7}));
  EXPECT_EQ(input_boxes(gather, {{3, 5}, {2, 7}}, Box{{1, 2}, {2, 4}}),
            (std::vector<Box>{Box{{1, 0}, {2, 5}}, Box{{1, 2}, {2, 4}}}));
  expect_refused(gather, {{3, 5}, {4, 7}}, "gather: an index of [4, 7] does not fit [3, 5] outside dim 1");
  expect_refused(gather, {{3, 5}, {7}}, "gather: an index of [7] does not fit [3, 5]");
  Region x(Box::whole({1, 3})), index(Box::whole({1, 2})), out(Box::whole({1, 2}));
  x.data = {10, 20, 30};
  index.data = {2, 0};
  evaluate(gather, {{1, 3}, {1, 2}}, {&x, &index}, out);
  EXPECT_EQ(out.data, (std::vector<double>{30, 10}));
  for (const double wrong : {3.0, -1.0, 0.5}) {
    index.data = {0, wrong};
    try {
      evaluate(gather, {{1, 3}, {1, 2}}, {&x, &index}, out);
      ADD_FAILURE() << "index " << wrong << " was taken";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("gather: index "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(" is no position in a dim of extent 3"), std::string::npos) << e.what();
    }
  }
}

// argmax and argmin reduce one dim, of positions an output compares exactly.
TEST(OpsShape, AnArgmaxTakesOneDimOfFewerThan2To24Positions) {
  Op argmax = of(OpKind::argmax);
  argmax.dims = {0, 1};
  expect_refused(argmax, {{3, 4}}, "argmax: names one dim");
  argmax.dims = {-1};
  argmax.keepdim = true;
  EXPECT_EQ(output_shape(argmax, {{3, 4}}), (Shape{3, 1}));
  expect_refused(argmax, {{2, kMaxPosition + 1}},
                 "argmax: dim 1 has 16777217 positions, beyond the 2^24 an output compares exactly");
  EXPECT_EQ(output_shape(argmax, {{2, kMaxPosition}}), (Shape{2, 1}));
}

// Attention's operands share their batch, q and k their embedding, k and v
// their sequence; an output row reads all of k and v in its batch entry.
TEST(OpsShape, AttentionOperandsThatDoNotFitAreRefused) {
  const Op attention = of(OpKind::attention);
  EXPECT_EQ(output_shape(attention, {{2, 5, 4}, {2, 6, 4}, {2, 6, 7}}), (Shape{2, 5, 7}));
  expect_refused(attention, {{2, 5, 4}, {2, 6, 3}, {2, 6, 7}}, "attention: k's last extent is not q's");
  expect_refused(attention, {{2, 5, 4}, {3, 6, 4}, {3, 6, 7}}, "attention: q, k and v differ in their batch");
  expect_refused(attention, {{2, 5, 4}, {2, 6, 4}, {2, 5, 7}}, "attention: v does not have k's sequence length");
  expect_refused(attention, {{4}, {4}, {4}}, "attention: q, k and v need one rank of 2 or more");
  EXPECT_EQ(input_boxes(attention, {{2, 5, 4}, {2, 6, 4}, {2, 6, 7}}, Box{{1, 2, 3}, {2, 3, 5}}),
            (std::vector<Box>{Box{{1, 2, 0}, {2, 3, 4}}, Box{{1, 0, 0}, {2, 6, 4}}, Box{{1, 0, 3}, {2, 6, 5}}}));
}

// The suite schema (docs/suite.schema.json) offers exactly the library's ops
// and a property for every scalar attribute, so that a suite the schema
// passes is one the loader reads.
TEST(OpsShape, TheSuiteSchemaNamesEveryOpAndScalar) {
  std::ifstream in(std::filesystem::path(KERNELGATE_TEST_DATA_DIR) / ".." / "docs" / "suite.schema.json");
  const auto step = nlohmann::json::parse(in)["properties"]["forward"]["items"]["properties"];
  std::vector<std::string> names;
  for (const auto& [kind, name] : op_kinds()) {
    names.emplace_back(name);
    for (const ScalarAttribute& scalar : scalar_attributes(kind))
      EXPECT_TRUE(step.contains(std::string(scalar.name))) << name << "'s " << scalar.name;
  }
  EXPECT_EQ(step["op"]["enum"].get<std::vector<std::string>>(), names);
}

}  // namespace
}  // namespace kg::ops
