#include <unistd.h>

#include <gtest/gtest.h>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/npy.hpp"
#include "suite_test_util.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

TEST(Npy, RoundTripsFloat32AndFloat64) {
  test::TempDir dir;
  std::vector<float> f32 = {1.5f, -2.25f, 3.0f, 0.1f, 5, 6};
  write_npy(dir.path() / "a.npy", {2, 3}, f32.data());
  NpyArray a = read_npy(dir.path() / "a.npy");
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(a.f32, f32);
  std::vector<double> f64 = {0.1, 0.2, 0.3};
  write_npy(dir.path() / "b.npy", {3}, f64.data());
  NpyArray b = read_npy(dir.path() / "b.npy");
  EXPECT_EQ(b.descr, "<f8");
  EXPECT_EQ(b.shape, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(b.f64, f64);
  // The header is padded so that the data starts at a multiple of 64 bytes.
  EXPECT_EQ(std::filesystem::file_size(dir.path() / "b.npy") % 64, 3 * sizeof(double) % 64);
}

TEST(Npy, RejectsWhatItCannotRead) {
  test::TempDir dir;
  auto file = test::write_text(dir.path() / "bad.npy", "not numpy");
  EXPECT_EQ(test::error_of([&] { read_npy(file); }), file.string() + ": not a .npy file");
}

}  // namespace
}  // namespace kg
