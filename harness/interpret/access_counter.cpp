// Interpret mode's counters (counters.hpp): the registry of global memory,
// the totals, the rebuilding of warp-level requests, and the entry points the
// compiler's access instrumentation calls.
#include "access_counter.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "block_runner.hpp"
#include "kernel_symbols.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/json_members.hpp"

namespace kg::interp {

namespace {

// One registered range of global memory and, while counting, a bit per byte
// read and per byte written by the current launch (its footprint).
struct GlobalRange {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::unique_ptr<std::atomic<std::uint64_t>[]> read_bits, write_bits;
  std::size_t words() const { return (end - begin + 63) / 64; }
};

std::mutex registry_mutex;
std::vector<GlobalRange> ranges;  // sorted by begin; fixed while counting
std::atomic<bool> counting_on{false};
Counters totals;         // under registry_mutex
Counters launch_counts;  // the blocks of the launch running now, under registry_mutex
Counters tail_counts;    // of those, the grid's last block, under registry_mutex
std::atomic<std::uint64_t> sample_per_launch{0};
// Some block of this counting session hit kMaxLiveRequests: its counts, and
// so the session's, will be reported as not counted.
std::atomic<bool> gave_up_counting{false};

// The counts a block makes, which a sample of blocks scales to the grid.
constexpr std::uint64_t Counters::*kPerBlockCounts[] = {
    &Counters::global_load_requests, &Counters::global_store_requests, &Counters::global_load_sectors,
    &Counters::global_store_sectors, &Counters::global_bytes_requested, &Counters::global_load_waits,
    &Counters::shared_requests,      &Counters::shared_wavefronts,     &Counters::shared_wavefronts_ideal,
    &Counters::mma_m16n8k8_flops,    &Counters::wgmma_flops,           &Counters::cp_async_bytes,
    &Counters::barriers};
// The counts count_launch makes per launch; with those above, every count
// that sums (the maxima and `incomplete` are the rest).
constexpr std::uint64_t Counters::*kPerLaunchCounts[] = {
    &Counters::launches,        &Counters::blocks,           &Counters::blocks_run,
    &Counters::threads,         &Counters::dram_read_bytes,  &Counters::dram_write_bytes,
    &Counters::launches_without_resources};
thread_local AccessCounter* tls_counter = nullptr;

// The first registered range that begins after `address`.
std::vector<GlobalRange>::iterator first_after(std::uintptr_t address) {
  return std::upper_bound(ranges.begin(), ranges.end(), address,
                          [](std::uintptr_t a, const GlobalRange& r) { return a < r.begin; });
}

GlobalRange* range_of(std::uintptr_t address) {
  const auto after = first_after(address);
  if (after == ranges.begin()) return nullptr;
  GlobalRange& range = *(after - 1);
  return address < range.end ? &range : nullptr;
}

// Sets the footprint bits of [address, address + bytes), clipped to the range.
void mark(GlobalRange& range, std::uintptr_t address, std::size_t bytes, bool write) {
  auto* bits = write ? range.write_bits.get() : range.read_bits.get();
  const std::uintptr_t last = std::min<std::uintptr_t>(address + bytes, range.end);
  for (std::uintptr_t byte = address - range.begin; byte < last - range.begin;) {
    const std::size_t word = byte / 64, bit = byte % 64;
    const std::size_t span = std::min<std::size_t>(64 - bit, last - range.begin - byte);
    const std::uint64_t ones = span == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << span) - 1) << bit;
    // Most bytes are read again and again: test before the atomic write.
    if ((bits[word].load(std::memory_order_relaxed) & ones) != ones) bits[word].fetch_or(ones, std::memory_order_relaxed);
    byte += span;
  }
}

std::uint64_t take_footprint(std::atomic<std::uint64_t>* bits, std::size_t words) {
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < words; ++i)
    bytes += static_cast<std::uint64_t>(std::popcount(bits[i].exchange(0, std::memory_order_relaxed)));
  return bytes;
}

}  // namespace

Counters& Counters::operator+=(const Counters& o) {
  incomplete = incomplete || o.incomplete;
  max_threads_per_block = std::max(max_threads_per_block, o.max_threads_per_block);
  max_dynamic_smem_bytes = std::max(max_dynamic_smem_bytes, o.max_dynamic_smem_bytes);
  max_registers_per_thread = std::max(max_registers_per_thread, o.max_registers_per_thread);
  max_static_smem_bytes = std::max(max_static_smem_bytes, o.max_static_smem_bytes);
  for (std::uint64_t Counters::*field : kPerBlockCounts) this->*field += o.*field;
  for (std::uint64_t Counters::*field : kPerLaunchCounts) this->*field += o.*field;
  return *this;
}

// The counts by their JSON names (a member's name), in the order reports list
// them.
KG_JSON_MEMBERS(Counters, global_load_requests, global_store_requests, global_load_sectors, global_store_sectors,
                global_bytes_requested, global_load_waits, dram_read_bytes, dram_write_bytes, shared_requests,
                shared_wavefronts, shared_wavefronts_ideal, mma_m16n8k8_flops, wgmma_flops, cp_async_bytes, barriers,
                launches, blocks, blocks_run, threads, max_threads_per_block, max_dynamic_smem_bytes,
                max_registers_per_thread, max_static_smem_bytes, launches_without_resources)

std::vector<std::pair<std::string, std::uint64_t>> named(const Counters& c) {
  // Each sum is listed just before the first count it adds up.
  const std::map<std::string_view, std::pair<std::string, std::uint64_t>> sums = {
      {"global_load_requests", {"global_requests", c.global_requests()}},
      {"dram_read_bytes", {"dram_bytes", c.dram_bytes()}},
      {"mma_m16n8k8_flops", {"tensor_flops", c.tensor_flops()}}};
  std::vector<std::pair<std::string, std::uint64_t>> all;
  for_each_member(c, [&](std::string_view name, std::uint64_t value) {
    if (const auto sum = sums.find(name); sum != sums.end()) all.push_back(sum->second);
    all.emplace_back(name, value);
  });
  return all;
}

void register_global_memory(const void* begin, std::size_t bytes) {
  if (bytes == 0) return;
  std::lock_guard lock(registry_mutex);
  if (counting_on) throw Error("interpret mode: global memory registered while counting");
  GlobalRange range;
  range.begin = reinterpret_cast<std::uintptr_t>(begin);
  range.end = range.begin + bytes;
  const auto at = first_after(range.begin);
  if ((at != ranges.end() && at->begin < range.end) || (at != ranges.begin() && (at - 1)->end > range.begin))
    throw Error("interpret mode: a registered range of global memory overlaps another");
  ranges.insert(at, std::move(range));
}

void unregister_global_memory(const void* begin) {
  std::lock_guard lock(registry_mutex);
  if (counting_on) throw Error("interpret mode: global memory unregistered while counting");
  const auto address = reinterpret_cast<std::uintptr_t>(begin);
  auto found = std::find_if(ranges.begin(), ranges.end(), [&](const GlobalRange& r) { return r.begin == address; });
  if (found == ranges.end()) throw Error("interpret mode: unregistering global memory that is not registered");
  ranges.erase(found);
}

std::size_t registered_global_bytes() {
  std::lock_guard lock(registry_mutex);
  std::size_t bytes = 0;
  for (const GlobalRange& range : ranges) bytes += range.end - range.begin;
  return bytes;
}

void start_counting() {
  if (BlockRunner::active() != nullptr) throw Error("interpret mode: start_counting called inside a kernel");
  std::lock_guard lock(registry_mutex);
  if (counting_on) throw Error("interpret mode: start_counting called while counting");
  totals = Counters{};
  launch_counts = Counters{};
  tail_counts = Counters{};
  gave_up_counting = false;
  for (GlobalRange& range : ranges) {
    range.read_bits = std::make_unique<std::atomic<std::uint64_t>[]>(range.words());
    range.write_bits = std::make_unique<std::atomic<std::uint64_t>[]>(range.words());
  }
  counting_on = true;
}

Counters stop_counting() {
  std::lock_guard lock(registry_mutex);
  counting_on = false;
  for (GlobalRange& range : ranges) {
    range.read_bits.reset();
    range.write_bits.reset();
  }
  return totals;
}

void set_block_sample(std::uint64_t blocks_per_launch) {
  std::lock_guard lock(registry_mutex);
  if (counting_on) throw Error("interpret mode: the block sample changed while counting");
  sample_per_launch = blocks_per_launch;
}

namespace {
ModelledGpu modelled;  // set by the child before it launches, read by the kernel's host code

std::mutex resources_mutex;
std::map<std::string, KernelResources> resources_by_symbol;              // under resources_mutex
std::unordered_map<const void*, std::optional<KernelResources>> found;  // by kernel address, ditto
}  // namespace

void set_modelled_gpu(ModelledGpu gpu) {
  std::lock_guard lock(registry_mutex);
  if (counting_on) throw Error("interpret mode: the modelled GPU changed while counting");
  modelled = std::move(gpu);
}

const ModelledGpu& modelled_gpu() { return modelled; }

void set_kernel_resources(std::map<std::string, KernelResources> by_symbol) {
  std::lock_guard lock(resources_mutex);
  resources_by_symbol.clear();
  for (auto& [symbol, resources] : by_symbol) resources_by_symbol[canonical_kernel_symbol(symbol)] = resources;
  found.clear();
}

std::optional<KernelResources> kernel_resources(const void* kernel) {
  std::lock_guard lock(resources_mutex);
  auto [at, inserted] = found.try_emplace(kernel);
  if (inserted) {
    const auto entry = resources_by_symbol.find(canonical_kernel_symbol(kernel_symbol(kernel)));
    if (entry != resources_by_symbol.end()) at->second = entry->second;
  }
  return at->second;
}

int modelled_blocks_per_sm(const void* kernel, int threads, std::size_t dynamic_smem_bytes) {
  if (!modelled.blocks_per_sm) return 0;
  const KernelResources resources = kernel_resources(kernel).value_or(KernelResources{});
  return modelled.blocks_per_sm(threads, dynamic_smem_bytes + resources.static_smem_bytes,
                                resources.registers_per_thread);
}

std::uint64_t block_sample() { return sample_per_launch.load(std::memory_order_relaxed); }

std::vector<std::uint64_t> sampled_blocks(std::uint64_t total, std::uint64_t n) {
  std::vector<std::uint64_t> blocks;
  if (n == 0 || n >= total) {
    for (std::uint64_t b = 0; b < total; ++b) blocks.push_back(b);
    return blocks;
  }
  if (n == 1) return {0};
  for (std::uint64_t k = 0; k < n; ++k) {
    const auto at = static_cast<std::uint64_t>((static_cast<unsigned __int128>(k) * (total - 1) + (n - 1) / 2) / (n - 1));
    if (blocks.empty() || blocks.back() != at) blocks.push_back(at);
  }
  return blocks;
}

void count_launch(const void* kernel, std::uint64_t blocks, std::uint64_t blocks_run, bool last_block_ran,
                  unsigned threads_per_block, std::size_t dynamic_smem_bytes) {
  const std::optional<KernelResources> resources = kernel_resources(kernel);
  std::lock_guard lock(registry_mutex);
  // The blocks that ran stand for all of the launch's. The last block (every
  // sample of more than one block has it) stands for itself alone: it is the
  // one that differs most often, a partial tail, or in a persistent grid
  // the block whose tiles are the edges; the others stand for the rest.
  const double scale = blocks_run > 0 ? double(blocks) / double(blocks_run) : 1.0;
  const double others_scale = last_block_ran && blocks_run > 1 ? double(blocks - 1) / double(blocks_run - 1) : scale;
  auto scaled = [](std::uint64_t count, double by) { return static_cast<std::uint64_t>(std::llround(double(count) * by)); };
  Counters launch = launch_counts;
  if (blocks_run < blocks)
    for (std::uint64_t Counters::*field : kPerBlockCounts) launch.*field = scaled(launch.*field, others_scale);
  launch += tail_counts;
  totals += launch;
  launch_counts = Counters{};
  tail_counts = Counters{};
  totals.launches += 1;
  totals.blocks += blocks;
  totals.blocks_run += blocks_run;
  totals.threads += blocks * threads_per_block;
  totals.max_threads_per_block = std::max<std::uint64_t>(totals.max_threads_per_block, threads_per_block);
  totals.max_dynamic_smem_bytes = std::max<std::uint64_t>(totals.max_dynamic_smem_bytes, dynamic_smem_bytes);
  if (resources) {
    totals.max_registers_per_thread =
        std::max<std::uint64_t>(totals.max_registers_per_thread, std::uint64_t(resources->registers_per_thread));
    totals.max_static_smem_bytes = std::max<std::uint64_t>(totals.max_static_smem_bytes, resources->static_smem_bytes);
  } else {
    totals.launches_without_resources += 1;
  }
  for (GlobalRange& range : ranges) {
    const std::uint64_t size = range.end - range.begin;
    totals.dram_read_bytes += std::min(size, scaled(take_footprint(range.read_bits.get(), range.words()), scale));
    totals.dram_write_bytes += std::min(size, scaled(take_footprint(range.write_bits.get(), range.words()), scale));
  }
}

AccessCounter* AccessCounter::active() { return tls_counter; }
bool AccessCounter::counting() { return counting_on.load(std::memory_order_relaxed); }
bool AccessCounter::gave_up() { return gave_up_counting.load(std::memory_order_relaxed); }

std::uint64_t AccessCounter::site_of(const std::source_location& where) {
  // Apart from code addresses (below 2^63): the top bit is set.
  std::uint64_t x = reinterpret_cast<std::uintptr_t>(where.file_name()) * 0x9e3779b97f4a7c15ull ^
                    (std::uint64_t{where.line()} << 20 | where.column());
  x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull;
  return (x ^ (x >> 29)) | std::uint64_t{1} << 63;
}

void AccessCounter::begin_block(unsigned threads, const void* dynamic_smem, std::size_t dynamic_bytes,
                                const void* static_smem, std::size_t static_bytes) {
  dynamic_begin_ = reinterpret_cast<std::uintptr_t>(dynamic_smem);
  dynamic_end_ = dynamic_begin_ + dynamic_bytes;
  static_begin_ = reinterpret_cast<std::uintptr_t>(static_smem);
  static_end_ = static_begin_ + static_bytes;
  warps_used_ = (threads + 31) / 32;
  if (warps_.size() < warps_used_) warps_.resize(warps_used_);
  counts_ = Counters{};
  tls_counter = this;
}

void AccessCounter::end_block(bool last_of_grid) {
  tls_counter = nullptr;
  make_requests();
  std::lock_guard lock(registry_mutex);
  (last_of_grid ? tail_counts : launch_counts) += counts_;
}

void AccessCounter::abandon_block() {
  tls_counter = nullptr;
  for (std::size_t w = 0; w < warps_used_; ++w) warps_[w] = Warp{};
  live_requests_ = 0;
}

void AccessCounter::at_barrier() {
  make_requests();
  ++counts_.barriers;
}

void AccessCounter::access(const void* address, std::size_t bytes, bool write, std::uint64_t site,
                           bool asynchronous) {
  if (counts_.incomplete) return;  // nothing more of this block is counted
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  Kind kind;
  // Banks are counted from the start of the block's shared memory, as a GPU
  // numbers its shared addresses from 0: where the host allocator put the
  // buffer must not change the count.
  std::uintptr_t shared_base = 0;
  if (at >= dynamic_begin_ && at < dynamic_end_) {
    kind = write ? Kind::shared_store : Kind::shared_load;
    shared_base = dynamic_begin_;
  } else if (at >= static_begin_ && at < static_end_) {
    kind = write ? Kind::shared_store : Kind::shared_load;
    shared_base = static_begin_;
  } else if (GlobalRange* range = range_of(at)) {
    if (bytes > 0) mark(*range, at, bytes, write);
    kind = write ? Kind::global_store : asynchronous ? Kind::global_async_load : Kind::global_load;
  } else if (bytes == 0 && asynchronous) {
    // A zero-filling cp.async (src_bytes 0) from anywhere: on a GPU the lane
    // still issues the copy, as part of its warp's request, and reads nothing.
    kind = Kind::global_async_load;
  } else {
    return;  // the stack, a host variable: not memory a kernel's counters see
  }
  if (live_requests_ >= kMaxLiveRequests) {
    counts_.incomplete = true;  // stop here rather than take the memory of the machine
    gave_up_counting = true;
    return;
  }
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  Warp& warp = warps_[thread / 32];
  Request& request = request_for(warp, warp.lanes[thread % 32], site ^ std::uint64_t(kind) << 48, kind);
  // Global memory moves in 32-byte sectors, shared memory in 4-byte words.
  const bool shared = kind == Kind::shared_load || kind == Kind::shared_store;
  const unsigned shift = shared ? 2 : 5;
  const std::uintptr_t from = at - shared_base;
  if (bytes == 0) return;
  if (!shared) request.add_span(from, static_cast<std::uint32_t>(bytes));
  for (std::uint64_t unit = from >> shift; unit <= (from + bytes - 1) >> shift; ++unit) request.add_unit(unit);
}

// A lane's access that starts inside or just after the open span (the next
// lane of a coalesced access, or a broadcast) extends it: the union of the
// spans, all that is counted of them, is the same.
void AccessCounter::Request::add_span(std::uint64_t from, std::uint32_t bytes) {
  if (open_bytes > 0 && from >= open_from && from <= open_from + open_bytes) {
    open_bytes = static_cast<std::uint32_t>(std::max(open_from + open_bytes, from + bytes) - open_from);
    return;
  }
  if (open_bytes > 0) spans.emplace_back(open_from, open_bytes);
  open_from = from;
  open_bytes = bytes;
}

void AccessCounter::Request::add_unit(std::uint64_t unit) {
  if (unit == open_unit) return;
  if (open_unit != kNoUnit) units.push_back(open_unit);
  open_unit = unit;
}

void AccessCounter::Request::close() {
  if (open_bytes > 0) spans.emplace_back(open_from, open_bytes);
  if (open_unit != kNoUnit) units.push_back(open_unit);
  open_bytes = 0;
  open_unit = kNoUnit;
}

AccessCounter::Request& AccessCounter::request_at(Warp& warp, std::uint64_t key, std::uint32_t nth, Kind kind) {
  auto [found, made] = warp.index.try_emplace({key, nth}, static_cast<std::uint32_t>(warp.requests.size()));
  if (made) {
    Request& request = warp.requests.emplace_back();
    request.key = key;
    request.kind = kind;
    ++live_requests_;
  }
  return warp.requests[found->second];
}

AccessCounter::Request& AccessCounter::request_for(Warp& warp, Lane& lane, std::uint64_t key, Kind kind) {
  if (!lane.diverged) {
    if (lane.position < warp.sequence.size()) {
      Request& next = warp.requests[warp.sequence[lane.position]];
      if (next.key == key) {
        ++lane.position;
        return next;
      }
      // The lane departs from the sequence: its n-th access per key so far
      // are those of the sequence up to here.
      lane.diverged = true;
      for (std::uint32_t i = 0; i < lane.position; ++i) ++lane.nth[warp.requests[warp.sequence[i]].key];
    } else {
      // The lane is the first to go this far: it extends the sequence (with
      // a request a diverged lane may have made already).
      Request& request = request_at(warp, key, warp.sequence_nth[key]++, kind);
      warp.sequence.push_back(static_cast<std::uint32_t>(&request - warp.requests.data()));
      ++lane.position;
      return request;
    }
  }
  return request_at(warp, key, lane.nth[key]++, kind);
}

namespace {

// The bytes a request's lane accesses cover, each once.
std::uint64_t distinct_bytes(std::vector<std::pair<std::uint64_t, std::uint32_t>>& spans) {
  std::sort(spans.begin(), spans.end());
  std::uint64_t total = 0, covered_to = 0;
  for (const auto& [from, bytes] : spans) {
    const std::uint64_t to = from + bytes;
    if (to <= covered_to) continue;
    total += to - std::max(from, covered_to);
    covered_to = to;
  }
  return total;
}

}  // namespace

void AccessCounter::make_requests() {
  for (std::size_t w = 0; w < warps_used_; ++w) {
    Warp& warp = warps_[w];
    bool waits = false;  // for a synchronous load of this interval
    for (Request& request : warp.requests) {
      request.close();
      std::vector<std::uint64_t>& units = request.units;
      std::sort(units.begin(), units.end());
      units.erase(std::unique(units.begin(), units.end()), units.end());
      switch (request.kind) {
        case Kind::global_load:
          waits = true;
          [[fallthrough]];
        case Kind::global_async_load:
          ++counts_.global_load_requests;
          counts_.global_load_sectors += units.size();
          counts_.global_bytes_requested += distinct_bytes(request.spans);
          break;
        case Kind::global_store:
          ++counts_.global_store_requests;
          counts_.global_store_sectors += units.size();
          counts_.global_bytes_requested += distinct_bytes(request.spans);
          break;
        case Kind::shared_load:
        case Kind::shared_store: {
          std::array<std::uint32_t, 32> per_bank{};
          for (std::uint64_t word : units) ++per_bank[word % 32];
          ++counts_.shared_requests;
          counts_.shared_wavefronts += *std::max_element(per_bank.begin(), per_bank.end());
          counts_.shared_wavefronts_ideal += (units.size() + 31) / 32;
          break;
        }
      }
    }
    if (waits) ++counts_.global_load_waits;
    warp = Warp{};
  }
  live_requests_ = 0;
}

}  // namespace kg::interp

// The entry points of the compiler's access instrumentation (-fsanitize=thread
// without its runtime: interpret mode supplies these). The return address is
// the access's place in the kernel's code.
namespace {
inline void note(void* address, std::size_t bytes, bool write, void* site) {
  if (kg::interp::AccessCounter* counter = kg::interp::AccessCounter::active())
    counter->access(address, bytes, write, reinterpret_cast<std::uintptr_t>(site));
}
}  // namespace

#define KG_ACCESS_ENTRY(name, bytes, write)                       \
  extern "C" __attribute__((noinline)) void name(void* address) { \
    note(address, bytes, write, __builtin_return_address(0));                                 \
  }
KG_ACCESS_ENTRY(__tsan_read1, 1, false)
KG_ACCESS_ENTRY(__tsan_read2, 2, false)
KG_ACCESS_ENTRY(__tsan_read4, 4, false)
KG_ACCESS_ENTRY(__tsan_read8, 8, false)
KG_ACCESS_ENTRY(__tsan_read16, 16, false)
KG_ACCESS_ENTRY(__tsan_write1, 1, true)
KG_ACCESS_ENTRY(__tsan_write2, 2, true)
KG_ACCESS_ENTRY(__tsan_write4, 4, true)
KG_ACCESS_ENTRY(__tsan_write8, 8, true)
KG_ACCESS_ENTRY(__tsan_write16, 16, true)
KG_ACCESS_ENTRY(__tsan_unaligned_read2, 2, false)
KG_ACCESS_ENTRY(__tsan_unaligned_read4, 4, false)
KG_ACCESS_ENTRY(__tsan_unaligned_read8, 8, false)
KG_ACCESS_ENTRY(__tsan_unaligned_read16, 16, false)
KG_ACCESS_ENTRY(__tsan_unaligned_write2, 2, true)
KG_ACCESS_ENTRY(__tsan_unaligned_write4, 4, true)
KG_ACCESS_ENTRY(__tsan_unaligned_write8, 8, true)
KG_ACCESS_ENTRY(__tsan_unaligned_write16, 16, true)
#undef KG_ACCESS_ENTRY

extern "C" __attribute__((noinline)) void __tsan_read_range(void* address, unsigned long bytes) {
  note(address, bytes, false, __builtin_return_address(0));
}
extern "C" __attribute__((noinline)) void __tsan_write_range(void* address, unsigned long bytes) {
  note(address, bytes, true, __builtin_return_address(0));
}
// Not memory a kernel's counters see: virtual-table pointers, function entry
// and exit, the runtime's start.
extern "C" void __tsan_vptr_update(void**, void*) {}
extern "C" void __tsan_vptr_read(void**) {}
extern "C" void __tsan_func_entry(void*) {}
extern "C" void __tsan_func_exit() {}
extern "C" void __tsan_init() {}

// Atomics in instrumented code come here too (inline atomic operations of the
// runtime's headers): performed as sequentially consistent operations, which
// is at least as strong as any order asked for, and not counted.
namespace {
template <typename T>
bool compare_exchange(volatile T* address, T* expected, T desired) {
  return __atomic_compare_exchange_n(address, expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
}  // namespace

#define KG_ATOMIC_FETCH(bits, type, op)                                           \
  extern "C" type __tsan_atomic##bits##_fetch_##op(volatile type* a, type v, int) { \
    return __atomic_fetch_##op(a, v, __ATOMIC_SEQ_CST);                              \
  }
#define KG_ATOMIC_ENTRIES(bits, type)                                                                   \
  extern "C" type __tsan_atomic##bits##_load(const volatile type* a, int) {                            \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                        \
  }                                                                                                     \
  extern "C" void __tsan_atomic##bits##_store(volatile type* a, type v, int) {                          \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                           \
  }                                                                                                     \
  extern "C" type __tsan_atomic##bits##_exchange(volatile type* a, type v, int) {                       \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                                 \
  }                                                                                                     \
  KG_ATOMIC_FETCH(bits, type, add)                                                                      \
  KG_ATOMIC_FETCH(bits, type, sub)                                                                      \
  KG_ATOMIC_FETCH(bits, type, and)                                                                      \
  KG_ATOMIC_FETCH(bits, type, or)                                                                       \
  KG_ATOMIC_FETCH(bits, type, xor)                                                                      \
  extern "C" int __tsan_atomic##bits##_compare_exchange_strong(volatile type* a, type* c, type v, int, int) { \
    return compare_exchange(a, c, v);                                                                   \
  }                                                                                                     \
  extern "C" int __tsan_atomic##bits##_compare_exchange_weak(volatile type* a, type* c, type v, int, int) {   \
    return compare_exchange(a, c, v);                                                                   \
  }                                                                                                     \
  extern "C" type __tsan_atomic##bits##_compare_exchange_val(volatile type* a, type c, type v, int, int) {    \
    compare_exchange(a, &c, v);                                                                         \
    return c;                                                                                           \
  }
KG_ATOMIC_ENTRIES(8, std::uint8_t)
KG_ATOMIC_ENTRIES(16, std::uint16_t)
KG_ATOMIC_ENTRIES(32, std::uint32_t)
KG_ATOMIC_ENTRIES(64, std::uint64_t)
#undef KG_ATOMIC_ENTRIES
#undef KG_ATOMIC_FETCH
extern "C" void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
extern "C" void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
