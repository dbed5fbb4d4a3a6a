#pragma once
// The element types of a workload's tensors (docs/suite-format.md, "Dtypes"):
// what a candidate's buffers hold. The harness's float64 reference computes
// every op in float64 whatever its operands' dtype; the dtype says how a
// tensor is laid out in memory and how an output is compared.
#include <cstddef>
#include <string_view>

#include "kernelgate/detail/enum_names.hpp"

namespace kg {

enum class DType {
  float32,  // IEEE binary32
  int64,    // two's complement, 8 bytes: class indices, argmax positions
  boolean,  // one byte, 0 or 1 (C++ bool, PyTorch's torch.bool)
};

// As a suite file and PyTorch write them: "float32", "int64", "bool".
inline constexpr EnumNames<DType, 3> kDTypeNames{
    "dtype", {{{DType::float32, "float32"}, {DType::int64, "int64"}, {DType::boolean, "bool"}}}};

constexpr std::string_view to_string(DType dtype) { return kDTypeNames.name(dtype); }

constexpr std::size_t element_bytes(DType dtype) {
  switch (dtype) {
    case DType::float32: return 4;
    case DType::int64: return 8;
    case DType::boolean: return 1;
  }
  return 0;
}

}  // namespace kg
