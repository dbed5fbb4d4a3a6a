// The generic-to-async proxy check of wgmma operands (async_proxy_log.hpp).
#include "async_proxy_log.hpp"

namespace kg::interp {

void AsyncProxyLog::reset(std::size_t smem_bytes, unsigned threads) {
  writer_.assign((smem_bytes + kChunk - 1) / kChunk, kNobody);
  marked_.resize(threads);
  for (auto& chunks : marked_) chunks.clear();
}

void AsyncProxyLog::generic_write(unsigned thread, std::size_t offset, std::size_t bytes) {
  if (bytes == 0) return;
  for (std::size_t chunk = offset / kChunk; chunk <= (offset + bytes - 1) / kChunk; ++chunk) {
    if (chunk >= writer_.size()) return;
    writer_[chunk] = static_cast<int>(thread);
    marked_[thread].push_back(static_cast<std::uint32_t>(chunk));
  }
}

void AsyncProxyLog::fence(unsigned thread) {
  for (std::uint32_t chunk : marked_[thread])
    if (writer_[chunk] == static_cast<int>(thread)) writer_[chunk] = kNobody;
  marked_[thread].clear();
}

int AsyncProxyLog::unfenced_writer(std::size_t offset, std::size_t bytes) const {
  if (bytes == 0) return kNobody;
  for (std::size_t chunk = offset / kChunk; chunk <= (offset + bytes - 1) / kChunk; ++chunk)
    if (chunk < writer_.size() && writer_[chunk] != kNobody) return writer_[chunk];
  return kNobody;
}

}  // namespace kg::interp
