#pragma once
// NumPy .npy files (format version 1.0, little-endian, C order):
// `kernelgate reference --dump` writes them (float64 outputs, inputs in
// their dtype), the golden tests read the committed fixtures (float32 and
// float64). numpy.load and torch read them directly.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kernelgate/dtype.hpp"

namespace kg {

struct NpyArray {
  std::string descr;  // "<f4" or "<f8"
  std::vector<std::int64_t> shape;
  std::vector<float> f32;   // when descr is "<f4"
  std::vector<double> f64;  // when descr is "<f8"
  std::int64_t numel() const;
};

// Throw kg::Error naming the file on any failure.
void write_npy(const std::filesystem::path& file, const std::vector<std::int64_t>& shape,
               const float* data);
void write_npy(const std::filesystem::path& file, const std::vector<std::int64_t>& shape,
               const double* data);
// Elements laid out as the dtype lays them (tensor_bytes of reference.hpp):
// "<f4", "<i8" or "|b1".
void write_npy(const std::filesystem::path& file, const std::vector<std::int64_t>& shape, DType dtype,
               const void* data);
NpyArray read_npy(const std::filesystem::path& file);

}  // namespace kg
