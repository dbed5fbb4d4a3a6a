// Data movement: permute (transpose is a permute of two dims), reshape
// (view and flatten are reshapes: PyTorch's row-major order is kept),
// concat, flip, narrow and gather; and masking: triu, tril and diag. No
// arithmetic: each output element is one input element, found by index
// arithmetic (gather's by the value of its index operand), or zero where a
// mask leaves it out.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "op_families.hpp"

namespace kg::ops::detail {

namespace {

std::int64_t numel(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t extent : shape) n *= extent;
  return n;
}

// The permutation, each dim once, negative ones counted from the end.
std::vector<std::size_t> permutation(const Op& op, std::size_t rank) {
  if (op.dims.size() != rank)
    fail(op, "dims names " + std::to_string(op.dims.size()) + " dimensions of a tensor of rank " +
                 std::to_string(rank));
  std::vector<std::size_t> order;
  std::vector<bool> seen(rank, false);
  for (std::int64_t dim : op.dims) {
    const std::size_t d = dim_index(op, dim, rank);
    if (seen[d])
      fail(op, "dims " + describe(op.dims) + " is not a permutation of " + std::to_string(rank) + " dimensions");
    seen[d] = true;
    order.push_back(d);
  }
  return order;
}

// The new shape with its -1 (if any) worked out; the element count kept.
Shape reshaped(const Op& op, const Shape& x) {
  Shape shape = op.shape;
  const auto unknown = std::count(shape.begin(), shape.end(), -1);
  std::int64_t known = 1;
  for (std::int64_t extent : shape)
    if (extent != -1) known *= extent;
  if (shape.empty() || unknown > 1 || std::any_of(shape.begin(), shape.end(), [](auto e) { return e < -1 || e == 0; }))
    fail(op, "shape " + describe(op.shape) + " needs positive extents and at most one -1");
  if (unknown == 1 && numel(x) % known == 0) *std::find(shape.begin(), shape.end(), -1) = numel(x) / known;
  if (numel(shape) != numel(x))
    fail(op, "shape " + describe(op.shape) + " does not hold the " + std::to_string(numel(x)) + " elements of " +
                 describe(x));
  return shape;
}

Shape concat_shape(const Op& op, const std::vector<Shape>& inputs) {
  const std::size_t dim = one_dim(op, inputs[0].size());
  Shape shape = inputs[0];
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    Shape other = inputs[i];
    if (other.size() == shape.size()) other[dim] = shape[dim];
    if (other != shape)
      fail(op, describe(inputs[0]) + " and " + describe(inputs[i]) + " differ outside dim " + std::to_string(dim));
    shape[dim] += inputs[i][dim];
  }
  return shape;
}

// The input box holding the elements [first, last] of the row-major order.
Box flat_range_box(const Shape& shape, std::int64_t first, std::int64_t last) {
  Box box = Box::whole(shape);
  const Box lo = Box::element(shape, first), hi = Box::element(shape, last);
  for (std::size_t d = 0; d < shape.size(); ++d) {
    box.lo[d] = lo.lo[d];
    box.hi[d] = hi.lo[d] + 1;
    if (lo.lo[d] != hi.lo[d]) {  // from here on the range wraps: whole dimensions
      for (std::size_t e = d + 1; e < shape.size(); ++e) {
        box.lo[e] = 0;
        box.hi[e] = shape[e];
      }
      break;
    }
  }
  return box;
}

std::int64_t flat_of(const Shape& shape, const std::int64_t* index) {
  std::int64_t flat = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

Shape narrowed(const Op& op, const Shape& x) {
  const std::size_t dim = one_dim(op, x.size());
  if (op.start < 0 || op.length < 1 || op.start + op.length > x[dim])
    fail(op, "start " + std::to_string(op.start) + " and length " + std::to_string(op.length) +
                 " do not fit in extent " + std::to_string(x[dim]));
  Shape shape = x;
  shape[dim] = op.length;
  return shape;
}

// The masks and diag: the same elements or a square of them, some zero.
Shape masked_shape(const Op& op, const Shape& x) {
  if (op.kind == OpKind::diag) {
    if (x.size() != 1) fail(op, "takes a vector, not " + describe(x));
    return {x[0], x[0]};
  }
  if (x.size() < 2) fail(op, "needs a matrix or a batch of them, not " + describe(x));
  return x;
}

// Whether element (row, column) of the last two dims is kept.
bool kept_by_mask(const Op& op, std::int64_t row, std::int64_t column) {
  if (op.kind == OpKind::triu) return column - row >= op.diagonal;
  if (op.kind == OpKind::tril) return column - row <= op.diagonal;
  return row == column;  // diag
}

// gather (torch.gather): the index's shape, of the input's rank and within
// its extents outside dim.
Shape gathered(const Op& op, const Shape& x, const Shape& index) {
  const std::size_t dim = one_dim(op, x.size());
  bool fits = index.size() == x.size();
  for (std::size_t d = 0; fits && d < x.size(); ++d) fits = d == dim || index[d] <= x[d];
  if (!fits)
    fail(op, "an index of " + describe(index) + " does not fit " + describe(x) + " outside dim " +
                 std::to_string(dim));
  return index;
}

// The element of x an index value picks along dim; the value must be one
// of its positions, as torch.gather requires.
std::int64_t gathered_position(const Op& op, double value, std::int64_t extent) {
  if (!(value >= 0 && value < static_cast<double>(extent) && value == std::floor(value))) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    fail(op, "index " + std::string(text) + " is no position in a dim of extent " + std::to_string(extent));
  }
  return static_cast<std::int64_t>(value);
}

bool is_layout_op(OpKind kind) {
  switch (kind) {
    case OpKind::permute:
    case OpKind::reshape:
    case OpKind::concat:
    case OpKind::flip:
    case OpKind::narrow:
    case OpKind::triu:
    case OpKind::tril:
    case OpKind::diag:
    case OpKind::gather: return true;
    default: return false;
  }
}

Shape layout_output_shape(const Op& op, const std::vector<Shape>& inputs) {
  if (op.kind == OpKind::reshape) return reshaped(op, inputs[0]);
  if (op.kind == OpKind::concat) return concat_shape(op, inputs);
  if (op.kind == OpKind::flip) {
    named_dims(op, inputs[0].size(), "flip");
    return inputs[0];
  }
  if (op.kind == OpKind::narrow) return narrowed(op, inputs[0]);
  if (op.kind == OpKind::gather) return gathered(op, inputs[0], inputs[1]);
  if (op.kind != OpKind::permute) return masked_shape(op, inputs[0]);
  Shape shape;
  for (std::size_t d : permutation(op, inputs[0].size())) shape.push_back(inputs[0][d]);
  return shape;
}

// The input box of flip, narrow, the masks and diag.
Box moved_box(const Op& op, const Shape& x, const Box& out) {
  Box box = out;
  if (op.kind == OpKind::flip) {
    const std::vector<bool> flipped = named_dims(op, x.size(), "flip");
    for (std::size_t d = 0; d < x.size(); ++d)
      if (flipped[d]) {
        box.lo[d] = x[d] - out.hi[d];
        box.hi[d] = x[d] - out.lo[d];
      }
  } else if (op.kind == OpKind::narrow) {
    const std::size_t dim = one_dim(op, x.size());
    box.lo[dim] += op.start;
    box.hi[dim] += op.start;
  } else if (op.kind == OpKind::diag) {  // the diagonal elements the box holds, if any
    const std::int64_t lo = std::max(out.lo[0], out.lo[1]);
    box = Box{{lo}, {std::max(lo, std::min(out.hi[0], out.hi[1]))}};
  }
  return box;
}

std::vector<Box> layout_input_boxes(const Op& op, const std::vector<Shape>& inputs, const Box& out) {
  if (op.kind == OpKind::reshape) {
    const Shape shape = reshaped(op, inputs[0]);
    Box last = out;
    for (std::size_t d = 0; d < shape.size(); ++d) last.lo[d] = out.hi[d] - 1;
    return {flat_range_box(inputs[0], flat_of(shape, out.lo.data()), flat_of(shape, last.lo.data()))};
  }
  if (op.kind == OpKind::concat) {
    const std::size_t dim = one_dim(op, inputs[0].size());
    std::vector<Box> boxes;
    std::int64_t offset = 0;
    for (const Shape& input : inputs) {  // the part of the box that falls in this input, or none of it
      Box box = out;
      box.lo[dim] = std::clamp<std::int64_t>(out.lo[dim] - offset, 0, input[dim]);
      box.hi[dim] = std::clamp<std::int64_t>(out.hi[dim] - offset, box.lo[dim], input[dim]);
      boxes.push_back(box);
      offset += input[dim];
    }
    return boxes;
  }
  if (op.kind == OpKind::gather) {  // the index's values pick along dim: the whole of it
    Box box = out;
    const std::size_t dim = one_dim(op, inputs[0].size());
    box.lo[dim] = 0;
    box.hi[dim] = out.empty() ? 0 : inputs[0][dim];
    return {box, out};
  }
  if (op.kind != OpKind::permute) return {moved_box(op, inputs[0], out)};
  const std::vector<std::size_t> order = permutation(op, inputs[0].size());
  Box box = Box::whole(inputs[0]);
  for (std::size_t d = 0; d < order.size(); ++d) {
    box.lo[order[d]] = out.lo[d];
    box.hi[order[d]] = out.hi[d];
  }
  return {box};
}

void layout_evaluate(const Op& op, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
                     Region& out) {
  const Shape out_shape = layout_output_shape(op, shapes);
  const std::vector<std::size_t> order =
      op.kind == OpKind::permute ? permutation(op, shapes[0].size()) : std::vector<std::size_t>{};
  const std::size_t dim = op.kind == OpKind::concat || op.kind == OpKind::narrow || op.kind == OpKind::gather
                              ? one_dim(op, shapes[0].size())
                              : 0;
  const std::vector<bool> flipped =
      op.kind == OpKind::flip ? named_dims(op, shapes[0].size(), "flip") : std::vector<bool>{};
  for_each_element(out.box, [&](std::int64_t flat, const std::int64_t* index) {
    std::vector<std::int64_t> at(index, index + out.box.lo.size());
    std::size_t operand = 0;
    if (op.kind == OpKind::permute) {
      for (std::size_t d = 0; d < order.size(); ++d) at[order[d]] = index[d];
    } else if (op.kind == OpKind::reshape) {
      at = Box::element(shapes[0], flat_of(out_shape, index)).lo;
    } else if (op.kind == OpKind::concat) {
      while (at[dim] >= shapes[operand][dim]) at[dim] -= shapes[operand++][dim];
    } else if (op.kind == OpKind::flip) {
      for (std::size_t d = 0; d < flipped.size(); ++d)
        if (flipped[d]) at[d] = shapes[0][d] - 1 - index[d];
    } else if (op.kind == OpKind::narrow) {
      at[dim] += op.start;
    } else if (op.kind == OpKind::gather) {
      at[dim] = gathered_position(op, inputs[1]->at(index), shapes[0][dim]);
    } else {
      const std::size_t rank = out.box.lo.size();
      if (!kept_by_mask(op, index[rank - 2], index[rank - 1])) {
        out.data[static_cast<std::size_t>(flat)] = 0.0;
        return;
      }
      if (op.kind == OpKind::diag) at.resize(1);
    }
    out.data[static_cast<std::size_t>(flat)] = inputs[operand]->at(at.data());
  });
}

double layout_flops(const Op& op, const std::vector<Shape>& inputs) {
  layout_output_shape(op, inputs);
  return 0;
}

}  // namespace

const OpFamily kLayoutOps{is_layout_op, layout_output_shape, layout_input_boxes, layout_evaluate, layout_flops};

}  // namespace kg::ops::detail
