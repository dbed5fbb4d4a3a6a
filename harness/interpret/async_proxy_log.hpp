#pragma once
// wgmma reads shared memory through the async proxy. What a thread wrote
// through the generic proxy (here: its cp.async copies) reaches it only after
// that thread's fence.proxy.async (then a barrier, then the wgmma); without
// the fence the wgmma may read stale bytes, now and then. Plain stores cannot
// be seen from here, cp.async copies can: this log marks the 16-byte chunks of
// dynamic shared memory a thread's copies wrote until that thread fences, and
// a wgmma that reads a marked chunk is an error.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kg::interp {

class AsyncProxyLog {
 public:
  static constexpr int kNobody = -1;
  // A new block: its dynamic shared memory size and thread count.
  void reset(std::size_t smem_bytes, unsigned threads);
  // `thread`'s copy of [offset, offset + bytes) landed.
  void generic_write(unsigned thread, std::size_t offset, std::size_t bytes);
  // `thread` executed fence.proxy.async: its writes so far are visible.
  void fence(unsigned thread);
  // The thread whose unfenced write [offset, offset + bytes) overlaps, or kNobody.
  int unfenced_writer(std::size_t offset, std::size_t bytes) const;

 private:
  static constexpr std::size_t kChunk = 16;
  std::vector<int> writer_;  // per chunk: the thread with an unfenced write, or kNobody
  std::vector<std::vector<std::uint32_t>> marked_;  // per thread: the chunks it marked
};

}  // namespace kg::interp
