#pragma once
// The element types of a workload's tensors (docs/suite-format.md, "Dtypes"):
// what a candidate's buffers hold. The harness's float64 reference computes
// every op in float64 whatever its operands' dtype; the dtype says how a
// tensor is laid out in memory and how an output is compared.
#include <array>
#include <cstddef>
#include <string_view>

namespace kg {

enum class DType {
  float32,  // IEEE binary32
  int64,    // two's complement, 8 bytes: class indices, argmax positions
  boolean,  // one byte, 0 or 1 (C++ bool, PyTorch's torch.bool)
};

inline constexpr std::array<DType, 3> kDTypes{DType::float32, DType::int64, DType::boolean};

// As a suite file and PyTorch write it: "float32", "int64", "bool".
constexpr std::string_view to_string(DType dtype) {
  switch (dtype) {
    case DType::float32: return "float32";
    case DType::int64: return "int64";
    case DType::boolean: return "bool";
  }
  return "unknown";
}

constexpr std::size_t element_bytes(DType dtype) {
  switch (dtype) {
    case DType::float32: return 4;
    case DType::int64: return 8;
    case DType::boolean: return 1;
  }
  return 0;
}

}  // namespace kg
