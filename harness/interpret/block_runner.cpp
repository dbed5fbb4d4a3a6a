#include "block_runner.hpp"

#include <link.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <sstream>
#include <tuple>
#include <utility>

#include "kernelgate/error.hpp"

#if defined(KG_INTERPRET_SANITIZE)
#include <sanitizer/asan_interface.h>
#endif

// The linker's bounds of the section every static `__shared__` array lives in
// (qualifiers.hpp): the addresses in the thread-local template, not any
// thread's copy. Weak: null in a program without one.
extern "C" char __start_kg_static_shared[] __attribute__((weak));
extern "C" char __stop_kg_static_shared[] __attribute__((weak));

namespace kg::interp {

namespace {
// Raw pointers keep the per-switch accesses to plain thread-local loads; the
// owner frees the runner (and its stacks) when the host thread ends.
thread_local BlockRunner* tls_runner = nullptr;
thread_local BlockRunner* tls_active_runner = nullptr;  // set while a block runs

std::string hex(unsigned value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

std::string thread_name(const uint3& index) {
  return "thread (" + std::to_string(index.x) + "," + std::to_string(index.y) + "," +
         std::to_string(index.z) + ")";
}

// Shared memory starts as this byte everywhere: 0xffffffff is a NaN.
constexpr unsigned char kSharedPoisonByte = 0xff;

// This host thread's copy of the static `__shared__` section. A thread's
// thread-local block is laid out as the module's template, so the section
// sits at the same offset in both: the template's place is found among the
// program headers (PT_TLS), the thread's block through dlpi_tls_data.
struct StaticShared {
  unsigned char* begin = nullptr;
  std::size_t bytes = 0;
};

StaticShared find_static_shared() {
  const char* start = __start_kg_static_shared;
  const char* stop = __stop_kg_static_shared;
  if (start == nullptr || stop <= start) return {};
  StaticShared found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& header = info->dlpi_phdr[i];
          if (header.p_type != PT_TLS) continue;
          const char* image = reinterpret_cast<const char*>(info->dlpi_addr + header.p_vaddr);
          const char* start = __start_kg_static_shared;
          const char* stop = __stop_kg_static_shared;
          if (start < image || stop > image + header.p_memsz) continue;
          if (info->dlpi_tls_data == nullptr) return 0;
          auto& shared = *static_cast<StaticShared*>(data);
          shared.begin = static_cast<unsigned char*>(info->dlpi_tls_data) + (start - image);
          shared.bytes = static_cast<std::size_t>(stop - start);
          return 1;
        }
        return 0;
      },
      &found);
  if (found.begin == nullptr)
    throw Error("interpret mode cannot find this thread's static __shared__ memory to poison it");
  return found;
}

// Fills every static `__shared__` array of this host thread with the poison
// byte, as dynamic shared memory is at the start of each block: on a GPU a
// block's shared memory starts with whatever was there, never with zeros.
const StaticShared& poison_static_shared() {
  thread_local const StaticShared shared = find_static_shared();
  if (shared.bytes) std::memset(shared.begin, kSharedPoisonByte, shared.bytes);
  return shared;
}

}  // namespace

bool same_site(const WaitSite& a, const WaitSite& b) {
  return a.line == b.line && a.column == b.column &&
         (a.operation == b.operation || std::strcmp(a.operation, b.operation) == 0) &&
         (a.file == b.file || std::strcmp(a.file, b.file) == 0);
}

std::string describe(const WaitSite& site) {
  return std::string(site.operation) + " (" + site.file + ":" + std::to_string(site.line) + ")";
}

WaitSite make_site(const char* operation, const std::source_location& where) {
  return WaitSite{operation, where.file_name(), static_cast<unsigned>(where.line()),
                  static_cast<unsigned>(where.column())};
}

BlockRunner& BlockRunner::of_this_thread() {
  thread_local std::unique_ptr<BlockRunner> owner;
  if (tls_runner == nullptr) {
    owner.reset(new BlockRunner());
    tls_runner = owner.get();
  }
  return *tls_runner;
}

BlockRunner* BlockRunner::active() { return tls_active_runner; }

Fiber& BlockRunner::current_fiber(const char* operation) {
  BlockRunner* runner = tls_active_runner;
  if (runner == nullptr || runner->current_ == nullptr)
    throw Error(std::string(operation) + " called outside a kernel launched by kg::launch");
  return *runner->current_;
}

BlockRunner::BlockRunner()
    : dynamic_smem_(new unsigned char[kMaxDynamicSmemOptIn]), stack_bytes_(fiber_stack_bytes()) {}

std::string BlockRunner::block_name() const {
  return "block (" + std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) + "," +
         std::to_string(blockIdx.z) + ")";
}

void BlockRunner::prepare_fibers(unsigned count) {
  while (fibers_.size() < count) fibers_.emplace_back(stack_bytes_);
#if defined(KG_INTERPRET_SANITIZE)
  // Frames of fibers abandoned by a failed block never ran their epilogues:
  // their stale stack poison would be reported against the next block.
  if (stacks_abandoned_)
    for (Fiber& fiber : fibers_) ASAN_UNPOISON_MEMORY_REGION(fiber.stack.bottom(), fiber.stack.size());
#endif
  stacks_abandoned_ = true;  // until this block ends normally
  const dim3 block = task_->block;
  for (unsigned i = 0; i < count; ++i) {
    Fiber& fiber = fibers_[i];
    fiber.state = FiberState::ready;
    fiber.linear = i;
    fiber.index = uint3{i % block.x, (i / block.x) % block.y, i / (block.x * block.y)};
    fiber.site = WaitSite{};
    fiber.copies.clear();
    fiber.committed_groups = 0;
    fiber.wgmma_results.clear();
    fiber.wgmma_operands.clear();
    fiber.wgmma_groups = 0;
    fiber.wgmma_fenced = false;
    fiber.context = make_fiber_context(fiber.stack, &BlockRunner::fiber_entry);
  }
  const unsigned warp_count = (count + 31) / 32;
  if (warps_.size() < warp_count) warps_.resize(warp_count);
  for (auto& warp : warps_) warp.clear();
  warpgroup_log_.reset(warp_count);
  async_proxy_log_.reset(tracks_async_proxy_ ? task_->dynamic_smem_bytes : 0, count, kSharedPoisonByte);
  ran_since_look_.clear();
  ran_in_look_.assign(tracks_async_proxy_ ? count : 0, 0);
  look_ = 0;
}

void BlockRunner::build_order(std::mt19937_64& rng, bool reshuffle) {
  if (!reshuffle) {
    order_.resize(thread_count_);
    for (unsigned i = 0; i < thread_count_; ++i)
      order_[i] = task_->order.kind == ThreadOrder::Kind::reverse ? thread_count_ - 1 - i : i;
  }
  if (task_->order.kind == ThreadOrder::Kind::random) std::shuffle(order_.begin(), order_.end(), rng);
  position_of_.resize(thread_count_);
  for (unsigned position = 0; position < thread_count_; ++position)
    position_of_[order_[position]] = position;
}

void BlockRunner::run_block(const BlockTask& task, std::uint64_t block_linear) {
  task_ = &task;
  thread_count_ = task.block.x * task.block.y * task.block.z;
  blockDim = task.block;
  gridDim = task.grid;
  blockIdx = uint3{static_cast<unsigned>(block_linear % task.grid.x),
                   static_cast<unsigned>((block_linear / task.grid.x) % task.grid.y),
                   static_cast<unsigned>(block_linear / (std::uint64_t{task.grid.x} * task.grid.y))};
  // The async-proxy log's looks cost several times the rest of a block: only
  // the first and the last block of a launch of a kernel seen to issue wgmma
  // pay for them, two per kernel and process (async_proxy_log.hpp).
  const std::uint64_t blocks = std::uint64_t{task.grid.x} * task.grid.y * task.grid.z;
  tracks_async_proxy_ =
      task.dynamic_smem_bytes > 0 &&
      AsyncProxyLog::track_block_of(task.kernel, block_linear == 0 || block_linear + 1 == blocks);
  prepare_fibers(thread_count_);
  live_ = thread_count_;
  failure_ = nullptr;

  // Shared memory, dynamic and static, starts as NaN bytes, so reading what
  // no thread wrote (or a cp.async destination before its wait) shows up in
  // the result.
#if defined(KG_INTERPRET_SANITIZE)
  // Bytes beyond the requested size are out of bounds for the sanitizer.
  ASAN_UNPOISON_MEMORY_REGION(dynamic_smem_.get(), kMaxDynamicSmemOptIn);
  ASAN_POISON_MEMORY_REGION(dynamic_smem_.get() + task.dynamic_smem_bytes,
                            kMaxDynamicSmemOptIn - task.dynamic_smem_bytes);
#endif
  std::memset(dynamic_smem_.get(), kSharedPoisonByte, task.dynamic_smem_bytes);
  const StaticShared& static_shared = poison_static_shared();

  std::mt19937_64 rng(split_mix(task.order.seed ^ split_mix(block_linear)));
  build_order(rng, false);

  struct ActiveScope {
    explicit ActiveScope(BlockRunner* runner) { tls_active_runner = runner; }
    ~ActiveScope() { tls_active_runner = nullptr; }
  } active_scope(this);
  // While counting, this block's loads and stores go to its access counter.
  struct CountingScope {
    AccessCounter* counter;
    ~CountingScope() {
      if (counter) counter->abandon_block();  // the block failed
    }
  } counting{AccessCounter::counting() ? &access_counter_ : nullptr};
  if (counting.counter)
    counting.counter->begin_block(thread_count_, dynamic_smem_.get(), task.dynamic_smem_bytes, static_shared.begin,
                                  static_shared.bytes);

  for (;;) {
    // Sweep the order until no thread is ready: a sweep ends when a fiber
    // finds no ready fiber after it. A warp operation that completes moves
    // the sweep back to the lanes it released (warp_collective), so between
    // two barriers the warps run one after another in the order's sense:
    // with `forward` warp 0 runs to the barrier before warp 1 starts, with
    // `reverse` the last warp does.
    for (;;) {
      position_ = 0;
      Fiber* first = next_ready();
      if (first == nullptr) break;
      resume(*first);
      if (failure_) std::rethrow_exception(failure_);
    }
    if (live_ == 0) break;
    release_barrier();
    if (counting.counter) counting.counter->at_barrier();
    build_order(rng, true);
  }
  stacks_abandoned_ = false;
  warpgroup_log_.check_complete();
  if (counting.counter)
    std::exchange(counting.counter, nullptr)
        ->end_block(block_linear + 1 == std::uint64_t{task.grid.x} * task.grid.y * task.grid.z);
}

// Switches pass, as data, the slot where the context they leave is to be
// stored: the one who arrives stores it (arrived()). A fiber that suspends
// hands over directly to the next ready fiber in the order, and only returns
// to the scheduler at the end of a sweep: one switch per thread, not two.

Fiber* BlockRunner::next_ready() {
  while (position_ < order_.size()) {
    Fiber& fiber = fibers_[order_[position_++]];
    if (fiber.state == FiberState::ready) return &fiber;
  }
  return nullptr;
}

void BlockRunner::arrived(const FiberTransfer& transfer) {
  auto* slot = static_cast<FiberContext*>(transfer.data);
  *slot = transfer.fctx;
}

void BlockRunner::resume(Fiber& fiber) {
  current_ = &fiber;
  running(fiber);
  threadIdx = fiber.index;
  SanitizerSwitch note;
  note.start(fiber.stack.bottom(), fiber.stack.size());
  const FiberTransfer back = jump(fiber.context, &scheduler_context_);
  note.finish();
  arrived(back);
  current_ = nullptr;
}

void BlockRunner::running(const Fiber& fiber) {
  if (!tracks_async_proxy_ || ran_in_look_[fiber.linear] == look_ + 1) return;
  ran_in_look_[fiber.linear] = look_ + 1;
  ran_since_look_.push_back(fiber.linear);
}

void BlockRunner::note_shared_writes(bool stops) {
  if (!tracks_async_proxy_) return;
  async_proxy_log_.note_writes(ran_since_look_, dynamic_smem_.get());
  ran_since_look_.clear();
  ++look_;
  if (!stops) running(*current_);  // what it writes next is its own
}

void BlockRunner::kernel_reads_through_async_proxy() {
  if (!tracks_async_proxy_) AsyncProxyLog::learn_kernel(task_->kernel);
}

void BlockRunner::suspend(bool dying) {
  Fiber* self = current_;
  Fiber* next = failure_ ? nullptr : next_ready();
  SanitizerSwitch note;
  FiberTransfer back;
  if (next != nullptr) {
    current_ = next;
    running(*next);
    threadIdx = next->index;
    note.start(next->stack.bottom(), next->stack.size(), dying);
    back = jump(next->context, &self->context);
  } else {
    current_ = nullptr;
    note.start(scheduler_stack_bottom_, scheduler_stack_size_, dying);
    back = jump(scheduler_context_, &self->context);
  }
  note.finish();
  arrived(back);
  current_ = self;
  threadIdx = self->index;
}

void BlockRunner::fiber_entry(FiberTransfer transfer) {
  BlockRunner& runner = *tls_runner;
  // Only the scheduler's stack needs telling apart for the sanitizers: learn
  // its bounds when a fiber starts from it.
  SanitizerSwitch arrival;
  const void* from_bottom = nullptr;
  std::size_t from_size = 0;
  arrival.finish(&from_bottom, &from_size);
  if (transfer.data == &runner.scheduler_context_) {
    runner.scheduler_stack_bottom_ = from_bottom;
    runner.scheduler_stack_size_ = from_size;
  }
  arrived(transfer);
  Fiber& fiber = *runner.current_;
#if defined(KG_INTERPRET_SANITIZE)
  // The last fiber on this stack ended inside suspend(), whose frames never
  // returned: clear their stale poison below this frame before running.
  {
    char* frame = static_cast<char*>(__builtin_frame_address(0));
    char* bottom = static_cast<char*>(fiber.stack.bottom());
    char* low = frame - bottom > 64 * 1024 ? frame - 64 * 1024 : bottom;
    ASAN_UNPOISON_MEMORY_REGION(low, static_cast<std::size_t>(frame - low));
  }
#endif
  try {
    runner.task_->invocation.invoke(runner.task_->invocation.context);
    // A thread that returns while lanes of its warp wait for it deadlocks them.
    runner.check_no_warp_waits_for(fiber, nullptr);
    if (!fiber.wgmma_results.empty())
      throw Error("thread " + std::to_string(fiber.linear) + " of " + runner.block_name() +
                  " returned with a wgmma not waited for (a wgmma_wait<0> is missing)");
  } catch (...) {
    runner.record_failure(std::current_exception());
  }
  if (!runner.failure_) runner.note_shared_writes(/*stops=*/true);
  fiber.state = FiberState::exited;
  --runner.live_;
  runner.suspend(/*dying=*/true);
  std::abort();  // an exited fiber is never resumed
}

void BlockRunner::record_failure(std::exception_ptr failure) {
  if (!failure_) failure_ = std::move(failure);
}

unsigned BlockRunner::existing_lanes(unsigned warp) const {
  const unsigned first = warp * 32;
  const unsigned count = std::min(32u, thread_count_ - first);
  return count == 32 ? 0xffffffffu : (1u << count) - 1u;
}

unsigned BlockRunner::live_lanes_of_current_warp() const {
  const unsigned warp = current_->linear / 32;
  unsigned lanes = 0;
  const unsigned existing = existing_lanes(warp);
  for (unsigned lane = 0; lane < 32; ++lane)
    if ((existing >> lane & 1u) && fibers_[warp * 32 + lane].state != FiberState::exited)
      lanes |= 1u << lane;
  return lanes;
}

void BlockRunner::check_no_warp_waits_for(const Fiber& fiber, const WaitSite* waits_at) const {
  const unsigned lane = fiber.linear % 32;
  for (const PendingWarpOp& op : warps_[fiber.linear / 32]) {
    if ((op.mask >> lane & 1u) == 0) continue;
    const std::string what = waits_at == nullptr ? "has exited" : "waits at " + describe(*waits_at);
    throw Error("kernel deadlock in " + block_name() + ": " + thread_name(fiber.index) + " (lane " +
                std::to_string(lane) + ") " + what + " while lanes " + hex(op.arrived) +
                " of its warp wait for it at " + describe(op.site) + " with mask " +
                hex(op.mask));
  }
}

int BlockRunner::barrier(BarrierKind kind, int predicate, const std::source_location& where) {
  static constexpr const char* names[] = {"__syncthreads", "__syncthreads_count",
                                          "__syncthreads_and", "__syncthreads_or"};
  Fiber& fiber = *current_;
  fiber.site = make_site(names[static_cast<int>(kind)], where);
  check_no_warp_waits_for(fiber, &fiber.site);
  fiber.state = FiberState::at_barrier;
  fiber.barrier_kind = kind;
  fiber.predicate = predicate != 0;
  note_shared_writes(/*stops=*/true);
  suspend();
  return fiber.barrier_result;
}

std::string BlockRunner::describe_waits() const {
  // Group the waiting threads by site, in order of their first thread.
  std::vector<std::tuple<WaitSite, unsigned, uint3>> groups;
  for (unsigned i = 0; i < thread_count_; ++i) {
    const Fiber& fiber = fibers_[i];
    if (fiber.state == FiberState::exited || fiber.state == FiberState::ready) continue;
    auto found = std::find_if(groups.begin(), groups.end(),
                              [&](const auto& g) { return same_site(std::get<0>(g), fiber.site); });
    if (found == groups.end())
      groups.emplace_back(fiber.site, 1u, fiber.index);
    else
      ++std::get<1>(*found);
  }
  std::string text;
  for (const auto& [site, count, first] : groups) {
    if (!text.empty()) text += "; ";
    text += std::to_string(count) + (count == 1 ? " thread" : " threads") + " (first " +
            thread_name(first) + ") wait at " + describe(site);
  }
  const unsigned exited = thread_count_ - live_;
  if (exited > 0) text += "; " + std::to_string(exited) + " exited";
  return text;
}

void BlockRunner::release_barrier() {
  const Fiber* first = nullptr;
  bool divergent = false;
  for (unsigned i = 0; i < thread_count_; ++i) {
    const Fiber& fiber = fibers_[i];
    if (fiber.state == FiberState::exited) continue;
    if (fiber.state != FiberState::at_barrier)
      throw Error("kernel deadlock in " + block_name() + ": " + describe_waits());
    if (first == nullptr)
      first = &fiber;
    else if (!same_site(first->site, fiber.site))
      divergent = true;
  }
  if (divergent)
    throw Error("divergent barriers in " + block_name() +
                ": threads of one block wait at different barriers: " + describe_waits());
  int result = 0;
  switch (first->barrier_kind) {
    case BarrierKind::sync:
      break;
    case BarrierKind::count:
      for (unsigned i = 0; i < thread_count_; ++i)
        if (fibers_[i].state == FiberState::at_barrier) result += fibers_[i].predicate;
      break;
    case BarrierKind::all:
      result = 1;
      for (unsigned i = 0; i < thread_count_; ++i)
        if (fibers_[i].state == FiberState::at_barrier) result &= fibers_[i].predicate;
      break;
    case BarrierKind::any:
      for (unsigned i = 0; i < thread_count_; ++i)
        if (fibers_[i].state == FiberState::at_barrier) result |= fibers_[i].predicate;
      break;
  }
  for (unsigned i = 0; i < thread_count_; ++i) {
    Fiber& fiber = fibers_[i];
    if (fiber.state != FiberState::at_barrier) continue;
    fiber.barrier_result = result;
    fiber.state = FiberState::ready;
  }
}

void BlockRunner::warp_collective(WarpCombine combine, const char* operation, unsigned mask,
                                  void* payload, const std::source_location& where) {
  Fiber& fiber = *current_;
  const unsigned lane = fiber.linear % 32;
  const unsigned warp = fiber.linear / 32;
  const unsigned bit = 1u << lane;
  const WaitSite site = make_site(operation, where);
  // Built only when there is an error to report: this path runs per shuffle.
  const auto who = [&] {
    return "kernel error in " + block_name() + ", warp " + std::to_string(warp) + ": " +
           describe(site) + " called by " + thread_name(fiber.index) + " (lane " +
           std::to_string(lane) + ")";
  };
  if ((mask & bit) == 0)
    throw Error(who() + " with mask " + hex(mask) + ", which does not include the caller's lane");

  std::vector<PendingWarpOp>& pending = warps_[warp];
  auto op = std::find_if(pending.begin(), pending.end(),
                         [&](const PendingWarpOp& p) { return (p.mask & bit) != 0; });
  if (op != pending.end()) {
    if (op->mask != mask || op->combine != combine || !same_site(op->site, site))
      throw Error(who() + " with mask " + hex(mask) + " while lanes " + hex(op->arrived) +
                  " wait for it at " + describe(op->site) + " with mask " + hex(op->mask));
  } else {
    // The first lane to arrive checks that every other lane of the mask can
    // still arrive: it exists, has not exited, and waits nowhere else.
    const unsigned existing = existing_lanes(warp);
    for (unsigned other = 0; other < 32; ++other) {
      if ((mask >> other & 1u) == 0 || other == lane) continue;
      if ((existing >> other & 1u) == 0)
        throw Error(who() + " with mask " + hex(mask) + ": lane " + std::to_string(other) +
                    " does not exist (the block has " + std::to_string(thread_count_) +
                    " threads)");
      const Fiber& peer = fibers_[warp * 32 + other];
      if (peer.state == FiberState::exited)
        throw Error(who() + " with mask " + hex(mask) + ": lane " + std::to_string(other) +
                    " of the mask has exited");
      if (peer.state == FiberState::at_barrier || peer.state == FiberState::at_warp)
        throw Error(who() + " with mask " + hex(mask) + ": lane " + std::to_string(other) +
                    " of the mask waits elsewhere, at " + describe(peer.site));
    }
    op = pending.emplace(pending.end());
    op->combine = combine;
    op->site = site;
    op->mask = mask;
    op->arrived = 0;
  }
  op->payloads[lane] = payload;
  op->arrived |= bit;
  if (op->arrived != mask) {
    fiber.state = FiberState::at_warp;
    fiber.site = site;
    suspend();
    return;
  }
  // The last lane computes every lane's result, then releases the others.
  try {
    op->combine(op->payloads, mask);
  } catch (const Error& error) {
    throw Error(who() + " with mask " + hex(mask) + ": " + error.what());
  }
  // The released lanes come next in the sweep, before the threads after this
  // one in the order: a warp runs on until it waits at a barrier (or for a
  // lane that has not run yet), so one warp runs ahead of the others as far
  // as the code allows (see run_block).
  for (unsigned other = 0; other < 32; ++other)
    if ((mask >> other & 1u) && other != lane) {
      const unsigned linear = warp * 32 + other;
      fibers_[linear].state = FiberState::ready;
      position_ = std::min<std::size_t>(position_, position_of_[linear]);
    }
  if (op + 1 != pending.end()) *op = pending.back();
  pending.pop_back();
}

// ---- the entry points of kernelgate/interpret/sync.hpp ----

int block_barrier(BarrierKind kind, int predicate, const std::source_location& where) {
  BlockRunner::current_fiber("__syncthreads");
  return BlockRunner::active()->barrier(kind, predicate, where);
}

void warp_collective(WarpCombine combine, const char* operation, unsigned mask, void* payload,
                     const std::source_location& where) {
  BlockRunner::current_fiber(operation);
  BlockRunner::active()->warp_collective(combine, operation, mask, payload, where);
}

unsigned active_lanes() {
  BlockRunner::current_fiber("__activemask");
  return BlockRunner::active()->live_lanes_of_current_warp();
}

void* dynamic_smem() {
  BlockRunner::current_fiber("KG_DYNAMIC_SMEM");
  return BlockRunner::active()->dynamic_smem();
}

}  // namespace kg::interp
