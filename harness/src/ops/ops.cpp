// Boxes, regions, op names and the dispatch of kernelgate/detail/ops.hpp to the
// op families.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

#include "kernelgate/detail/parallel.hpp"
#include "kernelgate/detail/enum_names.hpp"
#include "op_families.hpp"

namespace kg::ops {

Box Box::whole(const Shape& shape) { return Box{Shape(shape.size(), 0), shape}; }

Box Box::element(const Shape& shape, std::int64_t flat_index) {
  Box box{Shape(shape.size(), 0), Shape(shape.size(), 0)};
  for (std::size_t d = shape.size(); d-- > 0;) {
    box.lo[d] = flat_index % shape[d];
    box.hi[d] = box.lo[d] + 1;
    flat_index /= shape[d];
  }
  return box;
}

std::int64_t Box::numel() const {
  std::int64_t n = 1;
  for (std::size_t d = 0; d < lo.size(); ++d) n *= std::max<std::int64_t>(0, hi[d] - lo[d]);
  return n;
}

Box Box::merged(const Box& other) const {
  if (other.empty()) return *this;
  if (empty()) return other;
  Box box = *this;
  for (std::size_t d = 0; d < lo.size(); ++d) {
    box.lo[d] = std::min(lo[d], other.lo[d]);
    box.hi[d] = std::max(hi[d], other.hi[d]);
  }
  return box;
}

Region::Region(Box box_of_values) : box(std::move(box_of_values)) {
  strides.assign(box.lo.size(), 1);
  for (std::size_t d = box.lo.size(); d-- > 1;)
    strides[d - 1] = strides[d] * std::max<std::int64_t>(0, box.hi[d] - box.lo[d]);
  data.assign(static_cast<std::size_t>(box.numel()), 0.0);
}

namespace {

constexpr EnumNames<OpKind, 61> kOpKindNames{"op", {{
    {OpKind::conv, "conv"}, {OpKind::conv_transpose, "conv_transpose"}, {OpKind::max_pool, "max_pool"},
    {OpKind::avg_pool, "avg_pool"}, {OpKind::sum, "sum"}, {OpKind::mean, "mean"}, {OpKind::max, "max"},
    {OpKind::min, "min"}, {OpKind::prod, "prod"}, {OpKind::logsumexp, "logsumexp"},
    {OpKind::argmax, "argmax"}, {OpKind::argmin, "argmin"}, {OpKind::softmax, "softmax"},
    {OpKind::log_softmax, "log_softmax"}, {OpKind::cumsum, "cumsum"}, {OpKind::cumprod, "cumprod"},
    {OpKind::layer_norm, "layer_norm"}, {OpKind::batch_norm, "batch_norm"}, {OpKind::instance_norm, "instance_norm"},
    {OpKind::group_norm, "group_norm"}, {OpKind::add, "add"}, {OpKind::subtract, "subtract"},
    {OpKind::multiply, "multiply"}, {OpKind::divide, "divide"}, {OpKind::smooth_l1, "smooth_l1"},
    {OpKind::relu, "relu"}, {OpKind::gelu, "gelu"}, {OpKind::gelu_tanh, "gelu_tanh"}, {OpKind::sigmoid, "sigmoid"},
    {OpKind::tanh, "tanh"}, {OpKind::leaky_relu, "leaky_relu"}, {OpKind::elu, "elu"}, {OpKind::selu, "selu"},
    {OpKind::hardtanh, "hardtanh"}, {OpKind::hardsigmoid, "hardsigmoid"}, {OpKind::hardswish, "hardswish"},
    {OpKind::softplus, "softplus"}, {OpKind::softsign, "softsign"}, {OpKind::silu, "silu"}, {OpKind::mish, "mish"},
    {OpKind::exp, "exp"}, {OpKind::log, "log"}, {OpKind::sqrt, "sqrt"}, {OpKind::rsqrt, "rsqrt"},
    {OpKind::abs, "abs"}, {OpKind::pow, "pow"}, {OpKind::clamp, "clamp"}, {OpKind::scale, "scale"},
    {OpKind::shift, "shift"}, {OpKind::matmul, "matmul"}, {OpKind::linear, "linear"},
    {OpKind::attention, "attention"}, {OpKind::permute, "permute"},
    {OpKind::reshape, "reshape"}, {OpKind::concat, "concat"}, {OpKind::flip, "flip"}, {OpKind::narrow, "narrow"},
    {OpKind::triu, "triu"}, {OpKind::tril, "tril"}, {OpKind::diag, "diag"}, {OpKind::gather, "gather"},
}}};

constexpr double kRequired = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// PyTorch's names and defaults (torch.nn.functional).
constexpr ScalarAttribute kLeakyRelu[] = {{"negative_slope", 0.01}};
constexpr ScalarAttribute kElu[] = {{"alpha", 1.0}};
constexpr ScalarAttribute kHardtanh[] = {{"min_val", -1.0}, {"max_val", 1.0}};
constexpr ScalarAttribute kSoftplus[] = {{"beta", 1.0}, {"threshold", 20.0}};
constexpr ScalarAttribute kPow[] = {{"exponent", kRequired}};
// Either bound may be left out (torch.clamp's None); the suite gives one.
constexpr ScalarAttribute kClamp[] = {{"low", -kInfinity}, {"high", kInfinity}};
constexpr ScalarAttribute kScale[] = {{"value", kRequired}};  // scale and shift
constexpr ScalarAttribute kNorm[] = {{"eps", 1e-5}};
constexpr ScalarAttribute kSmoothL1[] = {{"beta", 1.0}};

}  // namespace

std::span<const std::pair<OpKind, std::string_view>> op_kinds() { return kOpKindNames.names; }

std::string_view to_string(OpKind kind) { return kOpKindNames.name(kind); }

OpKind op_kind_from_string(std::string_view name) { return kOpKindNames.parse(name); }

std::span<const ScalarAttribute> scalar_attributes(OpKind kind) {
  switch (kind) {
    case OpKind::leaky_relu: return kLeakyRelu;
    case OpKind::elu: return kElu;
    case OpKind::hardtanh: return kHardtanh;
    case OpKind::softplus: return kSoftplus;
    case OpKind::pow: return kPow;
    case OpKind::clamp: return kClamp;
    case OpKind::scale:
    case OpKind::shift: return kScale;
    case OpKind::layer_norm:
    case OpKind::batch_norm:
    case OpKind::instance_norm:
    case OpKind::group_norm: return kNorm;
    case OpKind::smooth_l1: return kSmoothL1;
    default: return {};
  }
}

double Op::scalar(std::string_view name) const {
  for (const ScalarAttribute& attribute : scalar_attributes(kind)) {
    if (attribute.name != name) continue;
    if (auto given = scalars.find(name); given != scalars.end()) return given->second;
    if (std::isnan(attribute.default_value)) detail::fail(*this, "needs " + std::string(name));
    return attribute.default_value;
  }
  detail::fail(*this, "takes no attribute " + std::string(name));
}

std::pair<std::size_t, std::size_t> operand_count(OpKind kind) {
  switch (kind) {
    case OpKind::conv:
    case OpKind::conv_transpose:
    case OpKind::linear:
    case OpKind::concat: return {2, 3};
    case OpKind::attention: return {3, 3};
    case OpKind::layer_norm:
    case OpKind::batch_norm:
    case OpKind::instance_norm:
    case OpKind::group_norm: return {1, 3};
    case OpKind::add:
    case OpKind::subtract:
    case OpKind::multiply:
    case OpKind::divide:
    case OpKind::smooth_l1:
    case OpKind::matmul:
    case OpKind::gather: return {2, 2};
    default: return {1, 1};
  }
}

namespace {

const detail::OpFamily& family_of(OpKind kind) {
  for (const detail::OpFamily* family :
       {&detail::kWindowOps, &detail::kNormOps, &detail::kLayoutOps, &detail::kAttentionOps})
    if (family->has(kind)) return *family;
  return detail::kDenseOps;
}

void check_operands(const Op& op, std::size_t count) {
  auto [fewest, most] = operand_count(op.kind);
  if (count < fewest || count > most)
    detail::fail(op, "takes " + std::to_string(fewest) + (most > fewest ? " or " + std::to_string(most) : "") +
                         " operands, got " + std::to_string(count));
}

}  // namespace

Shape output_shape(const Op& op, const std::vector<Shape>& inputs) {
  check_operands(op, inputs.size());
  for (const Shape& shape : inputs)
    for (std::int64_t extent : shape)
      if (extent <= 0) detail::fail(op, "operand of shape " + describe(shape) + " is empty");
  return family_of(op.kind).output_shape(op, inputs);
}

std::vector<Box> input_boxes(const Op& op, const std::vector<Shape>& inputs, const Box& out) {
  if (out.empty()) {
    std::vector<Box> none;
    for (const Shape& shape : inputs) none.push_back(Box{Shape(shape.size(), 0), Shape(shape.size(), 0)});
    return none;
  }
  return family_of(op.kind).input_boxes(op, inputs, out);
}

void evaluate(const Op& op, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
              Region& out) {
  check_operands(op, inputs.size());
  if (out.box.empty()) return;
  family_of(op.kind).evaluate(op, shapes, inputs, out);
}

double flops(const Op& op, const std::vector<Shape>& inputs) {
  return family_of(op.kind).flops(op, inputs);
}

std::string describe(const Shape& shape) {
  std::string text = "[";
  for (std::size_t d = 0; d < shape.size(); ++d) text += (d ? ", " : "") + std::to_string(shape[d]);
  return text + "]";
}

namespace detail {

void unravel(const Box& box, std::int64_t flat, std::int64_t* index) {
  for (std::size_t d = box.lo.size(); d-- > 0;) {
    const std::int64_t extent = box.hi[d] - box.lo[d];
    index[d] = box.lo[d] + flat % extent;
    flat /= extent;
  }
}

std::size_t dim_index(const Op& op, std::int64_t dim, std::size_t rank) {
  const std::int64_t d = dim < 0 ? dim + static_cast<std::int64_t>(rank) : dim;
  if (d < 0 || d >= static_cast<std::int64_t>(rank))
    fail(op, "dim " + std::to_string(dim) + " is outside a tensor of rank " + std::to_string(rank));
  return static_cast<std::size_t>(d);
}

std::size_t one_dim(const Op& op, std::size_t rank) {
  if (op.dims.size() != 1) fail(op, "names one dim");
  return dim_index(op, op.dims[0], rank);
}

std::vector<bool> named_dims(const Op& op, std::size_t rank, const std::string& what) {
  if (op.dims.empty()) fail(op, "names no dims to " + what);
  std::vector<bool> named(rank, false);
  for (std::int64_t dim : op.dims) {
    const std::size_t d = dim_index(op, dim, rank);
    if (named[d]) fail(op, "dim " + std::to_string(dim) + " is named twice");
    named[d] = true;
  }
  return named;
}

void for_each_element(const Box& box, const std::function<void(std::int64_t, const std::int64_t*)>& body) {
  parallel_for(box.numel(), 64, [&](std::int64_t begin, std::int64_t end) {
    std::vector<std::int64_t> index(box.lo.size());
    for (std::int64_t flat = begin; flat < end; ++flat) {
      unravel(box, flat, index.data());
      body(flat, index.data());
    }
  });
}

}  // namespace detail

}  // namespace kg::ops
