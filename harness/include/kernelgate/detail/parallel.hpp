#pragma once
// parallel_for over [0, count) in contiguous chunks on std::threads. The
// results of the references and generators never depend on the split: each
// index is computed on its own.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace kg {

inline unsigned worker_count() {
  unsigned n = std::thread::hardware_concurrency();
  return std::clamp(n, 1u, 64u);
}

// body(begin, end) for chunks of at least `grain` indices.
template <typename Body>
void parallel_for(std::int64_t count, std::int64_t grain, Body&& body) {
  if (count <= 0) return;
  std::int64_t workers = std::min<std::int64_t>(worker_count(), (count + grain - 1) / grain);
  if (workers <= 1) {
    body(std::int64_t{0}, count);
    return;
  }
  // Several chunks per worker so uneven chunks balance out.
  std::int64_t chunk = std::max<std::int64_t>(grain, (count + workers * 4 - 1) / (workers * 4));
  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    try {
      for (;;) {
        std::int64_t begin = next.fetch_add(chunk);
        if (begin >= count) return;
        body(begin, std::min(count, begin + chunk));
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next.store(count);
    }
  };
  std::vector<std::thread> threads;
  for (std::int64_t i = 1; i < workers; ++i) threads.emplace_back(work);
  work();
  for (auto& thread : threads) thread.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace kg
