// Warp shuffles and votes against hand-computed results.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/test_kernels.hpp"
#include "test_support.hpp"

namespace kg::test {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

std::vector<int> run_shuffle(ShuffleKind kind, unsigned mask, int operand, int width) {
  std::vector<int> out(32, -1);
  shuffle(kind, mask, operand, width, out.data(), nullptr);
  return out;
}

// Lane l holds 100 + l: the expected results below list, per lane, 100 + the
// lane read.
std::vector<int> lanes_read(std::initializer_list<int> lanes) {
  std::vector<int> values;
  for (int lane : lanes) values.push_back(lane < 0 ? -1 : 100 + lane);
  return values;
}

TEST(InterpretWarp, ShuffleIndexWithWidthsAndOutOfRangeSources) {
  for (const char* order : kAllOrders) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    EXPECT_EQ(run_shuffle(ShuffleKind::idx, ~0u, 5, 32), std::vector<int>(32, 105)) << order;
    const auto width8 = lanes_read({3,  3,  3,  3,  3,  3,  3,  3,  11, 11, 11, 11, 11, 11, 11, 11,
                                    19, 19, 19, 19, 19, 19, 19, 19, 27, 27, 27, 27, 27, 27, 27, 27});
    EXPECT_EQ(run_shuffle(ShuffleKind::idx, ~0u, 3, 8), width8) << order;
    // A source lane beyond the width wraps within the segment (srcLane % width).
    EXPECT_EQ(run_shuffle(ShuffleKind::idx, ~0u, 11, 8), width8) << order;
    // A negative source lane: only its 5 low bits count, so -1 is lane 31.
    EXPECT_EQ(run_shuffle(ShuffleKind::idx, ~0u, -1, 32), std::vector<int>(32, 131)) << order;
  }
}

TEST(InterpretWarp, ShuffleUpKeepsTheLanesBelowDelta) {
  EXPECT_EQ(run_shuffle(ShuffleKind::up, ~0u, 3, 8),
            lanes_read({0,  1,  2,  0,  1,  2,  3,  4,  8,  9,  10, 8,  9,  10, 11, 12,
                        16, 17, 18, 16, 17, 18, 19, 20, 24, 25, 26, 24, 25, 26, 27, 28}));
  EXPECT_EQ(run_shuffle(ShuffleKind::up, ~0u, 1, 32),
            lanes_read({0,  0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
                        15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30}));
}

TEST(InterpretWarp, ShuffleDownKeepsTheLanesAboveTheSegmentEnd) {
  EXPECT_EQ(run_shuffle(ShuffleKind::down, ~0u, 5, 16),
            lanes_read({5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 11, 12, 13, 14, 15,
                        21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 27, 28, 29, 30, 31}));
  // Only lanes 0-15 take part: lanes 12-15 would read past the segment and keep
  // their own value; lanes 16-31 return without writing.
  EXPECT_EQ(run_shuffle(ShuffleKind::down, 0x0000ffffu, 4, 16),
            lanes_read({4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 12, 13, 14, 15,
                        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}));
}

TEST(InterpretWarp, ShuffleXorIncludingMasksBeyondTheWidth) {
  EXPECT_EQ(run_shuffle(ShuffleKind::bfly, ~0u, 1, 32),
            lanes_read({1,  0,  3,  2,  5,  4,  7,  6,  9,  8,  11, 10, 13, 12, 15, 14,
                        17, 16, 19, 18, 21, 20, 23, 22, 25, 24, 27, 26, 29, 28, 31, 30}));
  // shfl.sync.bfly with width 8 and laneMask 16: a lane whose partner is above
  // its segment keeps its value; lanes 16-31 read 16 lanes down (PTX ISA).
  EXPECT_EQ(run_shuffle(ShuffleKind::bfly, ~0u, 16, 8),
            lanes_read({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
  std::vector<double> out(32);
  shuffle_double_xor(3, out.data(), nullptr);
  for (int lane = 0; lane < 32; ++lane) EXPECT_EQ(out[lane], 0.5 + (lane ^ 3) + 1099511627776.0);
}

TEST(InterpretWarp, ShuffleErrors) {
  std::vector<int> out(32);
  EXPECT_THAT(error_of([&] { shuffle(ShuffleKind::idx, 0x0000ffffu, 20, 32, out.data(), nullptr); }),
              HasSubstr("lane 0 reads lane 20, which is not in the mask"));
  EXPECT_THAT(error_of([&] { shuffle(ShuffleKind::idx, ~0u, 0, 12, out.data(), nullptr); }),
              HasSubstr("width 12 is not a power of two"));
  for (const char* order : kAllOrders) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    const std::string message = error_of([&] { shuffle_after_lane_exit(7, out.data(), nullptr); });
    EXPECT_THAT(message, HasSubstr(marked_line("warp_kernels.cu", "exited-lane-shuffle"))) << message;
    EXPECT_THAT(message, HasSubstr("lane 7")) << message;
    EXPECT_THAT(message, HasSubstr("exited")) << message;
  }
}

TEST(InterpretWarp, VotesOverFullAndPartialMasks) {
  const auto run = [](unsigned mask, unsigned predicates) {
    std::vector<unsigned> out(96, 0xdeadbeefu);
    vote(mask, predicates, out.data(), nullptr);
    return out;
  };
  auto out = run(~0u, 0x80000001u);
  for (int lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[3 * lane], 0x80000001u);
    EXPECT_EQ(out[3 * lane + 1], 1u);
    EXPECT_EQ(out[3 * lane + 2], 0u);
  }
  out = run(~0u, ~0u);
  EXPECT_EQ(out[3 * 9 + 2], 1u);
  out = run(~0u, 0u);
  EXPECT_EQ(out[3 * 9 + 0], 0u);
  EXPECT_EQ(out[3 * 9 + 1], 0u);
  // Lanes outside the mask neither vote nor receive.
  out = run(0x00ff00ffu, 0xffff0001u);
  EXPECT_EQ(out[3 * 0], 0x00ff0001u);
  EXPECT_EQ(out[3 * 16], 0x00ff0001u);
  EXPECT_EQ(out[3 * 16 + 2], 0u);
  EXPECT_EQ(out[3 * 8], 0xdeadbeefu);
  out = run(0x0000ff00u, 0x0000ff00u);
  EXPECT_EQ(out[3 * 8 + 2], 1u);
  EXPECT_EQ(out[3 * 15 + 0], 0x0000ff00u);
}

TEST(InterpretWarp, SyncwarpOrdersSharedMemoryWithinTheWarp) {
  for (const char* order : kAllOrders) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    std::vector<int> out(32, -1);
    syncwarp_exchange(out.data(), nullptr);
    for (int lane = 0; lane < 32; ++lane) EXPECT_EQ(out[lane], (31 - lane) * 3) << order;
  }
}

}  // namespace
}  // namespace kg::test
