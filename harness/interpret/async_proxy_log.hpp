#pragma once
// wgmma reads shared memory through the async proxy. What a thread wrote
// through the generic proxy (plain stores, and cp.async copies once they
// land) reaches it only after that thread's fence.proxy.async (then a
// barrier, then the wgmma); without the fence the wgmma may read stale
// bytes, now and then.
//
// Threads of a block run one at a time on one host thread, so every change
// to the dynamic shared memory between two looks was made by a thread that
// ran in between. This log keeps the contents as of the last look. The
// block runner looks where a thread stops at a barrier or ends, where it
// fences, and where a warp issues a wgmma; each changed 16-byte chunk is
// marked as written by the threads that ran since the last look (almost
// always one: the one that stopped), unfenced until each of them fences,
// and a wgmma that reads a marked chunk is an error.
//
// A look costs a pass over the shared memory, several times the rest of a
// block's work, so few blocks are tracked: the first and the last of a
// launch (an edge tile, where code paths differ), of kernels known to issue
// wgmma, two per kernel and process. A kernel becomes known at its first
// wgmma in this process, so its first launch may go unchecked; a missing
// fence is a property of the code, not of one block, and shows in the next
// launch. (In the runner's child, one candidate at one shape, these are
// blocks of its first checked calls.)
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kg::interp {

class AsyncProxyLog {
 public:
  static constexpr int kNobody = -1;
  // Whether to track a block of `kernel`: it issued a wgmma before in this
  // process, and fewer than kTrackedBlocksPerKernel of its blocks were
  // tracked so far (counting this one). And learning that it issues wgmma.
  static constexpr int kTrackedBlocksPerKernel = 2;
  // `first_or_last`: the block is the first or the last of its launch.
  static bool track_block_of(const void* kernel, bool first_or_last);
  static void learn_kernel(const void* kernel);

  // A new block: its dynamic shared memory size (0: not tracked) and thread
  // count; the memory starts as `poison_byte` everywhere.
  void reset(std::size_t smem_bytes, unsigned threads, unsigned char poison_byte);
  bool tracking() const { return !seen_.empty(); }
  // `threads` ran since the last look: the chunks of `smem` that changed are
  // their writes.
  void note_writes(const std::vector<unsigned>& threads, const unsigned char* smem);
  // `thread` executed fence.proxy.async (after a look): its writes so far
  // are visible.
  void fence(unsigned thread);
  // A thread with an unfenced write overlapping [offset, offset + bytes), or kNobody.
  int unfenced_writer(std::size_t offset, std::size_t bytes) const;

 private:
  static constexpr std::size_t kChunk = 16;
  static constexpr std::uint32_t kClean = 0xffffffffu;
  std::vector<unsigned char> seen_;   // the contents at the last look
  std::vector<std::uint32_t> write_;  // per chunk: its last write (index in writes_), or kClean
  struct Write {
    std::uint64_t look;             // the look that found it
    std::vector<unsigned> threads;  // who may have made it
  };
  std::vector<Write> writes_;
  std::vector<std::uint64_t> fenced_at_;  // per thread: the look before its last fence, + 1
  std::uint64_t looks_ = 0;
};

}  // namespace kg::interp
