// kernelgate/grid_stride.hpp: the grid-stride loop gives every index of the
// range to one thread of any grid, unravel takes a flat row-major index
// apart, grid_stride_blocks sizes the grid, and launch_grid_stride launches
// it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include "kernelgate/cuda.hpp"
#include "kernelgate/grid_stride.hpp"
#include "kernelgate/interpret/launch.hpp"

namespace kg::test {
namespace {

__global__ void count_visits(std::int64_t total, int* visits) {
  for (const std::int64_t index : kg::grid_stride(total)) visits[index] += 1;
}

TEST(GridStride, EveryIndexOnceWhateverTheGrid) {
  using Grid = std::tuple<std::int64_t, unsigned, unsigned>;  // total, blocks, threads
  for (const auto& [total, blocks, threads] : std::vector<Grid>{{1000, 3, 32}, {1000, 40, 32}, {5, 1, 64}, {0, 2, 32}}) {
    std::vector<int> visits(static_cast<std::size_t>(total) + 1, 0);
    kg::launch(count_visits, dim3(blocks), dim3(threads), 0, nullptr, total, visits.data());
    for (std::int64_t i = 0; i < total; ++i) EXPECT_EQ(visits[i], 1) << "index " << i << " of " << total;
    EXPECT_EQ(visits[total], 0) << "past the end of " << total;
  }
}

TEST(GridStride, UnravelIsRowMajorOutermostFirst) {
  const auto [n, c, h, w] = kg::unravel(std::int64_t{2 * 60 + 1 * 20 + 3 * 5 + 4}, 3, 3, 4, 5);
  EXPECT_EQ(n, 2);
  EXPECT_EQ(c, 1);
  EXPECT_EQ(h, 3);
  EXPECT_EQ(w, 4);
  // In the index's own type, and the outermost extent bounds nothing.
  const auto [row, column] = kg::unravel(17, 1, 5);
  static_assert(std::is_same_v<decltype(row), const int>);
  EXPECT_EQ(row, 3);
  EXPECT_EQ(column, 2);
  for (std::int64_t index = 0; index < 2 * 3 * 4; ++index) {
    const auto [a, b, d] = kg::unravel(index, 2, 3, 4);
    EXPECT_EQ((a * 3 + b) * 4 + d, index);
  }
}

TEST(GridStride, BlocksGiveEveryElementAThreadUpToTheCap) {
  EXPECT_EQ(kg::grid_stride_blocks(1000, 256), 4u);
  EXPECT_EQ(kg::grid_stride_blocks(1024, 256), 4u);
  EXPECT_EQ(kg::grid_stride_blocks(0, 256), 1u);
  EXPECT_EQ(kg::grid_stride_blocks(std::int64_t{1} << 40, 128), 1u << 20);
}

TEST(GridStride, LaunchGridStrideLaunchesTheGridThatCoversTheRangeOnTheGivenStream) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  kg::interp::take_launch_records();  // what earlier tests left
  const std::int64_t total = 1000;
  std::vector<int> visits(total, 0);
  kg::launch_grid_stride(count_visits, total, 128, stream, total, visits.data());
  EXPECT_EQ(std::count(visits.begin(), visits.end(), 1), total);
  const auto records = kg::interp::take_launch_records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].stream, stream);
  EXPECT_EQ(records[0].grid.x, 8u);
  EXPECT_EQ(records[0].block.x, 128u);
  EXPECT_EQ(records[0].dynamic_smem_bytes, 0u);
  cudaStreamDestroy(stream);
}

}  // namespace
}  // namespace kg::test
