// The .npy format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
// A 10-byte preamble (magic, version, header length), a Python-literal header
// dict padded with spaces to a multiple of 64 bytes, then the raw data.
#include "kernelgate/detail/npy.hpp"

#include <bit>
#include <cstring>
#include <fstream>
#include <regex>

#include "kernelgate/error.hpp"

namespace kg {

static_assert(std::endian::native == std::endian::little, "kernelgate assumes a little-endian host");

std::int64_t NpyArray::numel() const {
  std::int64_t n = 1;
  for (std::int64_t extent : shape) n *= extent;
  return n;
}

namespace {

constexpr char kMagic[] = "\x93NUMPY";

void write_array(const std::filesystem::path& file, const std::vector<std::int64_t>& shape,
                 const char* descr, const void* data, std::size_t element_size) {
  std::string shape_text = "(";
  std::int64_t count = 1;
  for (std::int64_t extent : shape) {
    shape_text += std::to_string(extent) + ", ";
    count *= extent;
  }
  if (shape.size() > 1) shape_text.resize(shape_text.size() - 2);  // (2, 3) but (5,)
  else if (shape.size() == 1) shape_text.resize(shape_text.size() - 1);
  shape_text += ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape_text + ", }";
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write " + file.string());
  out.write(kMagic, 6);
  const char version[2] = {1, 0};
  out.write(version, 2);
  std::uint16_t length = static_cast<std::uint16_t>(header.size());
  out.write(reinterpret_cast<const char*>(&length), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(count * element_size));
  if (!out) throw Error("cannot write " + file.string());
}

}  // namespace

void write_npy(const std::filesystem::path& file, const std::vector<std::int64_t>& shape,
               const float* data) {
  write_array(file, shape, "<f4", data, sizeof(float));
}

void write_npy(const std::filesystem::path& file, const std::vector<std::int64_t>& shape,
               const double* data) {
  write_array(file, shape, "<f8", data, sizeof(double));
}

void write_npy(const std::filesystem::path& file, const std::vector<std::int64_t>& shape, DType dtype,
               const void* data) {
  const char* descr = dtype == DType::float32 ? "<f4" : dtype == DType::int64 ? "<i8" : "|b1";
  write_array(file, shape, descr, data, element_bytes(dtype));
}

NpyArray read_npy(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(name + ": cannot read the file");
  char preamble[8];
  if (!in.read(preamble, 8) || std::memcmp(preamble, kMagic, 6) != 0)
    throw Error(name + ": not a .npy file");
  std::uint32_t header_length = 0;
  if (preamble[6] == 1) {
    std::uint16_t length16 = 0;
    in.read(reinterpret_cast<char*>(&length16), 2);
    header_length = length16;
  } else if (preamble[6] == 2 || preamble[6] == 3) {
    in.read(reinterpret_cast<char*>(&header_length), 4);
  } else {
    throw Error(name + ": unsupported .npy version " + std::to_string(int(preamble[6])));
  }
  std::string header(header_length, '\0');
  if (!in.read(header.data(), header_length)) throw Error(name + ": truncated header");

  static const std::regex descr_pattern(R"('descr':\s*'([<>|=]?[a-z][0-9]+)')");
  static const std::regex fortran_pattern(R"('fortran_order':\s*(True|False))");
  static const std::regex shape_pattern(R"('shape':\s*\(([0-9,\s]*)\))");
  std::smatch match;
  NpyArray array;
  if (!std::regex_search(header, match, descr_pattern)) throw Error(name + ": header has no descr");
  array.descr = match[1];
  if (array.descr != "<f4" && array.descr != "<f8")
    throw Error(name + ": unsupported dtype '" + array.descr + "' (supported: <f4, <f8)");
  if (!std::regex_search(header, match, fortran_pattern) || match[1] != "False")
    throw Error(name + ": only C-order arrays are supported");
  if (!std::regex_search(header, match, shape_pattern)) throw Error(name + ": header has no shape");
  std::string dims = match[1];
  static const std::regex number("[0-9]+");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number); it != std::sregex_iterator();
       ++it)
    array.shape.push_back(std::stoll(it->str()));

  std::int64_t count = array.numel();
  auto read_data = [&](auto& values) {
    values.resize(static_cast<std::size_t>(count));
    std::streamsize bytes = static_cast<std::streamsize>(count * sizeof(values[0]));
    if (!in.read(reinterpret_cast<char*>(values.data()), bytes))
      throw Error(name + ": truncated data (expected " + std::to_string(count) + " elements)");
  };
  if (array.descr == "<f4") read_data(array.f32);
  else read_data(array.f64);
  return array;
}

}  // namespace kg
