#pragma once
// NumPy .npy files (format version 1.0, little-endian float32 / float64, C
// order): `kernelgate reference --dump` writes them, the golden tests read the
// committed fixtures. numpy.load and torch read them directly.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

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
NpyArray read_npy(const std::filesystem::path& file);

}  // namespace kg
