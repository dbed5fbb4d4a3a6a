// Element-wise ops (with NumPy/PyTorch broadcasting), reductions over given
// dimensions and matmul: ops whose output element reads a fixed set of input
// elements, found by index arithmetic alone.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "op_families.hpp"

namespace kg::ops::detail {

namespace {

bool is_unary(OpKind kind) {
  switch (kind) {
    case OpKind::relu:
    case OpKind::gelu:
    case OpKind::gelu_tanh:
    case OpKind::sigmoid:
    case OpKind::tanh:
    case OpKind::leaky_relu:
    case OpKind::elu:
    case OpKind::selu:
    case OpKind::hardtanh:
    case OpKind::hardsigmoid:
    case OpKind::hardswish:
    case OpKind::softplus:
    case OpKind::softsign:
    case OpKind::silu:
    case OpKind::mish:
    case OpKind::exp:
    case OpKind::log:
    case OpKind::sqrt:
    case OpKind::rsqrt:
    case OpKind::abs:
    case OpKind::pow:
    case OpKind::clamp:
    case OpKind::scale:
    case OpKind::shift: return true;
    default: return false;
  }
}
bool is_binary(OpKind kind) {
  return kind == OpKind::add || kind == OpKind::subtract || kind == OpKind::multiply || kind == OpKind::divide ||
         kind == OpKind::smooth_l1;
}
bool is_reduction(OpKind kind) {
  switch (kind) {
    case OpKind::sum:
    case OpKind::mean:
    case OpKind::max:
    case OpKind::min:
    case OpKind::prod:
    case OpKind::logsumexp:
    case OpKind::argmax:
    case OpKind::argmin: return true;
    default: return false;
  }
}
bool is_position(OpKind kind) { return kind == OpKind::argmax || kind == OpKind::argmin; }
bool is_along_dim(OpKind kind) {
  return kind == OpKind::softmax || kind == OpKind::log_softmax || kind == OpKind::cumsum || kind == OpKind::cumprod;
}
bool is_scan(OpKind kind) { return kind == OpKind::cumsum || kind == OpKind::cumprod; }

// softplus with PyTorch's switch to the identity above the threshold, where
// log(1 + exp(beta x)) / beta and x agree to double precision.
double softplus(double v, double beta, double threshold) {
  return v * beta > threshold ? v : std::log1p(std::exp(beta * v)) / beta;
}

// The activations with constants of their own: the tanh form of GELU and SELU's
// scale and alpha (torch.nn.SELU's, to the digits PyTorch gives).
constexpr double kSqrtTwoOverPi = 0.7978845608028654;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

// An element-wise op's scalar attributes, looked up once per evaluation
// instead of once per element: the first and second of
// scalar_attributes(kind), in that table's order (defaults filled in).
struct Scalars {
  double first = 0, second = 0;
  double divisor = 1;  // scale's
  explicit Scalars(const Op& op) : divisor(static_cast<double>(op.divisor)) {
    const std::span<const ScalarAttribute> attributes = scalar_attributes(op.kind);
    if (attributes.size() > 2) fail(op, "takes more numbers than an element-wise op reads");
    if (attributes.size() > 0) first = op.scalar(attributes[0].name);
    if (attributes.size() > 1) second = op.scalar(attributes[1].name);
  }
};

double apply_activation(OpKind kind, const Scalars& s, double v) {
  switch (kind) {
    case OpKind::relu: return v > 0 ? v : 0.0;
    case OpKind::gelu: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case OpKind::gelu_tanh: return 0.5 * v * (1.0 + std::tanh(kSqrtTwoOverPi * (v + 0.044715 * v * v * v)));
    case OpKind::sigmoid: return 1.0 / (1.0 + std::exp(-v));
    case OpKind::tanh: return std::tanh(v);
    case OpKind::leaky_relu: return v > 0 ? v : v * s.first;  // negative_slope
    case OpKind::elu: return v > 0 ? v : s.first * std::expm1(v);  // alpha
    case OpKind::selu: return kSeluScale * (v > 0 ? v : kSeluAlpha * std::expm1(v));
    case OpKind::hardsigmoid: return std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0;
    case OpKind::hardswish: return v * std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0;
    case OpKind::softplus: return softplus(v, s.first, s.second);  // beta, threshold
    case OpKind::softsign: return v / (1.0 + std::fabs(v));
    case OpKind::silu: return v / (1.0 + std::exp(-v));
    case OpKind::mish: return v * std::tanh(softplus(v, 1.0, 20.0));
    default: return std::nan("");
  }
}

double apply_unary(OpKind kind, const Scalars& s, double v) {
  switch (kind) {
    case OpKind::exp: return std::exp(v);
    case OpKind::log: return std::log(v);
    case OpKind::sqrt: return std::sqrt(v);
    case OpKind::rsqrt: return 1.0 / std::sqrt(v);
    case OpKind::abs: return std::fabs(v);
    case OpKind::pow: return std::pow(v, s.first);  // exponent
    case OpKind::hardtanh: return std::min(std::max(v, s.first), s.second);  // min_val, max_val
    case OpKind::clamp: return std::min(std::max(v, s.first), s.second);  // low, high
    case OpKind::scale: return v * s.first / s.divisor;  // value, divisor
    case OpKind::shift: return v + s.first;  // value
    default: return apply_activation(kind, s, v);
  }
}

double apply_binary(OpKind kind, const Scalars& s, double a, double b) {
  if (kind == OpKind::add) return a + b;
  if (kind == OpKind::subtract) return a - b;
  if (kind == OpKind::divide) return a / b;
  if (kind == OpKind::smooth_l1) {  // PyTorch's smooth_l1_loss per element; beta 0 is the L1 distance
    const double d = std::fabs(a - b), beta = s.first;
    return d < beta ? 0.5 * d * d / beta : d - 0.5 * beta;
  }
  return a * b;
}

// Broadcasting: shapes aligned at their last dimension, an extent of 1
// stretching to the other's.
Shape broadcast_shape(const Op& op, const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape shape(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t ea = d + a.size() >= rank ? a[d + a.size() - rank] : 1;
    const std::int64_t eb = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
    if (ea != eb && ea != 1 && eb != 1)
      fail(op, "shapes " + describe(a) + " and " + describe(b) + " do not broadcast (dimension " +
                   std::to_string(d) + ")");
    shape[d] = std::max(ea, eb);
  }
  return shape;
}

// The box of an operand of shape `shape` that the output box reads.
Box broadcast_box(const Shape& shape, const Box& out) {
  const std::size_t skip = out.lo.size() - shape.size();
  Box box{Shape(shape.size()), Shape(shape.size())};
  for (std::size_t d = 0; d < shape.size(); ++d) {
    box.lo[d] = shape[d] == 1 ? 0 : out.lo[skip + d];
    box.hi[d] = shape[d] == 1 ? 1 : out.hi[skip + d];
  }
  return box;
}

double broadcast_read(const Region& operand, const Shape& shape, const std::int64_t* out_index,
                      std::size_t out_rank) {
  const std::size_t skip = out_rank - shape.size();
  std::int64_t at = 0;
  for (std::size_t d = 0; d < shape.size(); ++d)
    at += ((shape[d] == 1 ? 0 : out_index[skip + d]) - operand.box.lo[d]) * operand.strides[d];
  return operand.data[static_cast<std::size_t>(at)];
}

struct MatmulShape {
  std::int64_t m, k, n;
  Shape batch;  // leading dimensions of the output
  bool b_batched;
};

MatmulShape matmul_shape(const Op& op, const Shape& a, const Shape& b) {
  if (a.size() < 2 || b.size() < 2)
    fail(op, "operands " + describe(a) + " and " + describe(b) + " need rank 2 or more");
  MatmulShape s{a[a.size() - 2], a.back(), b.back(), Shape(a.begin(), a.end() - 2), b.size() > 2};
  if (b[b.size() - 2] != s.k) fail(op, describe(a) + " @ " + describe(b) + ": the inner extents differ");
  if (s.b_batched && Shape(b.begin(), b.end() - 2) != s.batch)
    fail(op, describe(a) + " @ " + describe(b) + ": the batch dimensions differ");
  return s;
}

Shape unary_output_shape(const Op& op, const Shape& x) {
  for (const auto& given : op.scalars) op.scalar(given.first);  // a name the kind does not take fails here
  for (const ScalarAttribute& attribute : scalar_attributes(op.kind)) op.scalar(attribute.name);  // a required one
  if (op.kind == OpKind::clamp) {
    if (op.scalars.empty()) fail(op, "needs low, high or both");
    if (!(op.scalar("low") <= op.scalar("high"))) fail(op, "low is above high");
  }
  if (op.kind == OpKind::hardtanh && !(op.scalar("min_val") <= op.scalar("max_val")))
    fail(op, "min_val is above max_val");
  if (op.kind == OpKind::softplus && !(op.scalar("beta") != 0)) fail(op, "beta is zero");
  if (op.divisor < 1) fail(op, "divisor is " + std::to_string(op.divisor) + ", must be positive");
  return x;
}

Shape reduction_output_shape(const Op& op, const Shape& x) {
  const std::vector<bool> reduced = named_dims(op, x.size(), "reduce");
  if (is_position(op.kind)) {
    const std::size_t dim = one_dim(op, x.size());
    if (x[dim] > kMaxPosition)
      fail(op, "dim " + std::to_string(dim) + " has " + std::to_string(x[dim]) +
                   " positions, beyond the 2^24 an output compares exactly");
  }
  Shape shape;
  for (std::size_t d = 0; d < reduced.size(); ++d)
    if (!reduced[d]) shape.push_back(x[d]);
    else if (op.keepdim) shape.push_back(1);
  return shape;
}

Box reduction_input_box(const Op& op, const Shape& x, const Box& out) {
  const std::vector<bool> reduced = named_dims(op, x.size(), "reduce");
  Box box = Box::whole(x);
  for (std::size_t d = 0, o = 0; d < reduced.size(); ++d) {
    if (!reduced[d]) {
      box.lo[d] = out.lo[o];
      box.hi[d] = out.hi[o];
    }
    if (!reduced[d] || op.keepdim) ++o;
  }
  return box;
}

std::vector<Box> matmul_input_boxes(const Op& op, const std::vector<Shape>& inputs, const Box& out) {
  const MatmulShape s = matmul_shape(op, inputs[0], inputs[1]);
  const std::size_t lead = s.batch.size();
  Box a = out, b = Box::whole(inputs[1]);
  a.lo[lead + 1] = 0;  // every k of the rows asked for
  a.hi[lead + 1] = s.k;
  b.lo.back() = out.lo.back();
  b.hi.back() = out.hi.back();
  if (s.b_batched)
    for (std::size_t d = 0; d < lead; ++d) {
      b.lo[d] = out.lo[d];
      b.hi[d] = out.hi[d];
    }
  return {a, b};
}

// argmax and argmin: the first position of the extreme, or of the first
// NaN (torch.argmax and torch.argmin treat NaN as the extreme).
double position_of_extreme(OpKind kind, std::int64_t count, const std::function<double(std::int64_t)>& value) {
  std::int64_t best = 0;
  double best_value = value(0);
  for (std::int64_t i = 1; i < count && !std::isnan(best_value); ++i) {
    const double v = value(i);
    if (std::isnan(v) || (kind == OpKind::argmax ? v > best_value : v < best_value)) {
      best = i;
      best_value = v;
    }
  }
  return static_cast<double>(best);
}

// The reduced elements folded in row-major order: sum, mean, max, min, prod;
// logsumexp as max + log(sum of exp(v - max)), two passes, so that no
// exponential overflows.
double reduce(OpKind kind, std::int64_t count, const std::function<double(std::int64_t)>& value) {
  if (is_position(kind)) return position_of_extreme(kind, count, value);
  double acc = kind == OpKind::max || kind == OpKind::logsumexp ? -std::numeric_limits<double>::infinity()
               : kind == OpKind::min                            ? std::numeric_limits<double>::infinity()
               : kind == OpKind::prod                           ? 1.0
                                                                : 0.0;
  for (std::int64_t i = 0; i < count; ++i) {
    const double v = value(i);
    if (kind == OpKind::max || kind == OpKind::logsumexp) acc = std::max(acc, v);
    else if (kind == OpKind::min) acc = std::min(acc, v);
    else if (kind == OpKind::prod) acc *= v;
    else acc += v;
  }
  if (kind == OpKind::mean) return acc / static_cast<double>(count);
  if (kind != OpKind::logsumexp || std::isinf(acc)) return acc;
  double sum = 0;
  for (std::int64_t i = 0; i < count; ++i) sum += std::exp(value(i) - acc);
  return acc + std::log(sum);
}

void evaluate_unary(const Op& op, const Region& x, Region& out) {
  const Scalars scalars(op);
  for_each_element(out.box, [&](std::int64_t flat, const std::int64_t* index) {
    out.data[static_cast<std::size_t>(flat)] = apply_unary(op.kind, scalars, x.at(index));
  });
}

void evaluate_binary(const Op& op, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
                     Region& out) {
  const std::size_t rank = out.box.lo.size();
  const Scalars scalars(op);
  for_each_element(out.box, [&](std::int64_t flat, const std::int64_t* index) {
    out.data[static_cast<std::size_t>(flat)] =
        apply_binary(op.kind, scalars, broadcast_read(*inputs[0], shapes[0], index, rank),
                     broadcast_read(*inputs[1], shapes[1], index, rank));
  });
}

void evaluate_reduction(const Op& op, const Shape& shape, const Region& x, Region& out) {
  const std::vector<bool> reduced = named_dims(op, shape.size(), "reduce");
  Box span;  // the reduced dimensions, whole
  std::vector<std::size_t> span_dims;
  for (std::size_t d = 0; d < reduced.size(); ++d)
    if (reduced[d]) {
      span.lo.push_back(0);
      span.hi.push_back(shape[d]);
      span_dims.push_back(d);
    }
  for_each_element(out.box, [&](std::int64_t flat, const std::int64_t* index) {
    std::vector<std::int64_t> at(reduced.size()), inner(span_dims.size());
    for (std::size_t d = 0, o = 0; d < reduced.size(); ++d) {
      if (!reduced[d]) at[d] = index[o];
      if (!reduced[d] || op.keepdim) ++o;
    }
    out.data[static_cast<std::size_t>(flat)] = reduce(op.kind, span.numel(), [&](std::int64_t i) {
      unravel(span, i, inner.data());
      for (std::size_t j = 0; j < span_dims.size(); ++j) at[span_dims[j]] = inner[j];
      return x.at(at.data());
    });
  });
}

// softmax and log_softmax, one row (the whole dim) at a time: its maximum and
// its sum of exp(v - max) once, then the row's elements the box asks for.
void evaluate_softmax(const Op& op, const Shape& shape, const Region& x, Region& out) {
  const std::size_t dim = one_dim(op, shape.size());
  Box rows = out.box;
  rows.hi[dim] = rows.lo[dim] + 1;
  for_each_element(rows, [&](std::int64_t, const std::int64_t* row) {
    std::vector<std::int64_t> at(row, row + shape.size());
    const auto value = [&](std::int64_t i) {
      at[dim] = i;
      return x.at(at.data());
    };
    double max = -std::numeric_limits<double>::infinity();
    for (std::int64_t i = 0; i < shape[dim]; ++i) max = std::max(max, value(i));
    double sum = 0;
    for (std::int64_t i = 0; i < shape[dim]; ++i) sum += std::exp(value(i) - max);
    for (std::int64_t i = out.box.lo[dim]; i < out.box.hi[dim]; ++i) {
      const double shifted = value(i) - max;
      out.data[static_cast<std::size_t>(out.offset(at.data()))] =
          op.kind == OpKind::softmax ? std::exp(shifted) / sum : shifted - std::log(sum);
    }
  });
}

// A scan along the dim, one row at a time: the running sum (product) from
// the first element (the last, reversed), written where the box asks;
// exclusive leaves each element's own term out (0, or 1 for a product, first).
void evaluate_scan(const Op& op, const Shape& shape, const Region& x, Region& out) {
  const std::size_t dim = one_dim(op, shape.size());
  const bool product = op.kind == OpKind::cumprod;
  Box rows = out.box;
  rows.hi[dim] = rows.lo[dim] + 1;
  for_each_element(rows, [&](std::int64_t, const std::int64_t* row) {
    std::vector<std::int64_t> at(row, row + shape.size());
    const std::int64_t first = op.reverse ? shape[dim] - 1 : 0, step = op.reverse ? -1 : 1;
    double running = product ? 1.0 : 0.0;
    for (std::int64_t i = first; i >= 0 && i < shape[dim]; i += step) {
      at[dim] = i;
      const double term = x.at(at.data());
      if (!op.exclusive) running = product ? running * term : running + term;
      if (i >= out.box.lo[dim] && i < out.box.hi[dim])
        out.data[static_cast<std::size_t>(out.offset(at.data()))] = running;
      if (op.exclusive) running = product ? running * term : running + term;
      if (op.reverse ? i <= out.box.lo[dim] : i + 1 >= out.box.hi[dim]) break;  // the rest is not asked for
    }
  });
}

Shape linear_output_shape(const Op& op, const std::vector<Shape>& inputs) {
  const Shape& x = inputs[0];
  const Shape& weight = inputs[1];
  if (weight.size() != 2 || weight[1] != x.back())
    fail(op, "weight " + describe(weight) + " is not [out_features, " + std::to_string(x.back()) + "]");
  if (inputs.size() == 3 && inputs[2] != Shape{weight[0]})
    fail(op, "bias " + describe(inputs[2]) + " is not [" + std::to_string(weight[0]) + "]");
  Shape shape = x;
  shape.back() = weight[0];
  return shape;
}

// An output element reads its row of x, its feature's row of the weight and
// its feature's bias.
std::vector<Box> linear_input_boxes(const std::vector<Shape>& inputs, const Box& out) {
  Box x = out, weight{{out.lo.back(), 0}, {out.hi.back(), inputs[1][1]}};
  x.lo.back() = 0;
  x.hi.back() = inputs[0].back();
  std::vector<Box> boxes{x, weight};
  if (inputs.size() == 3) boxes.push_back(Box{{out.lo.back()}, {out.hi.back()}});
  return boxes;
}

void evaluate_linear(const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs, Region& out) {
  const std::size_t last = out.box.lo.size() - 1;
  const std::int64_t features_in = shapes[0].back();
  for_each_element(out.box, [&](std::int64_t flat, const std::int64_t* index) {
    std::vector<std::int64_t> xi(index, index + last + 1);
    std::int64_t wi[2] = {index[last], 0};
    double sum = 0;
    for (std::int64_t k = 0; k < features_in; ++k) {
      xi[last] = k;
      wi[1] = k;
      sum += inputs[0]->at(xi.data()) * inputs[1]->at(wi);
    }
    out.data[static_cast<std::size_t>(flat)] = inputs.size() == 3 ? sum + inputs[2]->at(&index[last]) : sum;
  });
}

void evaluate_matmul(const Op& op, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
                     Region& out) {
  const std::size_t rank = out.box.lo.size();
  const MatmulShape s = matmul_shape(op, shapes[0], shapes[1]);
  const Region& a = *inputs[0];
  const Region& b = *inputs[1];
  const std::size_t lead = s.batch.size();
  for_each_element(out.box, [&](std::int64_t flat, const std::int64_t* index) {
    std::vector<std::int64_t> ai(index, index + rank), bi(shapes[1].size());
    if (s.b_batched) std::copy(index, index + lead, bi.begin());
    bi.back() = index[rank - 1];
    double sum = 0;
    for (std::int64_t k = 0; k < s.k; ++k) {
      ai[rank - 1] = k;
      bi[bi.size() - 2] = k;
      sum += a.at(ai.data()) * b.at(bi.data());
    }
    out.data[static_cast<std::size_t>(flat)] = sum;
  });
}


// The fallback family: every kind the others do not have.
bool is_dense_op(OpKind) { return true; }

Shape dense_output_shape(const Op& op, const std::vector<Shape>& inputs) {
  if (is_unary(op.kind)) return unary_output_shape(op, inputs[0]);
  if (is_binary(op.kind)) {
    if (op.kind == OpKind::smooth_l1 && !(op.scalar("beta") >= 0)) fail(op, "beta is negative");
    return broadcast_shape(op, inputs[0], inputs[1]);
  }
  if (is_reduction(op.kind)) return reduction_output_shape(op, inputs[0]);
  if (is_along_dim(op.kind)) {
    one_dim(op, inputs[0].size());
    return inputs[0];
  }
  if (op.kind == OpKind::linear) return linear_output_shape(op, inputs);
  const MatmulShape s = matmul_shape(op, inputs[0], inputs[1]);
  Shape shape = s.batch;
  shape.push_back(s.m);
  shape.push_back(s.n);
  return shape;
}

std::vector<Box> dense_input_boxes(const Op& op, const std::vector<Shape>& inputs, const Box& out) {
  if (is_unary(op.kind)) return {out};
  if (is_binary(op.kind)) return {broadcast_box(inputs[0], out), broadcast_box(inputs[1], out)};
  if (is_reduction(op.kind)) return {reduction_input_box(op, inputs[0], out)};
  if (is_along_dim(op.kind)) {
    // softmax: the whole of each row asked for; a scan: the part of it up
    // to the last element asked for (from the first, reversed).
    Box box = out;
    const std::size_t dim = one_dim(op, inputs[0].size());
    if (!is_scan(op.kind) || !op.reverse) box.lo[dim] = 0;
    if (!is_scan(op.kind) || op.reverse) box.hi[dim] = inputs[0][dim];
    return {box};
  }
  if (op.kind == OpKind::linear) return linear_input_boxes(inputs, out);
  return matmul_input_boxes(op, inputs, out);
}

void dense_evaluate(const Op& op, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
                    Region& out) {
  if (is_unary(op.kind)) evaluate_unary(op, *inputs[0], out);
  else if (is_binary(op.kind)) evaluate_binary(op, shapes, inputs, out);
  else if (is_reduction(op.kind)) evaluate_reduction(op, shapes[0], *inputs[0], out);
  else if (is_scan(op.kind)) evaluate_scan(op, shapes[0], *inputs[0], out);
  else if (is_along_dim(op.kind)) evaluate_softmax(op, shapes[0], *inputs[0], out);
  else if (op.kind == OpKind::linear) evaluate_linear(shapes, inputs, out);
  else evaluate_matmul(op, shapes, inputs, out);
}

double dense_flops(const Op& op, const std::vector<Shape>& inputs) {
  const Shape out = dense_output_shape(op, inputs);
  double elements = 1;
  for (std::int64_t extent : out) elements *= static_cast<double>(extent);
  if (is_reduction(op.kind)) {
    double read = 1;
    for (std::int64_t extent : inputs[0]) read *= static_cast<double>(extent);
    return read;
  }
  if (is_scan(op.kind)) return elements;
  if (is_along_dim(op.kind)) return 3 * elements;
  if (op.kind == OpKind::linear) return 2 * elements * static_cast<double>(inputs[0].back());
  if (op.kind == OpKind::matmul) return 2 * elements * static_cast<double>(inputs[0].back());
  return elements;
}

}  // namespace

const OpFamily kDenseOps{is_dense_op, dense_output_shape, dense_input_boxes, dense_evaluate, dense_flops};

}  // namespace kg::ops::detail
