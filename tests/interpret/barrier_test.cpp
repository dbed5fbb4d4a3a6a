// Barriers, shared memory, thread order, indices, launch limits and records.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/test_kernels.hpp"
#include "test_support.hpp"

namespace kg::test {
namespace {

using ::testing::HasSubstr;

TEST(InterpretBarriers, SharedMemoryReductionIsCorrectUnderEveryOrder) {
  for (const char* order : kAllOrders) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    for (const auto& [x, y] : std::vector<std::pair<int, int>>{{256, 1}, {16, 8}, {32, 1}}) {
      const int blocks = 3, threads = x * y;
      std::vector<float> in(static_cast<std::size_t>(blocks) * threads);
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 7) % 13);
      std::vector<float> out(blocks, -1.0f);
      block_reduce_sum(in.data(), out.data(), blocks, x, y, nullptr);
      for (int b = 0; b < blocks; ++b) {
        const float want = std::accumulate(in.begin() + b * threads, in.begin() + (b + 1) * threads, 0.0f);
        EXPECT_EQ(out[b], want) << "order " << order << ", block " << x << "x" << y << ", block " << b;
      }
    }
  }
}

TEST(InterpretBarriers, MissingBarrierGivesAWrongAnswerUnderReverseOrder) {
  const int threads = 64;
  std::vector<float> in(threads);
  std::iota(in.begin(), in.end(), 1.0f);
  const auto run = [&](const char* order, bool with_barrier) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    std::vector<float> out(threads, 0.0f);
    shift_through_shared(in.data(), out.data(), threads, with_barrier, nullptr);
    int wrong = 0;
    for (int t = 0; t < threads; ++t)
      if (!(out[t] == in[t == 0 ? 0 : t - 1])) ++wrong;
    return wrong;
  };
  // With the barrier every order is right.
  for (const char* order : kAllOrders) EXPECT_EQ(run(order, true), 0) << order;
  // Without it, forward order happens to run each writer before its reader...
  EXPECT_EQ(run("forward", false), 0);
  // ...and reverse order runs every reader first: it reads poisoned shared memory.
  EXPECT_EQ(run("reverse", false), threads - 1);
}

// Between two barriers a warp runs on through its warp operations until the
// next barrier (or its end) before the next warp in the order starts: with
// forward order every ticket of warp 0 comes before every ticket of warp 1,
// with reverse order the other way round. So one warp gets as far ahead of
// another as the code allows, and a buffer refilled without a barrier while
// another warp still reads it shows up (a sweep that moved every warp one
// warp operation at a time hid that).
TEST(InterpretBarriers, AWarpRunsToTheNextBarrierBeforeTheNextWarpStarts) {
  const int threads = 64, steps = 3;
  for (const char* order : {"forward", "reverse"}) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    std::vector<int> out(threads * steps, -1);
    warp_steps(out.data(), threads, steps, nullptr);
    const auto tickets = [&](int warp) {
      return std::vector<int>(out.begin() + warp * 32 * steps, out.begin() + (warp + 1) * 32 * steps);
    };
    const std::vector<int> first = tickets(std::string(order) == "forward" ? 0 : 1);
    const std::vector<int> second = tickets(std::string(order) == "forward" ? 1 : 0);
    EXPECT_LT(*std::max_element(first.begin(), first.end()),
              *std::min_element(second.begin(), second.end()))
        << order;
  }
}

TEST(InterpretBarriers, DivergentBarriersAreReportedWithBothSites) {
  std::vector<int> out(64, 0);
  for (const char* order : kAllOrders) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    const std::string message = error_of([&] { divergent_barriers(out.data(), 64, 16, nullptr); });
    EXPECT_THAT(message, HasSubstr("divergent barriers")) << order;
    EXPECT_THAT(message, HasSubstr(marked_line("barrier_kernels.cu", "divergent-a"))) << message;
    EXPECT_THAT(message, HasSubstr(marked_line("barrier_kernels.cu", "divergent-b"))) << message;
    EXPECT_THAT(message, HasSubstr("16 threads")) << message;
    EXPECT_THAT(message, HasSubstr("48 threads")) << message;
  }
  // Every thread at the same barrier is fine.
  divergent_barriers(out.data(), 64, 64, nullptr);
  EXPECT_EQ(out[63], 1);
}

TEST(InterpretBarriers, DeadlockBetweenWarpShuffleAndBarrierNamesBothSites) {
  std::vector<int> out(32, 0);
  for (const char* order : kAllOrders) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    const std::string message = error_of([&] { shuffle_while_lanes_at_barrier(out.data(), nullptr); });
    EXPECT_THAT(message, HasSubstr(marked_line("barrier_kernels.cu", "deadlock-shuffle"))) << message;
    EXPECT_THAT(message, HasSubstr(marked_line("barrier_kernels.cu", "deadlock-barrier"))) << message;
    EXPECT_THAT(message, HasSubstr("__shfl_sync")) << message;
    EXPECT_THAT(message, HasSubstr("__syncthreads")) << message;
  }
}

TEST(InterpretBarriers, ExitedThreadsNoLongerCountAtBarriers) {
  for (const char* order : kAllOrders) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    int out = -1;
    early_exit_then_barrier(&out, 128, 40, nullptr);
    EXPECT_EQ(out, 40 * 41 / 2) << order;
  }
}

TEST(InterpretBarriers, CountAndOrPredicates) {
  int out[3] = {-1, -1, -1};
  barrier_predicates(out, 96, 37, nullptr);
  EXPECT_EQ(out[0], 37);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[2], 1);
  barrier_predicates(out, 96, 96, nullptr);
  EXPECT_EQ(out[0], 96);
  EXPECT_EQ(out[1], 1);
  EXPECT_EQ(out[2], 1);
  barrier_predicates(out, 96, 0, nullptr);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[2], 0);
}

TEST(InterpretThreads, IndicesAndDimensionsBehaveAsOnTheGpu) {
  const dim3 grid(3, 2, 2), block(4, 3, 2);
  const int threads = 4 * 3 * 2, blocks = 3 * 2 * 2;
  for (const char* order : {"forward", "random:3"}) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    std::vector<int> out(static_cast<std::size_t>(threads) * blocks * 12, -1);
    thread_indices(out.data(), grid, block, nullptr);
    for (int bz = 0; bz < 2; ++bz)
      for (int by = 0; by < 2; ++by)
        for (int bx = 0; bx < 3; ++bx)
          for (int tz = 0; tz < 2; ++tz)
            for (int ty = 0; ty < 3; ++ty)
              for (int tx = 0; tx < 4; ++tx) {
                const int b = (bz * 2 + by) * 3 + bx, t = (tz * 3 + ty) * 4 + tx;
                const int* r = &out[(static_cast<std::size_t>(b) * threads + t) * 12];
                const std::vector<int> got(r, r + 12);
                const std::vector<int> want = {tx, ty, tz, bx, by, bz, 4, 3, 2, 3, 2, 2};
                ASSERT_EQ(got, want) << order << " block " << b << " thread " << t;
              }
  }
}

TEST(InterpretThreads, StaticSharedMemoryIsPerBlock) {
  for (const char* threads : {"1", "2"}) {
    ScopedEnvironment scoped("KG_INTERPRET_THREADS", threads);
    std::vector<int> out(16, -1);
    static_shared_per_block(out.data(), 16, 64, true, nullptr);
    for (int b = 0; b < 16; ++b) EXPECT_EQ(out[b], 64) << "host threads " << threads << ", block " << b;
  }
}

TEST(InterpretThreads, StaticSharedMemoryStartsPoisonedInEveryBlock) {
  // The counter kernel without its zeroing relies on shared memory starting
  // at zero: on a GPU it adds to whatever was there. Every block, the first
  // on each host thread and the ones after, starts from the poison (all
  // bytes 0xff: -1 as an int, NaN as a float), never from 0 or from the
  // previous block's count.
  for (const char* threads : {"1", "2"}) {
    ScopedEnvironment scoped("KG_INTERPRET_THREADS", threads);
    std::vector<int> out(16, 0);
    static_shared_per_block(out.data(), 16, 64, false, nullptr);
    for (int b = 0; b < 16; ++b) EXPECT_EQ(out[b], 64 - 1) << "host threads " << threads << ", block " << b;
  }
}

TEST(InterpretThreads, AtomicsAreAtomicAcrossParallelBlocks) {
  for (const char* threads : {"1", "2", "4"}) {
    ScopedEnvironment scoped("KG_INTERPRET_THREADS", threads);
    int counters[5] = {0, -1, 1 << 30, 0, 0};
    unsigned long long wide = 0;
    float sum = 0.0f;
    atomics(counters, &wide, &sum, 24, 64, nullptr);
    EXPECT_EQ(counters[0], 24 * 64);
    EXPECT_EQ(counters[1], 24 * 64 - 1);
    EXPECT_EQ(counters[2], 0);
    EXPECT_GT(counters[3], 0);
    EXPECT_EQ(counters[4], 1);
    EXPECT_EQ(wide, (24ull * 64) << 32);
    EXPECT_EQ(sum, 0.5f * 24 * 64);  // exact: every partial sum is a multiple of 0.5 below 2^24
  }
}

TEST(InterpretLaunch, TooManyThreadsPerBlockIsAClearError) {
  std::vector<int> out(4096);
  EXPECT_THAT(error_of([&] { thread_indices(out.data(), dim3(1), dim3(1025), nullptr); }),
              HasSubstr("at most 1024"));
  EXPECT_THAT(error_of([&] { thread_indices(out.data(), dim3(1), dim3(32, 32, 2), nullptr); }),
              HasSubstr("the block has 2048 threads; at most 1024 are allowed"));
  EXPECT_THAT(error_of([&] { thread_indices(out.data(), dim3(1), dim3(1, 1, 65), nullptr); }),
              HasSubstr("exceeds the maximum (1024, 1024, 64)"));
  EXPECT_THAT(error_of([&] { thread_indices(out.data(), dim3(0), dim3(32), nullptr); }),
              HasSubstr("the grid has a zero dimension"));
  EXPECT_THAT(error_of([&] { thread_indices(out.data(), dim3(1, 65536), dim3(32), nullptr); }),
              HasSubstr("grid dimension exceeds"));
}

TEST(InterpretLaunch, DynamicSharedMemoryNeedsTheOptInAbove48KiB) {
  float out = 0.0f;
  use_dynamic_smem(&out, 128, 48 * 1024, false, nullptr);
  EXPECT_EQ(out, 48.0f * 1024 / 4 - 1);
  const std::string message = error_of([&] { use_dynamic_smem(&out, 128, 48 * 1024 + 4, false, nullptr); });
  EXPECT_THAT(message, HasSubstr("dynamic shared memory of 49156 bytes exceeds this kernel's limit of 49152"));
  EXPECT_THAT(message, HasSubstr("kg::set_max_dynamic_smem"));
  use_dynamic_smem(&out, 128, 200 * 1024, true, nullptr);
  EXPECT_EQ(out, 200.0f * 1024 / 4 - 1);
  EXPECT_THAT(error_of([&] { use_dynamic_smem(&out, 128, 228 * 1024, true, nullptr); }),
              HasSubstr("exceeds the maximum dynamic shared memory of a block (232448 bytes)"));
}

TEST(InterpretLaunch, RecordsTheStreamOfEveryLaunch) {
  kg::interp::take_launch_records();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  std::vector<float> in(64, 1.0f), out(2);
  block_reduce_sum(in.data(), out.data(), 2, 32, 1, stream);
  ASSERT_EQ(cudaMemsetAsync(out.data(), 0, sizeof(float), nullptr), cudaSuccess);
  const auto records = kg::interp::take_launch_records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].kind, kg::interp::LaunchRecord::Kind::kernel);
  EXPECT_EQ(records[0].stream, stream);
  EXPECT_EQ(records[0].grid.x, 2u);
  EXPECT_EQ(records[0].block.x, 32u);
  EXPECT_EQ(records[0].dynamic_smem_bytes, 32 * sizeof(float));
  EXPECT_NE(records[0].kernel, nullptr);
  EXPECT_EQ(records[1].kind, kg::interp::LaunchRecord::Kind::memset);
  EXPECT_EQ(records[1].stream, nullptr);  // the default stream: not the one given
  EXPECT_TRUE(kg::interp::take_launch_records().empty());
  cudaStreamDestroy(stream);
}

TEST(InterpretLaunch, OrderVariableIsValidated) {
  ScopedEnvironment scoped("KG_INTERPRET_ORDER", "sideways");
  EXPECT_THAT(error_of([] { kg::interp::thread_order_from_environment(); }),
              HasSubstr("KG_INTERPRET_ORDER: 'sideways' is not a thread order (forward, reverse, random or random:<seed>)"));
  ScopedEnvironment seeded("KG_INTERPRET_ORDER", "random:42");
  const auto order = kg::interp::thread_order_from_environment();
  EXPECT_EQ(order.kind, kg::interp::ThreadOrder::Kind::random);
  EXPECT_EQ(order.seed, 42u);
  EXPECT_EQ(kg::interp::to_string(order), "random:42");
}

TEST(InterpretLaunch, BarrierOutsideAKernelIsAnError) {
  EXPECT_THAT(error_of([] { __syncthreads(); }), HasSubstr("outside a kernel"));
}

}  // namespace
}  // namespace kg::test
