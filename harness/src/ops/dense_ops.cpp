// Element-wise ops (with NumPy/PyTorch broadcasting), reductions over given
// dimensions and matmul: ops whose output element reads a fixed set of input
// elements, found by index arithmetic alone.
#include <algorithm>
#include <cmath>
#include <limits>

#include "op_families.hpp"

namespace kg::ops::detail {

namespace {

bool is_unary(OpKind kind) {
  switch (kind) {
    case OpKind::relu:
    case OpKind::gelu:
    case OpKind::sigmoid:
    case OpKind::tanh:
    case OpKind::clamp:
    case OpKind::scale: return true;
    default: return false;
  }
}
bool is_binary(OpKind kind) {
  return kind == OpKind::add || kind == OpKind::subtract || kind == OpKind::multiply;
}
bool is_reduction(OpKind kind) { return kind == OpKind::sum || kind == OpKind::mean || kind == OpKind::max; }

double apply_unary(const Op& op, double v) {
  switch (op.kind) {
    case OpKind::relu: return v > 0 ? v : 0.0;
    case OpKind::gelu: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case OpKind::sigmoid: return 1.0 / (1.0 + std::exp(-v));
    case OpKind::tanh: return std::tanh(v);
    case OpKind::clamp: return std::min(std::max(v, op.low), op.high);
    case OpKind::scale: return v * op.value;
    default: return v;
  }
}

double apply_binary(OpKind kind, double a, double b) {
  if (kind == OpKind::add) return a + b;
  if (kind == OpKind::subtract) return a - b;
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

// The reduced dimensions, normalised to [0, rank), sorted, each once.
std::vector<bool> reduced_dims(const Op& op, std::size_t rank) {
  if (op.dims.empty()) fail(op, "names no dims to reduce");
  std::vector<bool> reduced(rank, false);
  for (std::int64_t dim : op.dims) {
    const std::int64_t d = dim < 0 ? dim + static_cast<std::int64_t>(rank) : dim;
    if (d < 0 || d >= static_cast<std::int64_t>(rank))
      fail(op, "dim " + std::to_string(dim) + " is outside a tensor of rank " + std::to_string(rank));
    if (reduced[static_cast<std::size_t>(d)]) fail(op, "dim " + std::to_string(dim) + " is named twice");
    reduced[static_cast<std::size_t>(d)] = true;
  }
  return reduced;
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

}  // namespace

Shape dense_output_shape(const Op& op, const std::vector<Shape>& inputs) {
  if (is_unary(op.kind)) {
    if (op.kind == OpKind::clamp && !(op.low <= op.high)) fail(op, "low is above high");
    return inputs[0];
  }
  if (is_binary(op.kind)) return broadcast_shape(op, inputs[0], inputs[1]);
  if (is_reduction(op.kind)) {
    const std::vector<bool> reduced = reduced_dims(op, inputs[0].size());
    Shape shape;
    for (std::size_t d = 0; d < reduced.size(); ++d)
      if (!reduced[d]) shape.push_back(inputs[0][d]);
      else if (op.keepdim) shape.push_back(1);
    return shape;
  }
  const MatmulShape s = matmul_shape(op, inputs[0], inputs[1]);
  Shape shape = s.batch;
  shape.push_back(s.m);
  shape.push_back(s.n);
  return shape;
}

std::vector<Box> dense_input_boxes(const Op& op, const std::vector<Shape>& inputs, const Box& out) {
  if (is_unary(op.kind)) return {out};
  if (is_binary(op.kind)) return {broadcast_box(inputs[0], out), broadcast_box(inputs[1], out)};
  if (is_reduction(op.kind)) {
    const std::vector<bool> reduced = reduced_dims(op, inputs[0].size());
    Box box = Box::whole(inputs[0]);
    for (std::size_t d = 0, o = 0; d < reduced.size(); ++d) {
      if (!reduced[d]) {
        box.lo[d] = out.lo[o];
        box.hi[d] = out.hi[o];
      }
      if (!reduced[d] || op.keepdim) ++o;
    }
    return {box};
  }
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

void dense_evaluate(const Op& op, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
                    Region& out) {
  const std::size_t rank = out.box.lo.size();
  if (is_unary(op.kind)) {
    const Region& x = *inputs[0];
    for_each_element(out.box, [&](std::int64_t flat, const std::int64_t* index) {
      out.data[static_cast<std::size_t>(flat)] = apply_unary(op, x.at(index));
    });
    return;
  }
  if (is_binary(op.kind)) {
    for_each_element(out.box, [&](std::int64_t flat, const std::int64_t* index) {
      out.data[static_cast<std::size_t>(flat)] =
          apply_binary(op.kind, broadcast_read(*inputs[0], shapes[0], index, rank),
                       broadcast_read(*inputs[1], shapes[1], index, rank));
    });
    return;
  }
  if (is_reduction(op.kind)) {
    const Region& x = *inputs[0];
    const std::vector<bool> reduced = reduced_dims(op, shapes[0].size());
    Box span;  // the reduced dimensions, whole
    std::vector<std::size_t> span_dims;
    for (std::size_t d = 0; d < reduced.size(); ++d)
      if (reduced[d]) {
        span.lo.push_back(0);
        span.hi.push_back(shapes[0][d]);
        span_dims.push_back(d);
      }
    const std::int64_t count = span.numel();
    for_each_element(out.box, [&](std::int64_t flat, const std::int64_t* index) {
      std::vector<std::int64_t> at(reduced.size()), inner(span_dims.size());
      for (std::size_t d = 0, o = 0; d < reduced.size(); ++d) {
        if (!reduced[d]) at[d] = index[o];
        if (!reduced[d] || op.keepdim) ++o;
      }
      double acc = op.kind == OpKind::max ? -std::numeric_limits<double>::infinity() : 0.0;
      for (std::int64_t i = 0; i < count; ++i) {  // row-major over the reduced dimensions
        unravel(span, i, inner.data());
        for (std::size_t j = 0; j < span_dims.size(); ++j) at[span_dims[j]] = inner[j];
        const double v = x.at(at.data());
        acc = op.kind == OpKind::max ? std::max(acc, v) : acc + v;
      }
      out.data[static_cast<std::size_t>(flat)] = op.kind == OpKind::mean ? acc / static_cast<double>(count) : acc;
    });
    return;
  }
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

double dense_flops(const Op& op, const std::vector<Shape>& inputs) {
  const Shape out = dense_output_shape(op, inputs);
  double elements = 1;
  for (std::int64_t extent : out) elements *= static_cast<double>(extent);
  if (is_reduction(op.kind)) {
    double read = 1;
    for (std::int64_t extent : inputs[0]) read *= static_cast<double>(extent);
    return read;
  }
  if (op.kind == OpKind::matmul) return 2 * elements * static_cast<double>(inputs[0].back());
  return elements;
}

}  // namespace kg::ops::detail
