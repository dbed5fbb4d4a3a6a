// The cuda device's own kernels (harness/src/device/cuda/device_memory.cu):
// the output poison, the hash that tells whether an input changed, the scan
// that finds unwritten and non-finite elements after every checked and timed
// run, and the gather of the values the parent compares. Every verdict on a
// GPU rests on them, so they are tested where they can run: in interpret mode
// in the cpu build, and on the GPU in the gpu build (label `gpu`).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "device_memory.hpp"
#include "kernelgate/detail/device.hpp"
#include "support/device_vector.hpp"

namespace kg::test {
namespace {

constexpr std::uint32_t kPoison = kPoisonWord;  // the output poison of every run

// The kernels' largest grid is 4096 blocks of 256 threads: past it, some
// threads take a second step of their grid-stride loop.
constexpr std::size_t kOneGrid = 4096 * 256;
constexpr std::size_t kBeyondOneGrid = kOneGrid + 8192;

std::uint32_t bits(float value) { return std::bit_cast<std::uint32_t>(value); }

TEST(DeviceMemoryKernels, FillRepeatsTheWordAndGivesTheTailItsLeadingBytes) {
  KG_REQUIRE_GPU();
  // 1001 words and 3 bytes of region, then bytes the fill must not touch.
  const std::size_t region = 4 * 1001 + 3;
  DeviceVector<unsigned char> buffer(std::vector<unsigned char>(region + 16, 0x11));
  cuda_detail::fill_words(buffer.get(), region, kPoison, nullptr);
  const std::vector<unsigned char> got = buffer.read();
  unsigned char word[4];
  std::memcpy(word, &kPoison, 4);
  for (std::size_t i = 0; i < region; ++i) ASSERT_EQ(got[i], word[i % 4]) << "byte " << i;
  for (std::size_t i = region; i < got.size(); ++i) ASSERT_EQ(got[i], 0x11) << "byte " << i << " past the region";
}

TEST(DeviceMemoryKernels, ScanCountsPoisonAndNonFiniteElementsWithTheFirstOfEach) {
  KG_REQUIRE_GPU();
  std::vector<float> values(kBeyondOneGrid, 1.0f);
  // Finite edge cases that must not count.
  values[10] = -0.0f;
  values[11] = std::numeric_limits<float>::max();
  values[12] = std::numeric_limits<float>::denorm_min();
  values[13] = -std::numeric_limits<float>::max();
  // Poison met by one thread on both of its steps (300, then kOneGrid + 300),
  // and at the very end.
  const std::vector<std::size_t> poisoned = {300, kOneGrid + 300, kBeyondOneGrid - 1};
  for (std::size_t i : poisoned) values[i] = std::bit_cast<float>(kPoison);
  // Other NaNs (the poison's sign flipped, another payload) and infinities,
  // two of them met by one thread.
  values[kOneGrid + 2] = std::bit_cast<float>(kPoison | 0x80000000u);
  values[5000] = -std::numeric_limits<float>::infinity();
  values[kOneGrid + 5000] = std::numeric_limits<float>::infinity();
  values[4999 * 100] = std::numeric_limits<float>::quiet_NaN();
  ASSERT_NE(bits(values[4999 * 100]), kPoison);

  DeviceVector<float> data(values);
  DeviceVector<unsigned long long> scratch(std::vector<unsigned long long>(4, 12345));
  const cuda_detail::FloatScanCounts counts =
      cuda_detail::scan_floats(data.get(), values.size(), kPoison, scratch.get(), nullptr);
  EXPECT_EQ(counts.poisoned, 3);
  EXPECT_EQ(counts.first_poisoned, 300);
  EXPECT_EQ(counts.non_finite, 4);
  EXPECT_EQ(counts.first_non_finite, 5000);
}

TEST(DeviceMemoryKernels, ScanOfFiniteValuesFindsNothingAndStartsFromItsOwnScratch) {
  KG_REQUIRE_GPU();
  DeviceVector<float> data(std::vector<float>(1000, 2.5f));
  // Scratch left over from an earlier scan must not leak into this one.
  DeviceVector<unsigned long long> scratch(std::vector<unsigned long long>{7, 3, 9, 1});
  const cuda_detail::FloatScanCounts counts = cuda_detail::scan_floats(data.get(), 1000, kPoison, scratch.get(), nullptr);
  EXPECT_EQ(counts.poisoned, 0);
  EXPECT_EQ(counts.first_poisoned, -1);
  EXPECT_EQ(counts.non_finite, 0);
  EXPECT_EQ(counts.first_non_finite, -1);
}

// The hash decides `inputs_unchanged`: it must see one changed bit anywhere,
// the tail bytes included, and a swap of two equal-sized pieces.
TEST(DeviceMemoryKernels, HashSeesEveryByteAndTheOrderOfTheChunks) {
  KG_REQUIRE_GPU();
  std::mt19937 random(7);
  std::vector<unsigned char> bytes(8 * 3000 + 5);
  for (auto& byte : bytes) byte = static_cast<unsigned char>(random());
  DeviceVector<std::uint64_t> scratch(std::vector<std::uint64_t>(1, 0));
  auto hash_of = [&](const std::vector<unsigned char>& host) {
    DeviceVector<unsigned char> data(host);
    return cuda_detail::hash_bytes(data.get(), host.size(), scratch.get(), nullptr);
  };
  const std::uint64_t original = hash_of(bytes);
  EXPECT_EQ(hash_of(bytes), original) << "the same bytes hash the same, at another address too";
  for (std::size_t position : {std::size_t{0}, std::size_t{8 * 1234 + 3}, bytes.size() - 6, bytes.size() - 1}) {
    std::vector<unsigned char> changed = bytes;
    changed[position] ^= 0x10;
    EXPECT_NE(hash_of(changed), original) << "one bit flipped at byte " << position;
  }
  std::vector<unsigned char> swapped = bytes;
  std::swap_ranges(swapped.begin() + 8 * 10, swapped.begin() + 8 * 11, swapped.begin() + 8 * 2000);
  ASSERT_NE(swapped, bytes);
  EXPECT_NE(hash_of(swapped), original) << "two 8-byte chunks swapped";
  std::vector<unsigned char> shorter(bytes.begin(), bytes.end() - 1);
  EXPECT_NE(hash_of(shorter), original) << "one byte fewer";
}

TEST(DeviceMemoryKernels, GatherReadsTheIndexedValues) {
  KG_REQUIRE_GPU();
  std::vector<float> values(kBeyondOneGrid);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 9973) * 0.5f;
  const std::vector<std::int64_t> indices = {0, static_cast<std::int64_t>(values.size()) - 1, kOneGrid + 3, 77, 77};
  DeviceVector<float> data(values);
  DeviceVector<std::int64_t> device_indices(indices);
  DeviceVector<float> gathered(std::vector<float>(indices.size(), -1.0f));
  cuda_detail::gather_floats(data.get(), device_indices.get(), indices.size(), gathered.get(), nullptr);
  const std::vector<float> got = gathered.read();
  for (std::size_t i = 0; i < indices.size(); ++i)
    EXPECT_EQ(got[i], values[static_cast<std::size_t>(indices[i])]) << "index " << indices[i];
}

}  // namespace
}  // namespace kg::test
