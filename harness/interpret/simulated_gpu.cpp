// The simulated GPU (kernelgate/interpret/simulated_gpu.hpp): one card of the
// hardware table behind the CUDA runtime API of interpret mode.
//
// Stream-ordered work is kept in a queue per stream and runs when something
// waits for it, in the order it was issued: a stream or event synchronize runs
// that stream's work, a device synchronize everyone's, a blocking copy what it
// must follow. The legacy null stream and the blocking streams wait for each
// other as on a GPU; a non-blocking stream (the harness's) waits for nothing.
// A fault is sticky: the work queued after it never runs and every call
// returns it until cudaDeviceReset. Device memory is registered, so a copy or
// memset past an allocation, or a copy in the wrong direction, is refused.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "kernel_symbols.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/interpret/launch.hpp"
#include "kernelgate/interpret/simulated_gpu.hpp"
#include "simulated_runtime.hpp"

// An event of the simulated runtime: where it was last recorded and, once
// that place in its stream was reached, the host clock there.
struct CUevent_st {
  bool timing = true;
  bool recorded = false;
  bool completed = false;
  std::uint64_t seq = 0;  // the operation that records it
  cudaStream_t stream = nullptr;
  std::uint64_t time_ns = 0;
};

namespace kg::interp {
namespace {

using sim::Activity;

constexpr std::int64_t kMiB = 1024 * 1024;

// The cards, as their drivers report them (NVIDIA's H100 and H200 datasheets
// for the SM counts, clocks, memory and bus widths; the L2 sizes are the
// CUDA device properties of those parts).
const std::vector<sim::Card>& cards() {
  // What each card's driver reports: its name, compute capability, SMs,
  // boost clock, memory clock and bus (DDR: twice the clock times the bus
  // is the datasheet's bandwidth), L2 and memory.
  static const std::vector<sim::Card> all = {
      {.key = "a100-sxm", .name = "NVIDIA A100-SXM4-80GB", .compute_capability_major = 8,
       .compute_capability_minor = 0, .sm_count = 108, .boost_clock_mhz = 1410, .memory_clock_mhz = 1593,
       .memory_bus_width_bits = 5120, .l2_cache_bytes = 40 * kMiB, .memory_bytes = 81251 * kMiB,
       .max_dynamic_smem_optin = 163 * 1024},
      {.key = "l40s", .name = "NVIDIA L40S", .compute_capability_major = 8, .compute_capability_minor = 9,
       .sm_count = 142, .boost_clock_mhz = 2520, .memory_clock_mhz = 9001, .memory_bus_width_bits = 384,
       .l2_cache_bytes = 96 * kMiB, .memory_bytes = 46068 * kMiB, .max_dynamic_smem_optin = 99 * 1024},
      {.key = "h100-sxm", .name = "NVIDIA H100 80GB HBM3", .sm_count = 132, .boost_clock_mhz = 1980,
       .memory_clock_mhz = 2619, .memory_bus_width_bits = 5120, .l2_cache_bytes = 50 * kMiB,
       .memory_bytes = 81559 * kMiB},
      {.key = "h100-pcie", .name = "NVIDIA H100 PCIe", .sm_count = 114, .boost_clock_mhz = 1755,
       .memory_clock_mhz = 1593, .memory_bus_width_bits = 5120, .l2_cache_bytes = 50 * kMiB,
       .memory_bytes = 81559 * kMiB},
      {.key = "h100-nvl", .name = "NVIDIA H100 NVL", .sm_count = 132, .boost_clock_mhz = 1785,
       .memory_clock_mhz = 2619, .memory_bus_width_bits = 6144, .l2_cache_bytes = 50 * kMiB,
       .memory_bytes = 95830 * kMiB},
      {.key = "h200", .name = "NVIDIA H200", .sm_count = 132, .boost_clock_mhz = 1980, .memory_clock_mhz = 3201,
       .memory_bus_width_bits = 6144, .l2_cache_bytes = 60 * kMiB, .memory_bytes = 143771 * kMiB},
      {.key = "b200", .name = "NVIDIA B200", .compute_capability_major = 10, .compute_capability_minor = 0,
       .sm_count = 148, .boost_clock_mhz = 1980, .memory_clock_mhz = 3996, .memory_bus_width_bits = 8192,
       .l2_cache_bytes = 126 * kMiB, .memory_bytes = 182623 * kMiB},
      {.key = "gb200", .name = "NVIDIA GB200", .compute_capability_major = 10, .compute_capability_minor = 0,
       .sm_count = 148, .boost_clock_mhz = 2110, .memory_clock_mhz = 3996, .memory_bus_width_bits = 8192,
       .l2_cache_bytes = 126 * kMiB, .memory_bytes = 189471 * kMiB},
  };
  return all;
}

// One piece of stream-ordered work.
struct Operation {
  enum class Kind { kernel, memcpy, memset, event, hold };
  Kind kind = Kind::kernel;
  std::uint64_t seq = 0;  // issue order, over every stream
  unsigned long long stream_id = 0;
  std::uint64_t bytes = 0;                  // copies and memsets
  std::function<void()> work;               // copies and memsets
  LaunchConfig launch{};                    // kernels
  KernelInvocation invocation{};            // kernels
  std::shared_ptr<const void> keep;         // a kernel's copy of its arguments
  CUevent_st* event = nullptr;              // event records
  std::shared_ptr<sim::Hold> hold;          // stream holds
};

struct StreamQueue {
  bool blocking = true;  // the null stream and streams created without cudaStreamNonBlocking
  std::deque<Operation> work;
};

struct Allocation {
  std::size_t bytes = 0;
  bool device = true;  // else pinned host memory (cudaHostAlloc)
};

enum class Region { host, device, pinned };

class Simulator {
 public:
  std::recursive_mutex mutex;
  sim::Card card;
  sim::Script script;
  bool context = false;
  int lock_fd = -1;
  cudaError_t sticky = cudaSuccess;
  std::uint64_t next_seq = 1;
  std::map<cudaStream_t, StreamQueue> streams;  // the live ones, the null stream among them
  std::vector<StreamQueue> orphans;             // destroyed streams' work still to run
  std::set<CUevent_st*> events;
  std::map<std::uintptr_t, Allocation> allocations;
  std::int64_t device_bytes = 0;
  std::int64_t kernels_run = 0;
  std::uint64_t samples_started = 0;
  bool sample_open = false;
  bool recording[3] = {false, false, false};
  std::vector<Activity> activities;
  // Persisting L2, as set: the card's limit and each stream's window (no
  // line is modelled; what a timed sample starts with is what tests read).
  std::size_t persisting_l2_limit = 0;
  std::map<cudaStream_t, cudaAccessPolicyWindow> access_windows;
  std::uint64_t persisting_l2_resets = 0;
};

Simulator& simulator() {
  static Simulator* instance = new Simulator;  // never destroyed: streams may outlive static destruction
  return *instance;
}

// Set once a card is open: the runtime calls answer from this card (those of
// cuda_shims.cpp forward here), and kg::launch defers its grids.
std::atomic<bool> deferring{false};
thread_local cudaError_t last_error = cudaSuccess;

std::uint64_t host_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

cudaError_t fail(cudaError_t error) {
  last_error = error;
  return error;
}

unsigned long long id_of(cudaStream_t stream) { return stream ? stream->id : 0; }

// ---- contexts ---------------------------------------------------------------

// Gives up the exclusive-process lock, if this process holds it. The file
// stays: like a device node, it is the card's, whoever holds it next.
void release_lock(Simulator& s) {
  if (s.lock_fd < 0) return;
  ::close(s.lock_fd);
  s.lock_fd = -1;
}

// The context of this process, created on first need as the runtime does. An
// EXCLUSIVE_PROCESS card admits one at a time (a lock on the file its run
// shares); a PROHIBITED one none.
cudaError_t ensure_context(Simulator& s) {
  if (s.context) return cudaSuccess;
  if (s.script.compute_mode == cudaComputeModeProhibited) return cudaErrorDevicesUnavailable;
  const bool exclusive = s.script.compute_mode == cudaComputeModeExclusiveProcess ||
                         s.script.compute_mode == cudaComputeModeExclusive;
  if (exclusive && !s.script.lock_file.empty()) {
    const int fd = ::open(s.script.lock_file.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) return cudaErrorDevicesUnavailable;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return cudaErrorDevicesUnavailable;
    }
    s.lock_fd = fd;  // released with the context, or when the process ends
  }
  s.context = true;
  s.streams[nullptr] = StreamQueue{};
  return cudaSuccess;
}

// The first error a call must return before doing anything: the sticky
// fault, or no context to be had.
cudaError_t enter(Simulator& s) {
  if (s.sticky != cudaSuccess) return fail(s.sticky);
  if (const cudaError_t status = ensure_context(s); status != cudaSuccess) return fail(status);
  return cudaSuccess;
}

// enter(), then the event must be one this runtime made and has not destroyed.
cudaError_t enter_with_event(Simulator& s, cudaEvent_t event) {
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  return s.events.count(event) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

// ---- memory -----------------------------------------------------------------

// What [pointer, pointer + bytes) is: inside one device or pinned
// allocation, or host memory the runtime does not know. Part of a range
// inside an allocation and part outside it is cudaErrorInvalidValue.
cudaError_t classify(const Simulator& s, const void* pointer, std::size_t bytes, Region& region) {
  region = Region::host;
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  auto found = s.allocations.upper_bound(address);
  if (found == s.allocations.begin()) return cudaSuccess;
  --found;
  const std::uintptr_t begin = found->first, end = begin + found->second.bytes;
  if (address >= end) return cudaSuccess;
  if (address + bytes > end) return cudaErrorInvalidValue;
  region = found->second.device ? Region::device : Region::pinned;
  return cudaSuccess;
}

// The direction a copy names must be the one its pointers have.
bool direction_holds(cudaMemcpyKind kind, Region from, Region to) {
  const bool from_device = from == Region::device, to_device = to == Region::device;
  switch (kind) {
    case cudaMemcpyHostToDevice: return !from_device && to_device;
    case cudaMemcpyDeviceToHost: return from_device && !to_device;
    case cudaMemcpyDeviceToDevice: return from_device && to_device;
    case cudaMemcpyHostToHost: return !from_device && !to_device;
    case cudaMemcpyDefault: return true;
  }
  return false;
}

// ---- running stream work ----------------------------------------------------

void record_activity(Simulator& s, Activity::Kind kind, std::string name, std::uint64_t bytes,
                     unsigned long long stream, std::uint64_t start, std::uint64_t end) {
  if (s.recording[static_cast<int>(kind)])
    s.activities.push_back({kind, std::move(name), bytes, stream, start, end});
}

void drop_all_work(Simulator& s) {
  for (auto& [stream, queue] : s.streams) queue.work.clear();
  s.orphans.clear();
}

void run_kernel(Simulator& s, Operation& op) {
  if (++s.kernels_run == s.script.fault_at_kernel) {
    s.sticky = cudaErrorIllegalAddress;  // as an out-of-bounds access on a GPU
    drop_all_work(s);
    return;
  }
  const std::uint64_t start = host_ns();
  try {
    run_grid(op.launch, op.invocation);
  } catch (const std::exception& e) {
    // On a GPU a kernel that breaks its launch leaves an unspecified launch failure.
    std::fprintf(stderr, "kernelgate: simulated GPU: a kernel failed: %s\n", e.what());
    s.sticky = cudaErrorLaunchFailure;
    drop_all_work(s);
    return;
  }
  record_activity(s, Activity::Kind::kernel, kernel_symbol(op.launch.kernel), 0, op.stream_id, start, host_ns());
}

void execute(Simulator& s, Operation& op) {
  if (s.sticky != cudaSuccess) return;  // work after a fault never runs
  switch (op.kind) {
    case Operation::Kind::kernel:
      run_kernel(s, op);
      return;
    case Operation::Kind::memcpy:
    case Operation::Kind::memset: {
      const std::uint64_t start = host_ns();
      op.work();
      record_activity(s, op.kind == Operation::Kind::memcpy ? Activity::Kind::memcpy : Activity::Kind::memset, "",
                      op.bytes, op.stream_id, start, host_ns());
      return;
    }
    case Operation::Kind::event:
      // A later record of the same event replaces this one.
      if (s.events.count(op.event) && op.event->seq == op.seq) {
        op.event->time_ns = host_ns();
        op.event->completed = true;
      }
      return;
    case Operation::Kind::hold:
      // Waited for before the host released it: on a GPU the hold would spin
      // until its limit, then let the stream go on.
      if (!op.hold->released) op.hold->expired = true;
      return;
  }
}

// Runs `queue`'s work issued up to `through` (its sequence number).
void drain(Simulator& s, StreamQueue& queue, std::uint64_t through = UINT64_MAX) {
  while (!queue.work.empty() && queue.work.front().seq <= through) {
    Operation op = std::move(queue.work.front());
    queue.work.pop_front();
    execute(s, op);
  }
}

// Runs all work of every stream, in the order it was issued.
void drain_everything(Simulator& s) {
  for (;;) {
    StreamQueue* first = nullptr;
    auto consider = [&](StreamQueue& queue) {
      if (!queue.work.empty() && (!first || queue.work.front().seq < first->work.front().seq)) first = &queue;
    };
    for (auto& [stream, queue] : s.streams) consider(queue);
    for (auto& queue : s.orphans) consider(queue);
    if (!first) break;
    Operation op = std::move(first->work.front());
    first->work.pop_front();
    execute(s, op);
  }
  s.orphans.clear();
}

// The null stream and the blocking streams wait for each other's earlier work.
void drain_blocking_streams(Simulator& s, cudaStream_t except) {
  for (auto& [stream, queue] : s.streams)
    if (stream != except && queue.blocking) drain(s, queue);
}

cudaError_t enqueue(Simulator& s, cudaStream_t stream, Operation op) {
  const auto found = s.streams.find(stream);
  if (found == s.streams.end()) return fail(cudaErrorInvalidResourceHandle);
  if (found->second.blocking) drain_blocking_streams(s, stream);
  op.seq = s.next_seq++;
  op.stream_id = id_of(stream);
  found->second.work.push_back(std::move(op));
  return cudaSuccess;
}

// Runs `stream`'s work through the operation just issued on it.
void finish_on(Simulator& s, cudaStream_t stream) {
  const auto found = s.streams.find(stream);
  if (found != s.streams.end()) drain(s, found->second);
}

cudaError_t sticky_or_success(const Simulator& s) { return s.sticky != cudaSuccess ? fail(s.sticky) : cudaSuccess; }

// Frees an allocation of the given kind that starts at `pointer`.
cudaError_t free_allocation(void* pointer, bool device) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  if (pointer == nullptr) return cudaSuccess;
  const auto found = s.allocations.find(reinterpret_cast<std::uintptr_t>(pointer));
  if (found == s.allocations.end() || found->second.device != device) return fail(cudaErrorInvalidValue);
  drain_everything(s);  // freeing waits for the device, as the runtime does
  if (device) s.device_bytes -= static_cast<std::int64_t>((found->second.bytes + 255) / 256 * 256);
  s.allocations.erase(found);
  std::free(pointer);
  return sticky_or_success(s);
}

}  // namespace

// ---- the simulated GPU's own interface ---------------------------------------

namespace sim {

const Card* find_card(const std::string& key) {
  for (const Card& c : cards())
    if (c.key == key) return &c;
  return nullptr;
}

std::vector<std::string> card_keys() {
  std::vector<std::string> keys;
  for (const Card& c : cards()) keys.push_back(c.key);
  return keys;
}

void open(const Card& opened, const Script& scripted) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  s.card = opened;
  s.script = scripted;
  // A new card: its fault counts and samples start again.
  s.kernels_run = 0;
  s.samples_started = 0;
  s.sample_open = false;
  s.persisting_l2_resets = 0;
  deferring = true;
}

bool is_open() { return deferring.load(); }

std::uint64_t persisting_l2_resets() {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  return s.persisting_l2_resets;
}

const Card& card() { return simulator().card; }
const Script& script() { return simulator().script; }

ClockReading clock_now() {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  const int boost = s.card.boost_clock_mhz;
  const int set = s.script.sm_clock_mhz > 0 ? s.script.sm_clock_mhz : boost;
  // Both readings of a sample see it: before its hold, the one about to start.
  const std::uint64_t sample = s.sample_open ? s.samples_started : s.samples_started + 1;
  const std::uint64_t share = static_cast<std::uint64_t>(std::max(s.script.throttle_permille, 0));
  const bool throttled = share > 0 && (sample * share) % 1000 < share;
  ClockReading reading{throttled ? s.script.throttle_mhz : set, 0};
  if (set < boost) reading.event_reasons |= 0x2;  // applications clocks setting (a locked clock)
  if (throttled) reading.event_reasons |= 0x8;    // hardware slowdown
  return reading;
}

cudaError_t enqueue_hold(cudaStream_t stream, std::shared_ptr<Hold> hold) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  ++s.samples_started;
  s.sample_open = true;
  Operation op;
  op.kind = Operation::Kind::hold;
  op.hold = std::move(hold);
  return enqueue(s, stream, std::move(op));
}

void record_activities(Activity::Kind kind, bool on) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  s.recording[static_cast<int>(kind)] = on;
}

std::vector<Activity> take_activities() {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  return std::exchange(s.activities, {});
}

std::uint64_t now_ns() { return host_ns(); }

long long stream_id(cudaStream_t stream) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  return s.streams.count(stream) ? static_cast<long long>(id_of(stream)) : -1;
}

}  // namespace sim

bool launches_deferred() { return deferring.load(std::memory_order_relaxed); }

void defer_launch(const LaunchConfig& config, KernelInvocation invocation, std::shared_ptr<const void> keep) {
  check_and_record_launch(config);  // before the lock: it refuses a launch from inside a kernel
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  cudaError_t status = enter(s);
  if (status == cudaSuccess) {
    Operation op;
    op.kind = Operation::Kind::kernel;
    op.launch = config;
    op.invocation = invocation;
    op.keep = std::move(keep);
    status = enqueue(s, config.stream, std::move(op));
  }
  if (status != cudaSuccess)
    throw Error(std::string("kernel launch failed: ") + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

// ---- the runtime calls -------------------------------------------------------

namespace simulated {

cudaError_t get_last_error() {
  const Simulator& s = simulator();
  if (s.sticky != cudaSuccess) return s.sticky;
  return std::exchange(last_error, cudaSuccess);
}

cudaError_t peek_at_last_error() {
  const Simulator& s = simulator();
  return s.sticky != cudaSuccess ? s.sticky : last_error;
}

cudaError_t memset_async(void* dst, int value, std::size_t count, cudaStream_t stream) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  Region region;
  if (classify(s, dst, count, region) != cudaSuccess || (count > 0 && region != Region::device))
    return fail(cudaErrorInvalidValue);
  Operation op;
  op.kind = Operation::Kind::memset;
  op.bytes = count;
  op.work = [dst, value, count] { std::memset(dst, value, count); };
  return enqueue(s, stream, std::move(op));
}

cudaError_t memcpy_async(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  if (count == 0) return cudaSuccess;
  Region from, to;
  if (dst == nullptr || src == nullptr || classify(s, src, count, from) != cudaSuccess ||
      classify(s, dst, count, to) != cudaSuccess || !direction_holds(kind, from, to))
    return fail(cudaErrorInvalidValue);
  Operation op;
  op.kind = Operation::Kind::memcpy;
  op.bytes = count;
  if (from == Region::host) {
    // Pageable host memory is read when the call is made, as the runtime stages it.
    auto staged = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char*>(src),
                                                               static_cast<const unsigned char*>(src) + count);
    op.work = [dst, staged] { std::memcpy(dst, staged->data(), staged->size()); };
  } else {
    op.work = [dst, src, count] { std::memmove(dst, src, count); };
  }
  if (const cudaError_t status = enqueue(s, stream, std::move(op)); status != cudaSuccess) return status;
  // Into pageable host memory the call returns once the copy is done.
  if (to == Region::host) finish_on(s, stream);
  return sticky_or_success(s);
}

cudaError_t memset_blocking(void* dst, int value, std::size_t count) {
  const cudaError_t status = memset_async(dst, value, count, nullptr);
  return status != cudaSuccess ? status : device_synchronize();
}

cudaError_t memcpy_blocking(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  const cudaError_t status = memcpy_async(dst, src, count, kind, nullptr);
  return status != cudaSuccess ? status : device_synchronize();
}

cudaError_t stream_create(cudaStream_t* stream, unsigned int flags) {
  static std::atomic<unsigned long long> next_id{1000};  // beside interpret mode's own ids
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (stream == nullptr || (flags & ~cudaStreamNonBlocking) != 0) return fail(cudaErrorInvalidValue);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  *stream = new CUstream_st{next_id.fetch_add(1)};
  s.streams[*stream] = StreamQueue{.blocking = (flags & cudaStreamNonBlocking) == 0, .work = {}};
  return cudaSuccess;
}

cudaError_t stream_destroy(cudaStream_t stream) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  const auto found = s.streams.find(stream);
  if (stream == nullptr || found == s.streams.end()) return fail(cudaErrorInvalidResourceHandle);
  // The call returns at once; the stream's work still runs (CUDA's contract).
  if (!found->second.work.empty()) s.orphans.push_back(std::move(found->second));
  s.streams.erase(found);
  s.access_windows.erase(stream);
  delete stream;
  return cudaSuccess;
}

cudaError_t stream_synchronize(cudaStream_t stream) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  const auto found = s.streams.find(stream);
  if (found == s.streams.end()) return fail(cudaErrorInvalidResourceHandle);
  if (found->second.blocking) drain_blocking_streams(s, stream);
  drain(s, found->second);
  return sticky_or_success(s);
}

cudaError_t device_synchronize() {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  drain_everything(s);
  s.sample_open = false;
  return sticky_or_success(s);
}

cudaError_t get_device_count(int* count) {
  if (count == nullptr) return fail(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t driver_get_version(int* version) {
  if (version == nullptr) return fail(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t device_set_limit(cudaLimit limit, std::size_t value) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (limit != cudaLimitPersistingL2CacheSize) return fail(cudaErrorUnsupportedLimit);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  // As the runtime does, a limit above what the card can set aside is
  // clamped (here to the whole L2).
  s.persisting_l2_limit = std::min<std::size_t>(value, static_cast<std::size_t>(s.card.l2_cache_bytes));
  return cudaSuccess;
}

cudaError_t device_get_limit(std::size_t* value, cudaLimit limit) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (value == nullptr) return fail(cudaErrorInvalidValue);
  if (limit != cudaLimitPersistingL2CacheSize) return fail(cudaErrorUnsupportedLimit);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  *value = s.persisting_l2_limit;
  return cudaSuccess;
}

cudaError_t reset_persisting_l2() {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  ++s.persisting_l2_resets;  // no line is modelled: counted, for the tests
  return cudaSuccess;
}

cudaError_t stream_set_attribute(cudaStream_t stream, cudaStreamAttrID attribute, const cudaStreamAttrValue* value) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (value == nullptr || attribute != cudaStreamAttributeAccessPolicyWindow) return fail(cudaErrorInvalidValue);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  if (!s.streams.count(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (value->accessPolicyWindow.num_bytes == 0)
    s.access_windows.erase(stream);
  else
    s.access_windows[stream] = value->accessPolicyWindow;
  return cudaSuccess;
}

cudaError_t stream_get_attribute(cudaStream_t stream, cudaStreamAttrID attribute, cudaStreamAttrValue* value) {
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (value == nullptr || attribute != cudaStreamAttributeAccessPolicyWindow) return fail(cudaErrorInvalidValue);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  if (!s.streams.count(stream)) return fail(cudaErrorInvalidResourceHandle);
  const auto found = s.access_windows.find(stream);
  value->accessPolicyWindow = found != s.access_windows.end() ? found->second : cudaAccessPolicyWindow{};
  return cudaSuccess;
}

}  // namespace simulated
}  // namespace kg::interp

// ---- the calls only a GPU answers --------------------------------------------
//
// Interpret mode proper has no device: each of these answers
// cudaErrorNoDevice until a simulated card is open. The calls that interpret
// mode answers itself are in cuda_shims.cpp, which forwards them to the
// `simulated` functions above while a card is open.

using namespace kg::interp;

cudaError_t cudaSetDevice(int device) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  if (device != 0) return fail(cudaErrorInvalidDevice);
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  // Since CUDA 12.0 cudaSetDevice creates the device's primary context.
  return enter(s);
}

cudaError_t cudaGetDevice(int* device) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  if (device == nullptr) return fail(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceReset() {
  if (!sim::is_open()) return cudaErrorNoDevice;
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  drop_all_work(s);
  for (auto& [address, allocation] : s.allocations) std::free(reinterpret_cast<void*>(address));
  s.allocations.clear();
  s.device_bytes = 0;
  for (CUevent_st* event : s.events) delete event;
  s.events.clear();
  for (auto& [stream, queue] : s.streams) delete stream;
  s.streams.clear();
  s.persisting_l2_limit = 0;
  s.access_windows.clear();
  s.persisting_l2_resets = 0;
  release_lock(s);  // the exclusive-process lock goes with the context
  s.context = false;
  s.sticky = cudaSuccess;
  s.sample_open = false;
  last_error = cudaSuccess;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* properties, int device) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  if (properties == nullptr) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  const sim::Card& c = simulator().card;
  *properties = cudaDeviceProp{};
  std::snprintf(properties->name, sizeof properties->name, "%s", c.name.c_str());
  properties->totalGlobalMem = static_cast<std::size_t>(c.memory_bytes);
  properties->major = c.compute_capability_major;
  properties->minor = c.compute_capability_minor;
  properties->multiProcessorCount = c.sm_count;
  properties->l2CacheSize = static_cast<int>(c.l2_cache_bytes);
  properties->memoryBusWidth = c.memory_bus_width_bits;
  properties->ECCEnabled = 1;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  if (value == nullptr) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  const Simulator& s = simulator();
  switch (attribute) {
    case cudaDevAttrClockRate: *value = s.card.boost_clock_mhz * 1000; return cudaSuccess;
    case cudaDevAttrMultiProcessorCount: *value = s.card.sm_count; return cudaSuccess;
    case cudaDevAttrComputeMode: *value = s.script.compute_mode; return cudaSuccess;
    case cudaDevAttrMemoryClockRate: *value = s.card.memory_clock_mhz * 1000; return cudaSuccess;
  }
  return fail(cudaErrorInvalidValue);
}

cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int length, int device) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  if (bus_id == nullptr || length <= 0) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  std::snprintf(bus_id, static_cast<std::size_t>(length), "%s", "00000000:5A:00.0");
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** pointer, std::size_t bytes) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (pointer == nullptr) return fail(cudaErrorInvalidValue);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  *pointer = nullptr;
  if (bytes == 0) return cudaSuccess;
  const std::size_t rounded = (bytes + 255) / 256 * 256;  // cudaMalloc's alignment
  if (s.device_bytes + static_cast<std::int64_t>(rounded) > s.card.memory_bytes)
    return fail(cudaErrorMemoryAllocation);
  void* memory = std::aligned_alloc(256, rounded);
  if (memory == nullptr) return fail(cudaErrorMemoryAllocation);
  s.allocations[reinterpret_cast<std::uintptr_t>(memory)] = Allocation{.bytes = bytes, .device = true};
  s.device_bytes += static_cast<std::int64_t>(rounded);
  *pointer = memory;
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** pointer, std::size_t bytes, unsigned int flags) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (pointer == nullptr || (flags & ~cudaHostAllocMapped) != 0) return fail(cudaErrorInvalidValue);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  void* memory = std::aligned_alloc(256, (std::max<std::size_t>(bytes, 1) + 255) / 256 * 256);
  if (memory == nullptr) return fail(cudaErrorMemoryAllocation);
  s.allocations[reinterpret_cast<std::uintptr_t>(memory)] = Allocation{.bytes = bytes, .device = false};
  *pointer = memory;
  return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void** device_pointer, void* host_pointer, unsigned int flags) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (device_pointer == nullptr || flags != 0) return fail(cudaErrorInvalidValue);
  Region region;
  if (classify(s, host_pointer, 1, region) != cudaSuccess || region != Region::pinned)
    return fail(cudaErrorInvalidValue);
  *device_pointer = host_pointer;  // unified addressing: the same address on both sides
  return cudaSuccess;
}

cudaError_t cudaFree(void* pointer) { return sim::is_open() ? free_allocation(pointer, true) : cudaErrorNoDevice; }

cudaError_t cudaFreeHost(void* pointer) {
  return sim::is_open() ? free_allocation(pointer, false) : cudaErrorNoDevice;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (event == nullptr || (flags & ~cudaEventDisableTiming) != 0) return fail(cudaErrorInvalidValue);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  *event = new CUevent_st{};
  (*event)->timing = (flags & cudaEventDisableTiming) == 0;
  s.events.insert(*event);
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (const cudaError_t status = enter_with_event(s, event); status != cudaSuccess) return status;
  Operation op;
  op.kind = Operation::Kind::event;
  op.event = event;
  const std::uint64_t seq = s.next_seq;  // what enqueue gives the record
  if (const cudaError_t status = enqueue(s, stream, std::move(op)); status != cudaSuccess) return status;
  event->recorded = true;
  event->completed = false;
  event->seq = seq;
  event->stream = stream;
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (const cudaError_t status = enter_with_event(s, event); status != cudaSuccess) return status;
  if (!event->recorded || event->completed) return cudaSuccess;
  const auto found = s.streams.find(event->stream);
  if (found == s.streams.end()) {
    drain_everything(s);  // its stream was destroyed: its work runs with everyone's
  } else {
    if (found->second.blocking) drain_blocking_streams(s, event->stream);
    drain(s, found->second, event->seq);
  }
  return sticky_or_success(s);
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (const cudaError_t status = enter_with_event(s, event); status != cudaSuccess) return status;
  return event->recorded && !event->completed ? cudaErrorNotReady : cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (const cudaError_t status = enter(s); status != cudaSuccess) return status;
  if (ms == nullptr) return fail(cudaErrorInvalidValue);
  if (!s.events.count(start) || !s.events.count(end)) return fail(cudaErrorInvalidResourceHandle);
  // An event never recorded, or made without timing, has no time to give.
  if (!start->timing || !end->timing || !start->recorded || !end->recorded)
    return fail(cudaErrorInvalidResourceHandle);
  if (!start->completed || !end->completed) return fail(cudaErrorNotReady);
  *ms = static_cast<float>((static_cast<double>(end->time_ns) - static_cast<double>(start->time_ns)) / 1e6);
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (!sim::is_open()) return cudaErrorNoDevice;
  Simulator& s = simulator();
  std::lock_guard lock(s.mutex);
  if (!s.events.erase(event)) return fail(cudaErrorInvalidResourceHandle);
  delete event;
  return cudaSuccess;
}
