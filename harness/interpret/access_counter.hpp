#pragma once
// The per-host-thread half of interpret mode's counters (counters.hpp): the
// loads and stores of the block that runs on this host thread, turned into
// warp-level requests at each block barrier and at the block's end, then
// added to the process's totals.
#include <array>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernelgate/interpret/counters.hpp"

namespace kg::interp {

class AccessCounter {
 public:
  // The counter of the block running on this host thread while counting is
  // on; null otherwise (the instrumentation's fast path).
  static AccessCounter* active();
  static bool counting();
  // A block of this counting session made more requests than kMaxLiveRequests
  // between two barriers: the session's counts are incomplete whatever else
  // runs, so a sampled launch (`kernelgate model`) stops running blocks.
  static bool gave_up();

  // Around one block, on its host thread. end_block turns what is left into
  // requests and adds the block's counts to the totals (the grid's last
  // block apart: a sample scales it by 1, count_launch); abandon_block drops
  // them (the block failed).
  void begin_block(unsigned threads, const void* dynamic_smem, std::size_t dynamic_bytes, const void* static_smem,
                   std::size_t static_bytes);
  void end_block(bool last_of_grid);
  void abandon_block();
  // Every live thread of the block waits at a barrier: the lanes' n-th
  // accesses at a site start again from the first.
  void at_barrier();

  // One load or store of the running CUDA thread. `site`: the code address of
  // the access, or site_of() for a PTX wrapper; `asynchronous`: a cp.async
  // read, which the thread does not wait for where it issues it.
  void access(const void* address, std::size_t bytes, bool write, std::uint64_t site, bool asynchronous = false);
  static std::uint64_t site_of(const std::source_location& where);
  Counters& counts() { return counts_; }

 private:
  enum class Kind : std::uint8_t { global_load, global_async_load, global_store, shared_load, shared_store };
  // One warp-level request: the n-th access of its lanes at one site, and the
  // 32-byte sectors (global) or 4-byte words (shared) they touched.
  struct Request {
    std::uint64_t key = 0;  // the site and the kind
    Kind kind = Kind::global_load;
    // A global request's lane accesses (offset, bytes): their union is what
    // the request asked for, lanes reading the same bytes (a broadcast)
    // asking for them once.
    std::vector<std::pair<std::uint64_t, std::uint32_t>> spans;
    std::vector<std::uint64_t> units;
    // The last span and unit, kept out of the vectors: the next lane of a
    // coalesced access or a broadcast only extends them, without reading the
    // vectors' memory, a cache miss for every lane of a large block.
    std::uint64_t open_from = 0;
    std::uint32_t open_bytes = 0;
    std::uint64_t open_unit = kNoUnit;
    static constexpr std::uint64_t kNoUnit = ~std::uint64_t{0};  // no address gives it

    void add_span(std::uint64_t from, std::uint32_t bytes);
    void add_unit(std::uint64_t unit);
    void close();  // the open span and unit join the vectors
  };
  // A lane's place in its warp's sequence of requests. Lanes that have made
  // the same accesses so far share one sequence, so most accesses join the
  // request at their position without a lookup; a lane that departs from it
  // (divergence) counts its own n-th access per site from then on.
  struct Lane {
    std::uint32_t position = 0;
    bool diverged = false;
    std::unordered_map<std::uint64_t, std::uint32_t> nth;  // diverged lanes: per key
  };
  struct KeyHash {
    std::size_t operator()(const std::pair<std::uint64_t, std::uint32_t>& k) const {
      return k.first * 0x9e3779b97f4a7c15ull ^ k.second;
    }
  };
  struct Warp {
    std::vector<Request> requests;
    std::vector<std::uint32_t> sequence;  // the shared sequence, as indices into requests
    std::unordered_map<std::uint64_t, std::uint32_t> sequence_nth;  // per key, along the sequence
    std::unordered_map<std::pair<std::uint64_t, std::uint32_t>, std::uint32_t, KeyHash> index;  // (key, nth) -> request
    std::array<Lane, 32> lanes;
  };
  // The request of the n-th access at `key`, made if it is not there yet.
  Request& request_at(Warp& warp, std::uint64_t key, std::uint32_t nth, Kind kind);
  Request& request_for(Warp& warp, Lane& lane, std::uint64_t key, Kind kind);
  void make_requests();  // the counts of every warp's requests, which are then forgotten

  std::uintptr_t dynamic_begin_ = 0, dynamic_end_ = 0, static_begin_ = 0, static_end_ = 0;
  std::vector<Warp> warps_;
  std::size_t warps_used_ = 0;
  std::size_t live_requests_ = 0;  // over the warps: bounded by kMaxLiveRequests
  Counters counts_;
};

// After the blocks of a launch of `kernel` ran (blocks_run of its `blocks`:
// all, or a sample, whose counts are then scaled; last_block_ran: the grid's
// last among them): the launch's counts, configuration, the kernel's
// registers (kernel_resources) and the footprint go to the totals.
void count_launch(const void* kernel, std::uint64_t blocks, std::uint64_t blocks_run, bool last_block_ran,
                  unsigned threads_per_block, std::size_t dynamic_smem_bytes);

}  // namespace kg::interp
