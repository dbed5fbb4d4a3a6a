#pragma once
// The simulated GPU (docs/simulated-gpu.md): the CUDA runtime of
// kernelgate/interpret/cuda_shims.hpp acting as one GPU of the hardware
// table, so that the cuda device's own code (harness/src/device/cuda) runs in
// the cpu build, kernels in interpret mode. What a GPU does asynchronously is
// deferred here: stream work runs, in stream order, when something waits for
// it (a synchronize, an event wait, a blocking copy), so work left on another
// stream is still pending when the harness's stream is done, as on a GPU.
// Events take the host clock when their place in the stream is reached.
// kg::launch defers its grid to the stream (interp::launches_deferred).
//
// Nothing it reports is a measurement: its times are interpret mode's, its
// clocks are scripted.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernelgate/interpret/cuda_shims.hpp"

namespace kg::interp::sim {

// A card the simulated runtime reports as its GPU: cudaGetDeviceProperties,
// the device attributes, and the clocks NVML reads.
struct Card {
  std::string key;   // the hardware key it simulates: a100-sxm, ..., h100-sxm, ..., b200, gb200
  std::string name;  // the name the real card's driver reports
  int compute_capability_major = 9;
  int compute_capability_minor = 0;
  int sm_count = 0;
  int boost_clock_mhz = 0;
  int memory_clock_mhz = 0;
  int memory_bus_width_bits = 0;
  std::int64_t l2_cache_bytes = 0;
  std::int64_t memory_bytes = 0;
  // The most dynamic shared memory a block may opt in to: 227 KiB on sm_90
  // and sm_100, 163 KiB on sm_80, 99 KiB on sm_89.
  std::size_t max_dynamic_smem_optin = 227 * 1024;
};
// The card of a hardware key; nullptr for one the simulator does not have.
const Card* find_card(const std::string& key);
std::vector<std::string> card_keys();

// What the simulated hardware does, scripted by the run's parent.
struct Script {
  // The SM clock it runs at; 0 for the card's boost clock. Below boost,
  // NVML names a clock setting (applications_clocks_setting) as the reason.
  int sm_clock_mhz = 0;
  // This share of the timed samples (per thousand, spread evenly) runs at
  // throttle_mhz, for hardware slowdown.
  int throttle_permille = 0;
  int throttle_mhz = 0;
  int compute_mode = cudaComputeModeDefault;
  // The Nth kernel this process runs faults (a sticky illegal address); 0: none.
  std::int64_t fault_at_kernel = 0;
  // The file whose lock an EXCLUSIVE_PROCESS card's context holds: the same
  // file for every process using the card, so a second context fails while
  // one is held. None: each process has a card of its own.
  std::string lock_file;
};

// From now on the CUDA runtime calls of this process drive `card` as
// scripted (a process opens at most one; opening again replaces it).
void open(const Card& card, const Script& script);
bool is_open();
const Card& card();
const Script& script();

// NVML's reading of the card now: the SM clock and NVML's clocks-event
// reason bits (kernelgate/detail/throttle_rule.hpp). A timed sample is the span
// from a stream hold to the next device synchronize: both readings of one
// sample see the same clock.
struct ClockReading {
  int sm_mhz = 0;
  std::uint64_t event_reasons = 0;
};
ClockReading clock_now();

// How often cudaCtxResetPersistingL2Cache was called since the card was
// opened or reset (no L2 line is modelled; the cuda device's tests count
// that the reset came before each timed sample).
std::uint64_t persisting_l2_resets();

// The stream hold of a timed sample: stream work enqueued after it waits
// until the host releases it; work that is waited for before the release
// ends the hold early (it expires), as the GPU's hold gives up at its limit.
struct Hold {
  bool released = false;
  bool expired = false;
};
cudaError_t enqueue_hold(cudaStream_t stream, std::shared_ptr<Hold> hold);

// CUPTI's activity records, made as the work runs: kernels, copies and
// memsets with their stream's id and start and end on now_ns()'s clock.
struct Activity {
  enum class Kind { kernel, memcpy, memset };
  Kind kind = Kind::kernel;
  std::string name;  // a kernel's mangled name; empty for copies and memsets
  std::uint64_t bytes = 0;
  unsigned long long stream_id = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
};
void record_activities(Activity::Kind kind, bool on);
std::vector<Activity> take_activities();
std::uint64_t now_ns();
// The id CUPTI gives a stream (0 for the null stream); -1 for no stream of this runtime.
long long stream_id(cudaStream_t stream);

}  // namespace kg::interp::sim
