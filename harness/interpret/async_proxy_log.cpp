// The generic-to-async proxy check of wgmma operands (async_proxy_log.hpp).
#include "async_proxy_log.hpp"

#include "kernelgate/interpret/launch.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace kg::interp {

namespace {
std::mutex known_mutex;
// Kernels seen to issue wgmma, and how many of their blocks were tracked.
std::unordered_map<const void*, int>& known_kernels() {
  static std::unordered_map<const void*, int> kernels;
  return kernels;
}

bool track_every_block = false;  // under known_mutex
}  // namespace

void track_every_block_for_proxy_check(bool every) {
  std::lock_guard lock(known_mutex);
  track_every_block = every;
}

bool AsyncProxyLog::track_block_of(const void* kernel, bool first_or_last) {
  std::lock_guard lock(known_mutex);
  const auto found = known_kernels().find(kernel);
  if (found == known_kernels().end()) return false;
  if (track_every_block) return true;
  if (!first_or_last || found->second >= kTrackedBlocksPerKernel) return false;
  ++found->second;
  return true;
}

void AsyncProxyLog::learn_kernel(const void* kernel) {
  std::lock_guard lock(known_mutex);
  known_kernels().try_emplace(kernel, 0);
}

void AsyncProxyLog::reset(std::size_t smem_bytes, unsigned threads, unsigned char poison_byte) {
  seen_.assign(smem_bytes, poison_byte);
  write_.assign((smem_bytes + kChunk - 1) / kChunk, kClean);
  writes_.clear();
  fenced_at_.assign(threads, 0);
  looks_ = 0;
}

void AsyncProxyLog::note_writes(const std::vector<unsigned>& threads, const unsigned char* smem) {
  ++looks_;
  const std::size_t bytes = seen_.size();
  bool recorded = false;
  // Most looks find nothing new: compare large spans first.
  constexpr std::size_t kSpan = 1024;
  for (std::size_t span = 0; span < bytes; span += kSpan) {
    const std::size_t span_bytes = std::min(kSpan, bytes - span);
    if (std::memcmp(smem + span, seen_.data() + span, span_bytes) == 0) continue;
    for (std::size_t offset = span; offset < span + span_bytes; offset += kChunk) {
      const std::size_t chunk_bytes = std::min(kChunk, bytes - offset);
      if (std::memcmp(smem + offset, seen_.data() + offset, chunk_bytes) == 0) continue;
      std::memcpy(seen_.data() + offset, smem + offset, chunk_bytes);
      if (!recorded) {
        writes_.push_back(Write{looks_, threads});
        recorded = true;
      }
      write_[offset / kChunk] = static_cast<std::uint32_t>(writes_.size() - 1);
    }
  }
}

void AsyncProxyLog::fence(unsigned thread) {
  if (tracking()) fenced_at_[thread] = looks_ + 1;
}

int AsyncProxyLog::unfenced_writer(std::size_t offset, std::size_t bytes) const {
  if (bytes == 0 || !tracking()) return kNobody;
  for (std::size_t chunk = offset / kChunk; chunk <= (offset + bytes - 1) / kChunk; ++chunk) {
    if (chunk >= write_.size() || write_[chunk] == kClean) continue;
    const Write& write = writes_[write_[chunk]];
    for (unsigned thread : write.threads)
      if (fenced_at_[thread] <= write.look) return static_cast<int>(thread);
  }
  return kNobody;
}

}  // namespace kg::interp
