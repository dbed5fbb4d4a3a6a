// Convolutions, transposed convolutions and pools: ops whose output element
// reads a window of taps in each spatial dimension. The taps of one output
// coordinate are found per dimension (Window::for_each_tap) and multiplied
// out, so N-d is the same code as 1-d.
//   convolution and pool:  input i = o * stride - padding + k * dilation
//   transposed:            o = i * stride - padding + k * dilation, so
//                          i = (o + padding - k * dilation) / stride where exact
#include <algorithm>
#include <limits>

#include "op_families.hpp"

namespace kg::ops::detail {

namespace {

bool is_pool(OpKind kind) { return kind == OpKind::max_pool || kind == OpKind::avg_pool; }
bool is_convolution(OpKind kind) { return kind == OpKind::conv || kind == OpKind::conv_transpose; }

struct Window {
  std::int64_t in = 0, out = 0, kernel = 1, stride = 1, padding = 0, dilation = 1;
  bool transposed = false;

  template <typename Tap>
  void for_each_tap(std::int64_t o, Tap&& tap) const {
    for (std::int64_t k = 0; k < kernel; ++k) {
      std::int64_t i;
      if (transposed) {
        const std::int64_t t = o + padding - k * dilation;
        if (t < 0 || t % stride != 0) continue;
        i = t / stride;
      } else {
        i = o * stride - padding + k * dilation;
      }
      if (i >= 0 && i < in) tap(k, i);
    }
  }
};

// One attribute per spatial dimension: empty gives the default, one value
// stands for every dimension.
std::vector<std::int64_t> per_dimension(const Op& op, const char* name, const std::vector<std::int64_t>& given,
                                        std::size_t dims, std::vector<std::int64_t> fallback) {
  if (given.empty()) return fallback;
  if (given.size() == 1) return std::vector<std::int64_t>(dims, given[0]);
  if (given.size() != dims)
    fail(op, std::string(name) + " has " + std::to_string(given.size()) + " values for " + std::to_string(dims) +
                 " spatial dimensions");
  return given;
}

// The geometry of a windowed op: channel counts and one Window per spatial
// dimension. Every check of output_shape lives here, so a shape that passes
// it is one evaluate can compute.
struct Geometry {
  std::int64_t batch = 0, channels = 0, out_channels = 0, groups = 1;
  std::vector<Window> windows;

  std::int64_t in_per_group() const { return channels / groups; }
  std::int64_t out_per_group() const { return out_channels / groups; }
};

Geometry geometry_of(const Op& op, const std::vector<Shape>& inputs) {
  const Shape& x = inputs.at(0);
  if (x.size() < 3) fail(op, "input " + describe(x) + " needs a batch, a channel and at least one spatial dimension");
  const std::size_t dims = x.size() - 2;
  Geometry g;
  g.batch = x[0];
  g.channels = x[1];
  std::vector<std::int64_t> kernel;
  if (is_convolution(op.kind)) {
    const Shape& weight = inputs.at(1);
    if (weight.size() != x.size())
      fail(op, "weight " + describe(weight) + " must have the rank of input " + describe(x));
    if (!op.kernel.empty()) fail(op, "a convolution's kernel comes from its weight, it takes no kernel attribute");
    g.groups = op.groups;
    if (g.groups < 1 || g.channels % g.groups != 0)
      fail(op, "input channels " + std::to_string(g.channels) + " are not divisible by groups " +
                   std::to_string(g.groups));
    if (op.kind == OpKind::conv) {
      g.out_channels = weight[0];
      if (g.out_channels % g.groups != 0)
        fail(op, "output channels " + std::to_string(g.out_channels) + " are not divisible by groups " +
                     std::to_string(g.groups));
      if (weight[1] != g.in_per_group())
        fail(op, "weight " + describe(weight) + " must have input channels / groups = " +
                     std::to_string(g.in_per_group()) + " in dimension 1");
    } else {
      if (weight[0] != g.channels)
        fail(op, "weight " + describe(weight) + " must have the input's " + std::to_string(g.channels) +
                     " channels in dimension 0");
      g.out_channels = weight[1] * g.groups;
    }
    kernel.assign(weight.begin() + 2, weight.end());
    if (inputs.size() == 3 && inputs[2] != Shape{g.out_channels})
      fail(op, "bias " + describe(inputs[2]) + " must be [" + std::to_string(g.out_channels) + "]");
  } else {
    if (op.groups != 1) fail(op, "pools take no groups");
    g.out_channels = g.channels;
    kernel = per_dimension(op, "kernel", op.kernel, dims, {});
    if (kernel.empty()) fail(op, "a pool needs a kernel");
  }
  const std::vector<std::int64_t> stride =
      per_dimension(op, "stride", op.stride, dims, is_pool(op.kind) ? kernel : std::vector<std::int64_t>(dims, 1));
  const std::vector<std::int64_t> padding =
      per_dimension(op, "padding", op.padding, dims, std::vector<std::int64_t>(dims, 0));
  const std::vector<std::int64_t> dilation =
      per_dimension(op, "dilation", op.dilation, dims, std::vector<std::int64_t>(dims, 1));
  const std::vector<std::int64_t> output_padding =
      per_dimension(op, "output_padding", op.output_padding, dims, std::vector<std::int64_t>(dims, 0));
  if (op.kind != OpKind::conv_transpose && !op.output_padding.empty())
    fail(op, "only a transposed convolution takes output_padding");
  if (op.kind == OpKind::avg_pool && !op.dilation.empty()) fail(op, "avg_pool takes no dilation (as PyTorch's)");
  for (std::size_t d = 0; d < dims; ++d) {
    Window w;
    w.in = x[2 + d];
    w.kernel = kernel[d];
    w.stride = stride[d];
    w.padding = padding[d];
    w.dilation = dilation[d];
    w.transposed = op.kind == OpKind::conv_transpose;
    const std::string which = " of spatial dimension " + std::to_string(d);
    if (w.kernel < 1 || w.stride < 1 || w.dilation < 1 || w.padding < 0 || output_padding[d] < 0)
      fail(op, "kernel, stride and dilation must be positive and padding not negative" + which);
    if (is_pool(op.kind) && 2 * w.padding > w.kernel) fail(op, "padding must be at most half the kernel" + which);
    const std::int64_t span = w.dilation * (w.kernel - 1) + 1;
    if (w.transposed) {
      if (output_padding[d] >= std::max(w.stride, w.dilation))
        fail(op, "output_padding must be smaller than stride or dilation" + which);
      w.out = (w.in - 1) * w.stride - 2 * w.padding + span + output_padding[d];
    } else {
      if (w.in + 2 * w.padding < span)
        fail(op, "the kernel spans " + std::to_string(span) + ", more than the padded input's " +
                     std::to_string(w.in + 2 * w.padding) + which);
      w.out = (w.in + 2 * w.padding - span) / w.stride + 1;
    }
    if (w.out < 1) fail(op, "the output would be " + std::to_string(w.out) + " long" + which);
    g.windows.push_back(w);
  }
  return g;
}


bool is_window_op(OpKind kind) { return is_convolution(kind) || is_pool(kind); }

Shape window_output_shape(const Op& op, const std::vector<Shape>& inputs) {
  const Geometry g = geometry_of(op, inputs);
  Shape shape{g.batch, g.out_channels};
  for (const Window& w : g.windows) shape.push_back(w.out);
  return shape;
}

std::vector<Box> window_input_boxes(const Op& op, const std::vector<Shape>& inputs, const Box& out) {
  const Geometry g = geometry_of(op, inputs);
  Box x{Shape(inputs[0].size()), Shape(inputs[0].size())};
  x.lo[0] = out.lo[0];
  x.hi[0] = out.hi[0];
  if (is_convolution(op.kind)) {  // the input channels of the groups the output channels are in
    x.lo[1] = out.lo[1] / g.out_per_group() * g.in_per_group();
    x.hi[1] = ((out.hi[1] - 1) / g.out_per_group() + 1) * g.in_per_group();
  } else {
    x.lo[1] = out.lo[1];
    x.hi[1] = out.hi[1];
  }
  for (std::size_t d = 0; d < g.windows.size(); ++d) {
    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -1;
    for (std::int64_t o = out.lo[2 + d]; o < out.hi[2 + d]; ++o)
      g.windows[d].for_each_tap(o, [&](std::int64_t, std::int64_t i) {
        lo = std::min(lo, i);
        hi = std::max(hi, i);
      });
    x.lo[2 + d] = hi < 0 ? 0 : lo;  // no tap at all: an empty range, nothing is read
    x.hi[2 + d] = hi < 0 ? 0 : hi + 1;
  }
  std::vector<Box> boxes{x};
  for (std::size_t i = 1; i < inputs.size(); ++i) boxes.push_back(Box::whole(inputs[i]));  // weight, bias
  return boxes;
}

void window_evaluate(const Op& op, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
                     Region& out) {
  const Geometry g = geometry_of(op, shapes);
  const Region& x = *inputs[0];
  const Region* weight = is_convolution(op.kind) ? inputs[1] : nullptr;
  const Region* bias = inputs.size() == 3 ? inputs[2] : nullptr;
  const std::size_t dims = g.windows.size();
  // Per spatial dimension and output coordinate of the box: the taps as
  // offsets into the input region and into the weight, which add up over
  // the dimensions.
  struct Tap {
    std::int64_t x_offset, weight_offset;
  };
  std::vector<std::vector<std::vector<Tap>>> taps(dims);
  for (std::size_t d = 0; d < dims; ++d)
    for (std::int64_t o = out.box.lo[2 + d]; o < out.box.hi[2 + d]; ++o) {
      std::vector<Tap> list;
      g.windows[d].for_each_tap(o, [&](std::int64_t k, std::int64_t i) {
        list.push_back({(i - x.box.lo[2 + d]) * x.strides[2 + d], weight ? k * weight->strides[2 + d] : 0});
      });
      taps[d].push_back(std::move(list));
    }
  double divisor = 1;
  for (const Window& w : g.windows) divisor *= static_cast<double>(w.kernel);

  for_each_element(out.box, [&](std::int64_t flat, const std::int64_t* index) {
    // The window of this element, multiplied out in kernel order (the first
    // spatial dimension slowest); channels outermost. One fixed order per
    // element, whatever the box or the thread count.
    thread_local std::vector<Tap> window, next;
    window.assign(1, Tap{0, 0});
    for (std::size_t d = 0; d < dims; ++d) {
      next.clear();
      for (const Tap& a : window)
        for (const Tap& b : taps[d][static_cast<std::size_t>(index[2 + d] - out.box.lo[2 + d])])
          next.push_back({a.x_offset + b.x_offset, a.weight_offset + b.weight_offset});
      window.swap(next);
    }
    const std::int64_t n = index[0], c = index[1];
    double value;
    if (weight) {
      const std::int64_t group = c / g.out_per_group();
      double sum = 0;
      for (std::int64_t ci = group * g.in_per_group(); ci < (group + 1) * g.in_per_group(); ++ci) {
        const double* x_plane = x.data.data() + (n - x.box.lo[0]) * x.strides[0] + (ci - x.box.lo[1]) * x.strides[1];
        const double* w_plane =
            weight->data.data() + (op.kind == OpKind::conv
                                       ? c * weight->strides[0] + (ci - group * g.in_per_group()) * weight->strides[1]
                                       : ci * weight->strides[0] + (c % g.out_per_group()) * weight->strides[1]);
        for (const Tap& t : window) sum += x_plane[t.x_offset] * w_plane[t.weight_offset];
      }
      value = bias ? sum + bias->data[static_cast<std::size_t>(c)] : sum;
    } else {
      const double* x_plane = x.data.data() + (n - x.box.lo[0]) * x.strides[0] + (c - x.box.lo[1]) * x.strides[1];
      if (op.kind == OpKind::max_pool) {
        value = -std::numeric_limits<double>::infinity();
        for (const Tap& t : window) value = std::max(value, x_plane[t.x_offset]);
      } else {  // count_include_pad: the padded taps count in the divisor
        double sum = 0;
        for (const Tap& t : window) sum += x_plane[t.x_offset];
        value = sum / (op.count_include_pad ? divisor : static_cast<double>(window.size()));
      }
    }
    out.data[static_cast<std::size_t>(flat)] = value;
  });
}

double window_flops(const Op& op, const std::vector<Shape>& inputs) {
  const Geometry g = geometry_of(op, inputs);
  double taps = 1;  // per (output element), summed over the spatial positions
  for (const Window& w : g.windows) {
    double sum = 0;
    if (op.kind == OpKind::conv_transpose) {
      for (std::int64_t o = 0; o < w.out; ++o) w.for_each_tap(o, [&](std::int64_t, std::int64_t) { sum += 1; });
    } else {
      sum = static_cast<double>(w.out) * static_cast<double>(w.kernel);
    }
    taps *= sum;
  }
  const double planes = static_cast<double>(g.batch) * static_cast<double>(g.out_channels);
  if (is_convolution(op.kind)) return 2 * planes * static_cast<double>(g.in_per_group()) * taps;
  return planes * taps;
}

}  // namespace

const OpFamily kWindowOps{is_window_op, window_output_shape, window_input_boxes, window_evaluate, window_flops};

}  // namespace kg::ops::detail
