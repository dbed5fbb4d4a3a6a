#pragma once
// The float64 op library behind every workload's reference (docs/ops.md).
//
// A suite's forward pass is a list of these ops over named tensors. Each op
// knows four things: the shape of its output, the part of each input that a
// part of its output reads (input_boxes), how to compute a part of its output
// from those parts (evaluate), and its FLOPs. A part is a box, a half-open
// range per dimension, so one code path serves both the whole output (the box
// of the whole tensor) and one sampled element of a full-size output (a box
// of one element, which reads only the inputs it depends on).
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kg::ops {

using Shape = std::vector<std::int64_t>;
// "[2, 3, 4]", as error messages and `kernelgate describe` write a shape.
std::string describe(const Shape& shape);

// Half-open ranges [lo[d], hi[d]) of the dimensions of a tensor.
struct Box {
  Shape lo, hi;
  static Box whole(const Shape& shape);
  static Box element(const Shape& shape, std::int64_t flat_index);
  std::int64_t numel() const;
  bool empty() const { return numel() == 0; }
  // The smallest box holding both (an empty box adds nothing).
  Box merged(const Box& other) const;
  bool operator==(const Box&) const = default;
};

// The float64 values of one box of a tensor, row-major over the box.
struct Region {
  Box box;
  std::vector<double> data;
  Shape strides;  // of the box's extents

  explicit Region(Box box_of_values = {});
  // The offset in data of an absolute index (one entry per dimension).
  std::int64_t offset(const std::int64_t* index) const {
    std::int64_t at = 0;
    for (std::size_t d = 0; d < strides.size(); ++d) at += (index[d] - box.lo[d]) * strides[d];
    return at;
  }
  double at(const std::int64_t* index) const { return data[static_cast<std::size_t>(offset(index))]; }
};

enum class OpKind {
  conv,            // x [N, C, s...], weight [C_out, C / groups, k...], optional bias [C_out]
  conv_transpose,  // x [N, C, s...], weight [C, C_out / groups, k...], optional bias [C_out]
  max_pool,        // x [N, C, s...]; padding counts as -infinity
  avg_pool,        // x [N, C, s...]; count_include_pad as PyTorch's default
  sum,             // over dims, keepdim or not
  mean,
  max,
  min,
  prod,
  logsumexp,       // log of the sum of exp, shifted by the maximum
  argmax,          // along one dim: the position of the first maximum (an int64 tensor); NaN is the maximum
  argmin,          // the position of the first minimum; NaN counts as it, as in PyTorch
  softmax,         // along one dim
  log_softmax,
  cumsum,          // along one dim; reverse (from the end), exclusive (each element's own term left out)
  cumprod,
  layer_norm,      // over the trailing normalized_shape; weight and bias of that shape, optional
  batch_norm,      // training mode: each channel over batch and space; weight and bias [C], optional
  instance_norm,   // each (image, channel) over space; weight and bias [C], optional
  group_norm,      // each (image, group of channels) over the group and space; weight and bias [C], optional
  add,             // two tensors, broadcast as NumPy and PyTorch do
  subtract,
  multiply,
  divide,
  smooth_l1,       // a and b: |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta, d = a - b (the loss before its mean)
  relu,
  gelu,            // the exact form, 0.5 x (1 + erf(x / sqrt 2)): PyTorch's default
  gelu_tanh,       // the tanh form (approximate="tanh"; MinGPT's NewGELU)
  sigmoid,
  tanh,
  leaky_relu,      // negative_slope
  elu,             // alpha
  selu,
  hardtanh,        // min_val, max_val
  hardsigmoid,
  hardswish,
  softplus,        // beta, threshold
  softsign,
  silu,
  mish,
  exp,
  log,
  sqrt,
  rsqrt,
  abs,
  pow,             // to a constant exponent
  clamp,           // to [low, high], either bound alone
  scale,           // times a constant
  shift,           // plus a constant
  matmul,          // a [..., M, K] @ b [..., K, N] (or b [K, N]): matmul and batched matmul
  linear,          // x [..., K] @ weight [N, K] transposed, + optional bias [N]: nn.Linear
  attention,       // q [..., L, E], k [..., S, E], v [..., S, Ev]: softmax(q k^T / sqrt(E)) v
  permute,         // dims: the input dimension each output dimension takes
  reshape,         // to shape (one extent may be -1), row-major order kept: reshape, view, flatten
  concat,          // two or three tensors along dim
  flip,            // reverses the order along dims
  narrow,          // the elements start .. start + length - 1 along dim (a slice x[..., a:b])
  triu,            // of the last two dims: the elements on and above diagonal (0: the main one), the rest 0
  tril,            // the elements on and below diagonal
  diag,            // a vector [n] as the diagonal of an [n, n] matrix
  gather,          // x, index (int64) of x's rank: out[i] = x[i with i[dim] replaced by index[i]]
};

// Every kind with its name, in declaration order.
std::span<const std::pair<OpKind, std::string_view>> op_kinds();
std::string_view to_string(OpKind kind);
// Throws kg::Error naming the known kinds.
OpKind op_kind_from_string(std::string_view name);

struct Op {
  OpKind kind = OpKind::relu;
  // Convolutions and pools, one entry per spatial dimension (the suite layer
  // expands a single value). Empty means the default: stride 1 (pools: the
  // kernel), padding 0, dilation 1, output_padding 0.
  std::vector<std::int64_t> kernel;  // pools only: a convolution's comes from its weight
  std::vector<std::int64_t> stride, padding, dilation, output_padding;
  std::int64_t groups = 1;
  bool count_include_pad = true;  // avg_pool
  std::vector<std::int64_t> normalized_shape;  // layer_norm: the trailing extents it normalises over
  std::int64_t num_groups = 1;                 // group_norm
  std::vector<std::int64_t> shape;             // reshape: the new extents, one of them -1 at most
  std::int64_t start = 0, length = 1;          // narrow
  std::int64_t diagonal = 0;                   // triu, tril: 0 the main diagonal, > 0 above it
  std::int64_t divisor = 1;                    // scale: x * value / divisor (an axis, as a batch mean's)
  std::vector<std::int64_t> dims;  // reductions, softmax (one); negative counts from the end
  bool keepdim = false;
  bool reverse = false, exclusive = false;  // cumsum, cumprod
  // The numbers of scalar_attributes(kind) the suite gives; the others take
  // their defaults (scalar()).
  std::map<std::string, double, std::less<>> scalars;

  // The attribute's value: as given, else its default; throws kg::Error for
  // a name the kind does not take or a required one not given.
  double scalar(std::string_view name) const;
};

// A number an op takes besides its operands and geometry, named as PyTorch
// names it, with PyTorch's default. A NaN default marks it required.
struct ScalarAttribute {
  std::string_view name;
  double default_value;
};

// The scalar attributes of a kind (none for most).
std::span<const ScalarAttribute> scalar_attributes(OpKind kind);

// The number of operands an op takes: {fewest, most}.
std::pair<std::size_t, std::size_t> operand_count(OpKind kind);

// The output's shape; throws kg::Error saying what does not fit (a channel
// count that does not divide, a kernel larger than its padded input...).
Shape output_shape(const Op& op, const std::vector<Shape>& inputs);

// The box of each input that the box `out` of the output reads.
std::vector<Box> input_boxes(const Op& op, const std::vector<Shape>& inputs, const Box& out);

// Computes out.box of the output from regions of the inputs that hold at
// least the boxes input_boxes() named. Parallel over the output elements;
// each element is summed in one fixed order, so the result never depends on
// the number of threads.
void evaluate(const Op& op, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
              Region& out);

// Positions an argmax or argmin output may hold: below 2^24, so that an
// int64 output, compared as float values, is compared exactly.
inline constexpr std::int64_t kMaxPosition = std::int64_t{1} << 24;

// FLOPs of the whole output: 2 per multiply-add of a contraction (a
// convolution counts every kernel tap of every output element, padding
// included, as is usual; a transposed convolution the products that land in
// its output, the only ones a gather computes), one per element read for
// pools and reductions, one per output element for the element-wise ops,
// three per element for softmax and log_softmax (a pass for the maximum, one
// for the sum of exponentials, one to normalise), five per element for the
// normalisations (one for the mean, two for the variance, two to normalise
// and apply the affine weight and bias), 2 L S (E + Ev) + 3 L S per batch
// entry for attention (its two contractions and the softmax between), none
// for permute, reshape, concat, flip, narrow, triu, tril, diag and gather
// (they move or mask data).
double flops(const Op& op, const std::vector<Shape>& inputs);

}  // namespace kg::ops
