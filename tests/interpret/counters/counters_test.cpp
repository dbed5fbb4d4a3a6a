// Interpret mode's counters (kernelgate/interpret/counters.hpp) on kernels
// with known answers: sectors per request of coalesced, vector, strided and
// scattered loads, bank conflicts of a shared-memory transpose with and
// without padding, the FLOPs of mma.sync and wgmma, the footprint.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "counters/counter_kernels.hpp"
#include "kernels/test_kernels.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/interpret/counters.hpp"
#include "test_support.hpp"

namespace kg::test {
namespace {

using interp::Counters;

// Host memory registered as global memory for as long as it lives, aligned
// as cudaMalloc's is (256 bytes).
template <typename T>
struct GlobalBuffer {
  explicit GlobalBuffer(std::size_t count, T fill = T{})
      : memory(static_cast<T*>(std::aligned_alloc(256, (count * sizeof(T) + 255) / 256 * 256))),
        values(memory.get(), count) {
    std::fill(values.begin(), values.end(), fill);
    interp::register_global_memory(data(), count * sizeof(T));
  }
  ~GlobalBuffer() { interp::unregister_global_memory(data()); }
  T* data() { return values.data(); }
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> memory;
  std::span<T> values;
};

Counters count(const std::function<void()>& launches) {
  interp::start_counting();
  try {
    launches();
  } catch (...) {
    interp::stop_counting();
    throw;
  }
  return interp::stop_counting();
}

#define skip_without_instrumentation()                                              \
  if (!counter_kernels_report_accesses())                                           \
  GTEST_SKIP() << "built without the access instrumentation (the sanitizer build)"


Counters copy_counters(int n, int stride) {
  GlobalBuffer<float> in(static_cast<std::size_t>(n) * stride, 1.0f), out(n);
  return count([&] { strided_copy(in.data(), out.data(), n, stride, nullptr); });
}

TEST(Counters, CoalescedFloatCopyIsFourSectorsPerRequest) {
  skip_without_instrumentation();
  const Counters c = copy_counters(1024, 1);
  EXPECT_EQ(c.global_load_requests, 32u);   // one per warp
  EXPECT_EQ(c.global_load_sectors, 4u * 32);
  EXPECT_EQ(c.global_store_requests, 32u);
  EXPECT_EQ(c.global_store_sectors, 4u * 32);
  EXPECT_EQ(c.global_bytes_requested, 2u * 1024 * 4);
  EXPECT_EQ(c.dram_read_bytes, 1024u * 4);
  EXPECT_EQ(c.dram_write_bytes, 1024u * 4);
  EXPECT_EQ(c.shared_requests, 0u);
  EXPECT_EQ(c.launches, 1u);
  EXPECT_EQ(c.blocks, 4u);
  EXPECT_EQ(c.threads, 1024u);
  EXPECT_EQ(c.max_threads_per_block, 256u);
}

TEST(Counters, Float4CopyIsSixteenSectorsPerRequest) {
  skip_without_instrumentation();
  GlobalBuffer<float4> in(256), out(256);
  const Counters c = count([&] { copy_float4(in.data(), out.data(), 256, nullptr); });
  EXPECT_EQ(c.global_load_requests, 8u);
  EXPECT_EQ(c.global_load_sectors, 16u * 8);
  EXPECT_EQ(c.global_store_sectors, 16u * 8);
}

TEST(Counters, StrideTwoCopyIsEightSectorsPerRequest) {
  skip_without_instrumentation();
  const Counters c = copy_counters(1024, 2);
  EXPECT_EQ(c.global_load_requests, 32u);
  EXPECT_EQ(c.global_load_sectors, 8u * 32);
  EXPECT_EQ(c.global_store_sectors, 4u * 32);  // the stores stay coalesced
  EXPECT_EQ(c.dram_read_bytes, 1024u * 4);     // every other float of twice as many
}

TEST(Counters, ScatteredCopyIsASectorPerLane) {
  skip_without_instrumentation();
  const Counters c = copy_counters(1024, 8);
  EXPECT_EQ(c.global_load_requests, 32u);
  EXPECT_EQ(c.global_load_sectors, 32u * 32);
}

// Lanes that read the same float (stride 0) ask for its 4 bytes once: the
// bytes requested never exceed the sectors' bytes, so coalescing is at most
// 100% (it read 160% when each lane's bytes counted).
TEST(Counters, ABroadcastAsksForItsBytesOnce) {
  skip_without_instrumentation();
  GlobalBuffer<float> in(1, 1.0f), out(64);
  const Counters c = count([&] { strided_copy(in.data(), out.data(), 64, 0, nullptr); });
  EXPECT_EQ(c.global_load_requests, 2u);
  EXPECT_EQ(c.global_load_sectors, 2u);
  EXPECT_EQ(c.global_store_sectors, 2u * 4);
  EXPECT_EQ(c.global_bytes_requested, 2u * 4 + 64u * 4);
  EXPECT_LE(c.global_bytes_requested, 32 * (c.global_load_sectors + c.global_store_sectors));
}

TEST(Counters, APartialWarpIsOneRequestOfItsLanes) {
  skip_without_instrumentation();
  const Counters c = copy_counters(40, 1);  // one full warp and 8 lanes of a second
  EXPECT_EQ(c.global_load_requests, 2u);
  EXPECT_EQ(c.global_load_sectors, 4u + 1u);
  EXPECT_EQ(c.global_bytes_requested, 2u * 40 * 4);
}

TEST(Counters, ADivergentLoadIsARequestOfItsOwnLanes) {
  skip_without_instrumentation();
  GlobalBuffer<float> in(128, 1.0f), out(32);
  // Lane 0 does not take the branch, so the first load it makes is the
  // second the odd lanes make: requests are matched by site, not position.
  const Counters c = count([&] { divergent_loads(in.data(), out.data(), nullptr); });
  EXPECT_EQ(c.global_load_requests, 2u);
  EXPECT_EQ(c.global_load_sectors, 4u + 4u);  // odd lanes of in[64..96), then in[0..32)
  EXPECT_EQ(c.global_bytes_requested, (16u + 32u + 32u) * 4);
  EXPECT_EQ(out.values[1], 2.0f);
}

TEST(Counters, RequestsDoNotDependOnTheThreadOrder) {
  skip_without_instrumentation();
  const Counters forward = copy_counters(1000, 2);
  for (const char* order : {"reverse", "random:7"}) {
    ScopedEnvironment environment("KG_INTERPRET_ORDER", order);
    const Counters other = copy_counters(1000, 2);
    EXPECT_EQ(interp::named(other), interp::named(forward)) << order;
  }
}

TEST(Counters, ReadingAColumnOfASharedTileConflictsUnlessTheRowIsPadded) {
  skip_without_instrumentation();
  GlobalBuffer<float> in(32 * 32), out(32 * 32);
  for (std::size_t i = 0; i < in.values.size(); ++i) in.values[i] = static_cast<float>(i);
  const Counters plain = count([&] { transpose_through_shared(in.data(), out.data(), false, nullptr); });
  EXPECT_EQ(out.values[1], 32.0f);  // the transpose itself
  EXPECT_EQ(plain.shared_requests, 64u);  // 32 row writes, 32 column reads
  // A row write is one wavefront; a column read of rows of 32 floats puts all
  // 32 lanes in one bank: 32 wavefronts.
  EXPECT_EQ(plain.shared_wavefronts, 32u * 1 + 32u * 32);
  EXPECT_EQ(plain.shared_wavefronts_ideal, 64u);
  EXPECT_EQ(plain.barriers, 1u);
  // Its one warp waits for its global loads once, before the barrier; after
  // it, it reads only shared memory.
  EXPECT_EQ(plain.global_load_waits, 1u);
  const Counters padded = count([&] { transpose_through_shared(in.data(), out.data(), true, nullptr); });
  EXPECT_EQ(padded.shared_requests, 64u);
  EXPECT_EQ(padded.shared_wavefronts, 64u);  // rows of 33 floats: a bank per lane
  EXPECT_EQ(padded.max_dynamic_smem_bytes, 32u * 33 * 4);
}

TEST(Counters, TheFootprintCountsAByteReadTwiceOnce) {
  skip_without_instrumentation();
  GlobalBuffer<float> in(1024, 1.0f), out(1024);
  const Counters c = count([&] { read_twice(in.data(), out.data(), 1024, nullptr); });
  EXPECT_EQ(c.global_load_requests, 2u * 32);
  EXPECT_EQ(c.global_bytes_requested, 3u * 1024 * 4);
  EXPECT_EQ(c.dram_read_bytes, 1024u * 4);
  EXPECT_EQ(c.dram_write_bytes, 1024u * 4);
}

TEST(Counters, ABlockKeepingTooManyRequestsBetweenBarriersIsIncomplete) {
  skip_without_instrumentation();
  // One thread, one request per load: kMaxLiveRequests + 1 loads with no
  // barrier cannot be matched, so the counts are incomplete (and a model run
  // says "not counted"); split by barriers into halves they are exact.
  const int loads = static_cast<int>(interp::kMaxLiveRequests) + 1;
  GlobalBuffer<float> in(1024, 1.0f), out(1);
  const Counters unbroken = count([&] { long_loop(in.data(), out.data(), loads, 0, nullptr); });
  EXPECT_TRUE(unbroken.incomplete);
  EXPECT_EQ(out.values[0], static_cast<float>(loads));  // what is not counted still runs (exact below 2^24)
  const Counters split =
      count([&] { long_loop(in.data(), out.data(), loads, static_cast<int>(interp::kMaxLiveRequests / 2), nullptr); });
  EXPECT_FALSE(split.incomplete);
  EXPECT_EQ(split.global_load_requests, static_cast<std::uint64_t>(loads));
  EXPECT_EQ(split.barriers, 2u);
}

// `kernelgate model`: a sample of the blocks of a launch, scaled to its grid.
struct BlockSample {
  explicit BlockSample(std::uint64_t n) { interp::set_block_sample(n); }
  ~BlockSample() { interp::set_block_sample(0); }
};

TEST(Counters, ASampleOfIdenticalBlocksCountsWhatTheWholeGridDoes) {
  skip_without_instrumentation();
  const Counters whole = copy_counters(8192, 1);  // 32 blocks of 256 threads
  Counters sampled;
  {
    BlockSample sample(4);
    sampled = copy_counters(8192, 1);
  }
  EXPECT_EQ(whole.blocks_run, 32u);
  EXPECT_EQ(sampled.blocks, 32u);
  EXPECT_EQ(sampled.blocks_run, 4u);
  EXPECT_EQ(sampled.threads, whole.threads);
  EXPECT_EQ(sampled.global_load_requests, whole.global_load_requests);
  EXPECT_EQ(sampled.global_load_sectors, whole.global_load_sectors);
  EXPECT_EQ(sampled.global_store_sectors, whole.global_store_sectors);
  EXPECT_EQ(sampled.global_bytes_requested, whole.global_bytes_requested);
  EXPECT_EQ(sampled.dram_read_bytes, whole.dram_read_bytes);
  EXPECT_EQ(sampled.dram_write_bytes, whole.dram_write_bytes);
  // The sample is only for counting: an uncounted launch runs every block.
  interp::set_block_sample(4);
  GlobalBuffer<float> in(8192, 1.0f), out(8192, 0.0f);
  strided_copy(in.data(), out.data(), 8192, 1, nullptr);
  interp::set_block_sample(0);
  EXPECT_TRUE(std::all_of(out.values.begin(), out.values.end(), [](float v) { return v == 1.0f; }));
}

TEST(Counters, TheLastBlockOfASampleStandsForItselfAlone) {
  skip_without_instrumentation();
  // 32 full blocks and a tail of one warp: blocks 0, 11, 21 stand for the 32
  // full ones and the tail for itself, so the sample counts exactly.
  const Counters whole = copy_counters(8192 + 32, 1);
  Counters sampled;
  {
    BlockSample sample(4);
    sampled = copy_counters(8192 + 32, 1);
  }
  EXPECT_EQ(sampled.blocks, 33u);
  EXPECT_EQ(sampled.blocks_run, 4u);
  EXPECT_EQ(whole.global_load_requests, 32u * 8 + 1);
  EXPECT_EQ(sampled.global_load_requests, whole.global_load_requests);
  EXPECT_EQ(sampled.global_load_sectors, whole.global_load_sectors);
  EXPECT_EQ(sampled.global_bytes_requested, whole.global_bytes_requested);
}

// The GPU a model run sizes grids for (kg::interp::set_modelled_gpu).
struct ModelledGpu {
  explicit ModelledGpu(interp::ModelledGpu gpu) { interp::set_modelled_gpu(std::move(gpu)); }
  ~ModelledGpu() { interp::set_modelled_gpu({}); }
};

TEST(Counters, APersistentGridIsSizedForTheModelledGpuAndSampledAsOne) {
  skip_without_instrumentation();
  constexpr int n = 40 * 256 * 3;  // 40 blocks' worth, 3 per thread on a grid of 40
  GlobalBuffer<float> in(n, 1.0f), out(n);
  EXPECT_EQ(kg::sm_count(), 0);  // interpret mode answers only for a modelled GPU
  EXPECT_EQ(persistent_copy(in.data(), out.data(), n, nullptr), 120u);  // one block per 256 floats

  // The gpu build's table names the kernel as nvcc does, its anonymous
  // namespace spelt with the file in it; the registers and static shared
  // memory reach the occupancy query and the counters.
  const std::string anonymous = "_GLOBAL__N__0badf00d_18_counter_kernels_cu_12345678_42";
  interp::set_kernel_resources(
      {{"_ZN2kg4test" + std::to_string(anonymous.size()) + anonymous + "22persistent_copy_kernelEPKfPfi", {40, 512}}});
  std::size_t asked_shared = 0;
  int asked_threads = 0, asked_registers = 0;
  ModelledGpu gpu({20, [&](int threads, std::size_t shared_bytes, int registers) {
                     asked_threads = threads;
                     asked_shared = shared_bytes;
                     asked_registers = registers;
                     return 2;
                   }});
  EXPECT_EQ(kg::sm_count(), 20);
  unsigned blocks = 0;
  const Counters whole = count([&] { blocks = persistent_copy(in.data(), out.data(), n, nullptr); });
  EXPECT_EQ(blocks, 40u);  // 20 SMs x 2 blocks
  EXPECT_EQ(asked_threads, 256);
  EXPECT_EQ(asked_shared, 8u * 1024 + 512);
  EXPECT_EQ(asked_registers, 40);
  EXPECT_EQ(whole.max_registers_per_thread, 40u);
  EXPECT_EQ(whole.max_static_smem_bytes, 512u);
  EXPECT_EQ(whole.launches_without_resources, 0u);
  Counters sampled;
  {
    BlockSample sample(5);
    sampled = count([&] { persistent_copy(in.data(), out.data(), n, nullptr); });
  }
  EXPECT_EQ(whole.global_load_requests, 40u * 8 * 3);
  EXPECT_EQ(sampled.blocks_run, 5u);
  EXPECT_EQ(sampled.global_load_requests, whole.global_load_requests);
  EXPECT_EQ(sampled.global_store_sectors, whole.global_store_sectors);
  EXPECT_THROW(count([&] { interp::set_modelled_gpu({}); }), Error);  // not while counting
  interp::set_kernel_resources({});
  EXPECT_EQ(count([&] { persistent_copy(in.data(), out.data(), n, nullptr); }).launches_without_resources, 1u);
}

TEST(Counters, AScaledFootprintNeverExceedsItsBuffer) {
  skip_without_instrumentation();
  // Each block reads its 256 floats and its neighbour's first: 257 scaled by
  // 8 is more than the buffer holds, and blocks that share bytes read them once.
  GlobalBuffer<float> in(8192, 1.0f), out(8192);
  BlockSample sample(4);
  const Counters c = count([&] { read_twice(in.data(), out.data(), 8192, nullptr); });
  EXPECT_EQ(c.blocks_run, 4u);
  EXPECT_EQ(c.dram_read_bytes, 8192u * 4);
  EXPECT_EQ(c.dram_write_bytes, 8192u * 4);
}

TEST(Counters, TheSampledBlocksSpanTheGridFirstAndLastIncluded) {
  EXPECT_EQ(interp::sampled_blocks(10, 4), (std::vector<std::uint64_t>{0, 3, 6, 9}));
  EXPECT_EQ(interp::sampled_blocks(100, 2), (std::vector<std::uint64_t>{0, 99}));
  EXPECT_EQ(interp::sampled_blocks(3, 8), (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(interp::sampled_blocks(7, 0).size(), 7u);
  interp::start_counting();
  EXPECT_THROW(interp::set_block_sample(2), Error);  // not while counting
  interp::stop_counting();
}

TEST(Counters, FootprintsOfLaunchesAdd) {
  skip_without_instrumentation();
  GlobalBuffer<float> in(1024, 1.0f), out(1024);
  const Counters c = count([&] {
    strided_copy(in.data(), out.data(), 1024, 1, nullptr);
    strided_copy(in.data(), out.data(), 512, 1, nullptr);  // the first half again
  });
  EXPECT_EQ(c.launches, 2u);
  EXPECT_EQ(c.dram_read_bytes, (1024u + 512u) * 4);  // each launch reads what it reads once
}

TEST(Counters, StackAndUnregisteredMemoryAreNotCounted) {
  skip_without_instrumentation();
  GlobalBuffer<float> in(1024, 1.0f), out(1024);
  const Counters through_stack = count([&] { copy_through_stack(in.data(), out.data(), 1024, nullptr); });
  EXPECT_EQ(through_stack.global_store_requests, 32u);
  EXPECT_EQ(through_stack.shared_requests, 0u);
  EXPECT_EQ(through_stack.global_bytes_requested % (1024 * 4), 0u);  // only the buffers' floats
  std::vector<float> unregistered_in(1024), unregistered_out(1024);
  const Counters outside =
      count([&] { strided_copy(unregistered_in.data(), unregistered_out.data(), 1024, 1, nullptr); });
  EXPECT_EQ(outside.global_requests(), 0u);
  EXPECT_EQ(outside.threads, 1024u);
}

TEST(Counters, TensorCoreFlopsFollowTheShapes) {
  std::vector<float> a(64 * 16, 1.0f), b(16 * 64, 1.0f), c(64 * 64, 0.0f), d(64 * 64);
  EXPECT_EQ(count([&] { mma_16x8x8(a.data(), b.data(), c.data(), d.data(), true, nullptr); }).mma_m16n8k8_flops,
            2u * 16 * 8 * 8);
  // Two chained m64nNk8 tf32 wgmmas, then one m64nNk16 on bf16.
  EXPECT_EQ(count([&] { wgmma_64xnx16(64, a.data(), b.data(), c.data(), d.data(), false, nullptr); }).wgmma_flops,
            2u * (2 * 64 * 64 * 8));
  EXPECT_EQ(count([&] { wgmma_64xnx16(32, a.data(), b.data(), c.data(), d.data(), false, nullptr); }).wgmma_flops,
            2u * (2 * 64 * 32 * 8));
  const Counters bf16 =
      count([&] { wgmma_64xnx16_bf16(64, a.data(), b.data(), c.data(), d.data(), false, nullptr); });
  EXPECT_EQ(bf16.wgmma_flops, 2u * 64 * 64 * 16);
  EXPECT_EQ(bf16.tensor_flops(), bf16.wgmma_flops);
}

TEST(Counters, ASampledLaunchCountsTheTensorCoreWorkItLeavesUncomputed) {
  // A sampled launch's output is not the kernel's (only some blocks run), so
  // its tensor-core arithmetic is skipped: the counts are those of a launch
  // that computes, and the accumulators keep C.
  std::vector<float> a(64 * 16, 1.0f), b(16 * 64, 1.0f), c(64 * 64, 0.5f), computed(64 * 64), sampled(64 * 64);
  const Counters whole = count([&] { wgmma_64xnx16(64, a.data(), b.data(), c.data(), computed.data(), true, nullptr); });
  Counters part;
  {
    BlockSample sample(1);
    part = count([&] { wgmma_64xnx16(64, a.data(), b.data(), c.data(), sampled.data(), true, nullptr); });
  }
  EXPECT_EQ(part.blocks_run, whole.blocks_run);
  EXPECT_EQ(part.wgmma_flops, whole.wgmma_flops);
  EXPECT_EQ(part.shared_requests, whole.shared_requests);
  EXPECT_EQ(part.shared_wavefronts, whole.shared_wavefronts);
  EXPECT_EQ(part.barriers, whole.barriers);
  EXPECT_EQ(computed[0], 0.5f + 16.0f);
  EXPECT_EQ(sampled[0], 0.5f);
  // An uncounted launch, sample or not, computes.
  interp::set_block_sample(1);
  wgmma_64xnx16(64, a.data(), b.data(), c.data(), sampled.data(), true, nullptr);
  interp::set_block_sample(0);
  EXPECT_EQ(sampled, computed);
}

TEST(Counters, EachWarpWaitsOnceForTheLoadsOfABarrierInterval) {
  skip_without_instrumentation();
  // 1000 threads over blocks of 256: 32 warps, the last block's last warp
  // partial (1000 = 3 x 256 + 232), each loading once with no barrier.
  const Counters copy = copy_counters(1000, 1);
  EXPECT_EQ(copy.global_load_waits, 32u);
  // read_twice loads twice per thread in one interval: still one wait a warp.
  GlobalBuffer<float> in(1024, 1.0f), out(1024);
  EXPECT_EQ(count([&] { read_twice(in.data(), out.data(), 1024, nullptr); }).global_load_waits, 32u);
}

TEST(Counters, CpAsyncIsNotAWait) {
  GlobalBuffer<float> src(256, 1.0f);
  std::vector<float> out(256);
  const Counters c = count([&] { cp_async_zero_fill(src.data(), out.data(), nullptr); });
  EXPECT_EQ(c.global_load_requests, 2u);
  EXPECT_EQ(c.global_load_waits, 0u);
}

TEST(Counters, CpAsyncCountsItsBytesAndItsGlobalReads) {
  GlobalBuffer<float> src(8, 2.0f);
  std::vector<float> before(8), after_first(8), after_all(8);
  const Counters c = count([&] {
    cp_async_groups(src.data(), 8, before.data(), after_first.data(), after_all.data(), nullptr);
  });
  EXPECT_EQ(c.cp_async_bytes, 32u);               // two 16-byte copies, one half zero-filled
  EXPECT_EQ(c.global_load_requests, 2u);          // one per cp.async site
  EXPECT_EQ(c.global_bytes_requested, 16u + 8u);  // the bytes read from global memory
  EXPECT_EQ(c.dram_read_bytes, 24u);
}

TEST(Counters, AZeroFillingCpAsyncIsPartOfItsWarpsRequest) {
  // Lane 0 zero-fills its first copy: the warp's first request is the 31
  // other lanes (still 16 sectors), and lane 0's second copy belongs to the
  // second request, not to the first.
  GlobalBuffer<float> src(256, 1.0f);
  std::vector<float> out(256);
  const Counters c = count([&] { cp_async_zero_fill(src.data(), out.data(), nullptr); });
  EXPECT_EQ(c.global_load_requests, 2u);
  EXPECT_EQ(c.global_load_sectors, 2u * 16);
  EXPECT_EQ(c.global_bytes_requested, 63u * 16);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[4], 1.0f);
}

TEST(Counters, MisuseIsRefusedInOneLine) {
  std::vector<float> buffer(16);
  interp::register_global_memory(buffer.data(), 64);
  EXPECT_THROW(interp::register_global_memory(buffer.data() + 8, 64), Error);  // overlaps
  interp::start_counting();
  EXPECT_THROW(interp::start_counting(), Error);
  EXPECT_THROW(interp::unregister_global_memory(buffer.data()), Error);  // while counting
  interp::stop_counting();
  interp::unregister_global_memory(buffer.data());
  EXPECT_THROW(interp::unregister_global_memory(buffer.data()), Error);
}

}  // namespace
}  // namespace kg::test
