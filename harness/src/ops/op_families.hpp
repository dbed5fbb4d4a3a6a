#pragma once
// The op families of ops.cpp's dispatch: windowed ops (convolutions and
// pools, window_ops.cpp), normalisations (norm_ops.cpp), data movement
// (layout_ops.cpp), attention (attention_ops.cpp) and the rest
// (element-wise, reductions, softmax, scans, matmul and linear,
// dense_ops.cpp). Each family gives the four answers of
// kernelgate/detail/ops.hpp.
#include <functional>
#include <string>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/ops.hpp"

namespace kg::ops::detail {

[[noreturn]] inline void fail(const Op& op, const std::string& what) {
  throw Error(std::string(to_string(op.kind)) + ": " + what);
}

// The absolute index of element `flat` (row-major) of a box.
void unravel(const Box& box, std::int64_t flat, std::int64_t* index);

// A dim an op names, in [0, rank): negative counts from the end; outside
// the tensor fails naming it.
std::size_t dim_index(const Op& op, std::int64_t dim, std::size_t rank);

// The one dim an op names (softmax, the scans, concat).
std::size_t one_dim(const Op& op, std::size_t rank);

// The dims an op names (reductions, flip), each once, as a flag per
// dimension; none fails "names no dims to <what>".
std::vector<bool> named_dims(const Op& op, std::size_t rank, const std::string& what);

// body(flat, index) for every element of the box, in parallel chunks.
void for_each_element(const Box& box, const std::function<void(std::int64_t, const std::int64_t*)>& body);

// The four answers of kernelgate/detail/ops.hpp for the kinds of one family.
struct OpFamily {
  bool (*has)(OpKind kind);
  Shape (*output_shape)(const Op& op, const std::vector<Shape>& inputs);
  std::vector<Box> (*input_boxes)(const Op& op, const std::vector<Shape>& inputs, const Box& out);
  void (*evaluate)(const Op& op, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
                   Region& out);
  double (*flops)(const Op& op, const std::vector<Shape>& inputs);
};

extern const OpFamily kWindowOps;     // convolutions and pools, window_ops.cpp
extern const OpFamily kNormOps;       // normalisations, norm_ops.cpp
extern const OpFamily kLayoutOps;     // permute, reshape and concat, layout_ops.cpp
extern const OpFamily kAttentionOps;  // scaled dot-product attention, attention_ops.cpp
extern const OpFamily kDenseOps;      // every other kind, dense_ops.cpp

}  // namespace kg::ops::detail
