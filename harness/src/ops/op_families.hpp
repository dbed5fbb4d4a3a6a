#pragma once
// The op families of ops.cpp's dispatch: windowed ops (convolutions and
// pools, window_ops.cpp) and the rest (element-wise, reductions, matmul,
// dense_ops.cpp). Each family gives the four answers of kernelgate/detail/ops.hpp.
#include <functional>
#include <string>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/ops.hpp"

namespace kg::ops::detail {

[[noreturn]] inline void fail(const Op& op, const std::string& what) {
  throw Error(std::string(to_string(op.kind)) + ": " + what);
}

std::string describe(const Shape& shape);  // "[2, 3, 4]"

// The absolute index of element `flat` (row-major) of a box.
void unravel(const Box& box, std::int64_t flat, std::int64_t* index);

// body(flat, index) for every element of the box, in parallel chunks.
void for_each_element(const Box& box, const std::function<void(std::int64_t, const std::int64_t*)>& body);

bool is_window_op(OpKind kind);
Shape window_output_shape(const Op& op, const std::vector<Shape>& inputs);
std::vector<Box> window_input_boxes(const Op& op, const std::vector<Shape>& inputs, const Box& out);
void window_evaluate(const Op& op, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
                     Region& out);
double window_flops(const Op& op, const std::vector<Shape>& inputs);

Shape dense_output_shape(const Op& op, const std::vector<Shape>& inputs);
std::vector<Box> dense_input_boxes(const Op& op, const std::vector<Shape>& inputs, const Box& out);
void dense_evaluate(const Op& op, const std::vector<Shape>& shapes, const std::vector<const Region*>& inputs,
                    Region& out);
double dense_flops(const Op& op, const std::vector<Shape>& inputs);

}  // namespace kg::ops::detail
