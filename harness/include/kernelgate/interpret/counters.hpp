#pragma once
// Hardware counters of interpret mode: what the kernels launched between
// start_counting() and stop_counting() asked of memory and of the tensor
// cores, counted exactly and the same on every run (docs/interpret-mode.md,
// "Counters").
//
// A GPU serves the lanes of a warp that execute one load or store together,
// as one request. Interpret mode runs lanes one after another, so it rebuilds
// the requests: the n-th access of each lane at the same code site since the
// warp's last block barrier belong to one request. Only code compiled with the
// access instrumentation (candidates, the counter tests' kernels: the
// KG_COUNTS_ACCESSES macro is then 1) reports its loads and stores; the PTX
// wrappers of kernelgate/ptx.hpp report theirs themselves.
//
// Global memory is what was registered with register_global_memory (the cpu
// device registers every buffer it allocates); shared memory is the block's
// dynamic and static __shared__ memory. Other accesses (the stack, host
// variables) are not counted.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernelgate/kernel_resources.hpp"

namespace kg::interp {

// A block keeps the requests of its warps until its next barrier (a lane's
// n-th access can only be matched once every lane has run that far): at most
// this many at once, about 140 bytes each. A kernel that needs more (a direct
// convolution with long loops and no barrier) stops being counted there, and
// its counters are incomplete.
constexpr std::size_t kMaxLiveRequests = std::size_t{1} << 22;

struct Counters {
  // Some accesses were not counted (kMaxLiveRequests): the memory counts are
  // lower bounds, not to be compared.
  bool incomplete = false;
  // Launches, blocks and CUDA threads run; the largest block and dynamic
  // shared memory of a launch.
  std::uint64_t launches = 0;
  std::uint64_t blocks = 0;
  // Blocks that ran and were counted: fewer than `blocks` when a sample of
  // each launch stood for the whole grid (set_block_sample).
  std::uint64_t blocks_run = 0;
  std::uint64_t threads = 0;
  std::uint64_t max_threads_per_block = 0;
  std::uint64_t max_dynamic_smem_bytes = 0;
  // What ptxas gave the launched kernels in the gpu build (KernelResources):
  // the most registers per thread and static shared memory of a launch, and
  // the launches of kernels the table does not know (their registers are
  // not in the occupancy).
  std::uint64_t max_registers_per_thread = 0;
  std::uint64_t max_static_smem_bytes = 0;
  std::uint64_t launches_without_resources = 0;
  // Global memory, per warp-level request: requests, the 32-byte sectors they
  // touch, and the distinct bytes the lanes asked for, bytes several lanes
  // read (a broadcast) once, so that coalescing efficiency =
  // global_bytes_requested / (32 x sectors) is at most 1. cp.async reads
  // count as loads.
  std::uint64_t global_load_requests = 0;
  std::uint64_t global_store_requests = 0;
  std::uint64_t global_load_sectors = 0;
  std::uint64_t global_store_sectors = 0;
  std::uint64_t global_bytes_requested = 0;
  // Per warp, the barrier intervals (from one block barrier to the next, or
  // to the block's end) in which it made a synchronous global load: the
  // times it waits for global memory, counted once an interval since the
  // loads of one interval may all be in flight together. cp.async copies are
  // not waits: a pipeline issues them an interval or more before it waits
  // for them (docs/roofline.md, "Latency").
  std::uint64_t global_load_waits = 0;
  // The footprint, per launch and summed over launches: distinct bytes read
  // and distinct bytes written, a lower bound of the DRAM traffic.
  std::uint64_t dram_read_bytes = 0;
  std::uint64_t dram_write_bytes = 0;
  // Shared memory, per warp-level request: requests, the wavefronts its 32
  // banks of 4 bytes need (the passes a bank conflict forces: the most
  // distinct 4-byte words any one bank holds), and the fewest wavefronts the
  // same words could take (distinct words / 32, rounded up).
  std::uint64_t shared_requests = 0;
  std::uint64_t shared_wavefronts = 0;
  std::uint64_t shared_wavefronts_ideal = 0;
  // Tensor cores: floating-point operations (2 per multiply-add) of
  // mma.sync m16n8k8 and of each wgmma; bytes copied by cp.async; block
  // barriers completed (summed over blocks).
  std::uint64_t mma_m16n8k8_flops = 0;
  std::uint64_t wgmma_flops = 0;
  std::uint64_t cp_async_bytes = 0;
  std::uint64_t barriers = 0;

  std::uint64_t global_requests() const { return global_load_requests + global_store_requests; }
  std::uint64_t dram_bytes() const { return dram_read_bytes + dram_write_bytes; }
  std::uint64_t tensor_flops() const { return mma_m16n8k8_flops + wgmma_flops; }
  Counters& operator+=(const Counters& other);
};

// The counters by the names reports give them (docs/reports.md), the sums
// (global_requests, dram_bytes, tensor_flops) included.
std::vector<std::pair<std::string, std::uint64_t>> named(const Counters& counters);

// Memory that counts as global memory while it is registered. Registering a
// range that overlaps a registered one, or unregistering one that is not
// registered, throws kg::Error; neither may happen while counting.
void register_global_memory(const void* begin, std::size_t bytes);
void unregister_global_memory(const void* begin);
// The bytes of global memory registered now: every live buffer of the cpu
// device (what the runner's tests count to see a buffer freed).
std::size_t registered_global_bytes();

// Starts counting from zero (throws kg::Error when already counting, or when
// called from inside a kernel); stop_counting returns the counts since, and
// stops.
void start_counting();
Counters stop_counting();

// Counting a full-size grid by a sample of its blocks (`kernelgate model`,
// docs/roofline.md): while counting with a sample of n > 0, each launch of
// more than n blocks runs only sampled_blocks(total, n), and its counts are
// scaled to the grid: the last block's by 1 (a tail, or in a persistent grid
// often the block of the edge tiles, differs most), the others' by
// (total - 1) / (n - 1); a sample of one block, block 0, by total. The footprint of each registered buffer is scaled
// too, but never beyond the buffer's size (blocks that share an input read
// it once). The blocks left out do not run: the output is not the kernel's.
// 0, the default, runs every block.
void set_block_sample(std::uint64_t blocks_per_launch);
std::uint64_t block_sample();
// n linear block indices spread evenly over [0, total), the first and the
// last (the tail) included; all of them when n >= total.
std::vector<std::uint64_t> sampled_blocks(std::uint64_t total, std::uint64_t n);

// The registers and static shared memory of the launched kernels
// (kernelgate/kernel_resources.hpp), for a model run's occupancy. The table
// is keyed by the kernel's mangled symbol, which is the same in both builds
// (the C++ compile of a kernel keeps the name nvcc gives it, anonymous
// namespaces aside, which are compared as one), and a launched kernel is
// found by its address in the symbol table of the file that holds it.
void set_kernel_resources(std::map<std::string, KernelResources> by_symbol);
// The entry of a kernel; nullopt where the table has none.
std::optional<KernelResources> kernel_resources(const void* kernel);

// The GPU a model run sizes its grids for (`kernelgate model`): while one is
// set, kg::sm_count() and kg::max_active_blocks_per_sm answer for it, so a
// persistent kernel launches the grid it would launch there and each sampled
// block runs that GPU's share of the tiles. Unset (sm_count 0), both answer 0,
// as a failed query does on a GPU.
struct ModelledGpu {
  int sm_count = 0;
  // Blocks of `threads` threads with `shared_bytes` of shared memory (dynamic
  // and static) and `registers` per thread (0: not known) that one SM holds.
  std::function<int(int threads, std::size_t shared_bytes, int registers)> blocks_per_sm;
};
void set_modelled_gpu(ModelledGpu gpu);
const ModelledGpu& modelled_gpu();
// kg::max_active_blocks_per_sm in interpret mode: the modelled GPU's answer
// for the kernel, with its registers and static shared memory where the
// table knows them; 0 without a modelled GPU.
int modelled_blocks_per_sm(const void* kernel, int threads, std::size_t dynamic_smem_bytes);

}  // namespace kg::interp
