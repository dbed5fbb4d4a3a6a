#pragma once
// The executor of one block: every CUDA thread is a fiber, run by a scheduler
// on one host thread in the chosen order until it reaches a barrier, a warp
// operation, or its end. docs/interpret-mode.md explains the design.
#include <array>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <random>
#include <source_location>
#include <string>
#include <vector>

#include "fiber.hpp"
#include "kernelgate/interpret/launch.hpp"
#include "kernelgate/interpret/sync.hpp"
#include "kernelgate/interpret/tensor_core_arithmetic.hpp"
#include "access_counter.hpp"
#include "async_proxy_log.hpp"
#include "warpgroup_log.hpp"

namespace kg::interp {

// SplitMix64's finaliser: turns a random order's seed (and a block's index)
// into well-spread bits, for the block order of a launch and the thread
// order inside each block.
inline std::uint64_t split_mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A place in the kernel source where a thread waits.
struct WaitSite {
  const char* operation = "";
  const char* file = "";
  unsigned line = 0;
  unsigned column = 0;
};
bool same_site(const WaitSite& a, const WaitSite& b);
std::string describe(const WaitSite& site);  // "__syncthreads (file.cu:12)"
WaitSite make_site(const char* operation, const std::source_location& where);

enum class FiberState : unsigned char { ready, at_barrier, at_warp, exited };

// One cp.async copy, performed at the wait_group that covers its group.
struct PendingCopy {
  void* destination;
  const void* source;
  int bytes;
  int source_bytes;
  std::uint64_t group;
};

// One wgmma accumulator fragment whose result is not yet waited for: the
// result (poison stands in the registers meanwhile), its length (N / 2
// floats per lane), and the group, shape and site of the last wgmma that
// wrote it, and whether a wgmma_fence came since (PTX orders the accumulator
// accesses of wgmmas of the same shape only: another shape needs a fence).
struct PendingWgmmaResult {
  float* d;
  float values[32];
  int count;
  std::uint64_t group;
  WgmmaShape shape;
  std::source_location where;
  bool fenced = false;
};

// The B operand of a wgmma as bits (a 16-bit element in the low half), [k][n]
// with room for K = 16 and N = 64 whatever the shape (the rest stays zero).
using BOperandBits = std::array<std::uint32_t, 16 * 64>;

// The operands a pending wgmma reads, as they were at the issue: the A
// fragment, and (lane 0 of each warp) the B operand in shared memory. Both
// must be unchanged when the group completes (PTX: the registers stay
// untouched until the wait; the hardware may read B until then).
struct PendingWgmmaOperand {
  WgmmaShape shape;
  const std::uint32_t* a;
  std::uint32_t issued[4];
  std::uint64_t group;
  std::source_location where;
  std::uint64_t b_desc;
  std::unique_ptr<BOperandBits> b_issued;  // lane 0 of the warp only
};

struct Fiber {
  explicit Fiber(std::size_t stack_bytes) : stack(stack_bytes) {}
  FiberStack stack;
  FiberContext context = nullptr;
  FiberState state = FiberState::ready;
  uint3 index{0, 0, 0};
  unsigned linear = 0;
  WaitSite site;
  // Block barrier.
  BarrierKind barrier_kind = BarrierKind::sync;
  int predicate = 0;
  int barrier_result = 0;
  // cp.async: copies issued but not yet waited for; groups committed so far.
  std::vector<PendingCopy> copies;
  std::uint64_t committed_groups = 0;
  // wgmma: pending results and operands, groups committed so far, and whether
  // a wgmma.fence came since the last wait (or the start).
  std::vector<PendingWgmmaResult> wgmma_results;
  std::vector<PendingWgmmaOperand> wgmma_operands;
  std::uint64_t wgmma_groups = 0;
  bool wgmma_fenced = false;
};

// A warp-collective operation some lanes of `mask` have reached.
struct PendingWarpOp {
  WarpCombine combine = nullptr;
  WaitSite site;
  unsigned mask = 0;
  unsigned arrived = 0;
  void* payloads[32];  // only the lanes of `mask` are set
};

struct BlockTask {
  KernelInvocation invocation;
  dim3 grid;
  dim3 block;
  std::size_t dynamic_smem_bytes;
  ThreadOrder order;
  TensorCoreArithmetic arithmetic;  // of mma.sync and wgmma
  const void* kernel;               // the kernel's address
};

class BlockRunner {
 public:
  // The runner of the calling host thread (created on first use).
  static BlockRunner& of_this_thread();
  // The fiber running on this host thread; throws kg::Error outside a kernel.
  static Fiber& current_fiber(const char* operation);
  static BlockRunner* active();  // null outside a kernel

  // Runs every thread of one block to its end; throws kg::Error.
  void run_block(const BlockTask& task, std::uint64_t block_linear);

  // Called on a fiber.
  int barrier(BarrierKind kind, int predicate, const std::source_location& where);
  void warp_collective(WarpCombine combine, const char* operation, unsigned mask, void* payload,
                       const std::source_location& where);
  unsigned live_lanes_of_current_warp() const;
  void* dynamic_smem() const { return dynamic_smem_.get(); }
  std::size_t dynamic_smem_bytes() const { return task_->dynamic_smem_bytes; }
  WarpgroupLog& warpgroup_log() { return warpgroup_log_; }
  AsyncProxyLog& async_proxy_log() { return async_proxy_log_; }
  // A look of the async-proxy log (async_proxy_log.hpp) at the dynamic
  // shared memory: what changed since the last look was written by the
  // threads that ran since. Only in tracked blocks. `stops`: the running
  // thread suspends right after (a barrier, its end), so it has not run
  // since this look.
  void note_shared_writes(bool stops = false);
  // The running kernel issued a wgmma: its later blocks, on every host
  // thread, track writes for the proxy check (this one cannot any more).
  void kernel_reads_through_async_proxy();
  unsigned thread_count() const { return thread_count_; }
  TensorCoreArithmetic arithmetic() const { return task_->arithmetic; }

 private:
  BlockRunner();
  static void fiber_entry(FiberTransfer transfer);
  Fiber* next_ready();  // the next ready fiber of the sweep, or null
  static void arrived(const FiberTransfer& transfer);
  void resume(Fiber& fiber);
  void suspend(bool dying = false);
  void prepare_fibers(unsigned count);
  void build_order(std::mt19937_64& rng, bool reshuffle);
  void release_barrier();  // all live threads wait: release them or throw
  void check_no_warp_waits_for(const Fiber& fiber, const WaitSite* waits_at) const;
  unsigned existing_lanes(unsigned warp) const;
  std::string block_name() const;
  std::string describe_waits() const;
  void record_failure(std::exception_ptr failure);

  const BlockTask* task_ = nullptr;
  std::deque<Fiber> fibers_;  // stable addresses, allocated in chunks
  unsigned thread_count_ = 0;
  unsigned live_ = 0;
  std::vector<unsigned> order_;
  std::size_t position_ = 0;  // of the sweep in order_
  std::vector<unsigned> position_of_;  // a thread's position in order_
  std::vector<std::vector<PendingWarpOp>> warps_;
  Fiber* current_ = nullptr;
  FiberContext scheduler_context_ = nullptr;
  const void* scheduler_stack_bottom_ = nullptr;
  std::size_t scheduler_stack_size_ = 0;
  std::exception_ptr failure_;
  std::unique_ptr<unsigned char[]> dynamic_smem_;
  WarpgroupLog warpgroup_log_;
  AsyncProxyLog async_proxy_log_;
  AccessCounter access_counter_;
  bool tracks_async_proxy_ = false;  // this block's writes go to the log
  std::vector<unsigned> ran_since_look_;  // threads that ran since the log's last look
  std::vector<std::uint64_t> ran_in_look_;  // per thread: the look it last joined, + 1
  std::uint64_t look_ = 0;
  void running(const Fiber& fiber);  // `fiber` runs now
  std::size_t stack_bytes_ = 0;
  bool stacks_abandoned_ = false;  // the last block ended in an error
};

}  // namespace kg::interp
