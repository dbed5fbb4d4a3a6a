#pragma once
// Block barriers and warp-collective operations in interpret mode.
//
// Each takes the call site as a defaulted std::source_location, so a barrier
// error or a deadlock names the file and line of every wait without macros.
// Semantics (docs/interpret-mode.md):
//  - __syncthreads* release when every live thread of the block has arrived at
//    the same barrier; threads that returned no longer count. Threads waiting
//    at different barriers are an error naming both sites.
//  - warp operations are a barrier among the lanes of `mask`: the last lane to
//    arrive computes the results of all. Every lane of the mask must arrive at
//    the same call with the same mask; a lane that has exited, does not exist,
//    or waits elsewhere is an error.
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "kernelgate/interpret/builtins.hpp"

namespace kg::interp {

enum class BarrierKind : unsigned char { sync, count, all, any };

// Waits at a block barrier; returns the count/and/or of the predicates
// (0 for BarrierKind::sync).
int block_barrier(BarrierKind kind, int predicate, const std::source_location& where);

// Runs one warp-collective operation. `payload` is this lane's in/out record;
// the last lane of `mask` to arrive calls combine(payloads, mask), where
// payloads[lane] is the record of each lane of the mask (null elsewhere). The
// records stay valid because the other lanes are suspended inside this call.
using WarpCombine = void (*)(void* const* payloads, unsigned mask);
void warp_collective(WarpCombine combine, const char* operation, unsigned mask, void* payload,
                     const std::source_location& where);

// The lanes of the caller's warp that have not exited (an approximation of
// __activemask: interpret mode has no notion of convergence).
unsigned active_lanes();

enum class ShuffleMode : unsigned char { idx, up, down, bfly };

struct ShufflePayload {
  std::uint64_t value;   // in: this lane's value
  std::uint64_t result;  // out: the value read
  int operand;           // srcLane, delta or laneMask
  int width;
};

void combine_shuffle_idx(void* const* payloads, unsigned mask);
void combine_shuffle_up(void* const* payloads, unsigned mask);
void combine_shuffle_down(void* const* payloads, unsigned mask);
void combine_shuffle_xor(void* const* payloads, unsigned mask);
void combine_vote(void* const* payloads, unsigned mask);
void combine_nothing(void* const* payloads, unsigned mask);

struct VotePayload {
  int predicate;           // in
  unsigned ballot;         // out: bit per lane of the mask whose predicate is non-zero
};

template <typename T>
T shuffle(WarpCombine combine, const char* operation, unsigned mask, T var, int operand, int width,
          const std::source_location& where) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8,
                "warp shuffles move values of at most 8 bytes");
  ShufflePayload payload{0, 0, operand, width};
  std::memcpy(&payload.value, &var, sizeof(T));
  warp_collective(combine, operation, mask, &payload, where);
  T result;
  std::memcpy(&result, &payload.result, sizeof(T));
  return result;
}

inline unsigned vote(const char* operation, unsigned mask, int predicate,
                     const std::source_location& where) {
  VotePayload payload{predicate, 0};
  warp_collective(combine_vote, operation, mask, &payload, where);
  return payload.ballot;
}

}  // namespace kg::interp

inline void __syncthreads(std::source_location where = std::source_location::current()) {
  kg::interp::block_barrier(kg::interp::BarrierKind::sync, 0, where);
}
inline int __syncthreads_count(int predicate,
                               std::source_location where = std::source_location::current()) {
  return kg::interp::block_barrier(kg::interp::BarrierKind::count, predicate, where);
}
inline int __syncthreads_and(int predicate,
                             std::source_location where = std::source_location::current()) {
  return kg::interp::block_barrier(kg::interp::BarrierKind::all, predicate, where);
}
inline int __syncthreads_or(int predicate,
                            std::source_location where = std::source_location::current()) {
  return kg::interp::block_barrier(kg::interp::BarrierKind::any, predicate, where);
}

inline void __syncwarp(unsigned mask = 0xffffffffu,
                       std::source_location where = std::source_location::current()) {
  kg::interp::warp_collective(kg::interp::combine_nothing, "__syncwarp", mask, nullptr, where);
}

template <typename T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize,
              std::source_location where = std::source_location::current()) {
  return kg::interp::shuffle(kg::interp::combine_shuffle_idx, "__shfl_sync", mask, var, src_lane,
                             width, where);
}
template <typename T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                 std::source_location where = std::source_location::current()) {
  return kg::interp::shuffle(kg::interp::combine_shuffle_up, "__shfl_up_sync", mask, var,
                             static_cast<int>(delta), width, where);
}
template <typename T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                   std::source_location where = std::source_location::current()) {
  return kg::interp::shuffle(kg::interp::combine_shuffle_down, "__shfl_down_sync", mask, var,
                             static_cast<int>(delta), width, where);
}
template <typename T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize,
                  std::source_location where = std::source_location::current()) {
  return kg::interp::shuffle(kg::interp::combine_shuffle_xor, "__shfl_xor_sync", mask, var,
                             lane_mask, width, where);
}

inline unsigned __ballot_sync(unsigned mask, int predicate,
                              std::source_location where = std::source_location::current()) {
  return kg::interp::vote("__ballot_sync", mask, predicate, where);
}
inline int __any_sync(unsigned mask, int predicate,
                      std::source_location where = std::source_location::current()) {
  return kg::interp::vote("__any_sync", mask, predicate, where) != 0u;
}
inline int __all_sync(unsigned mask, int predicate,
                      std::source_location where = std::source_location::current()) {
  // Every lane of the mask voted true exactly when the ballot equals the mask.
  return kg::interp::vote("__all_sync", mask, predicate, where) == mask;
}
inline unsigned __activemask() { return kg::interp::active_lanes(); }
