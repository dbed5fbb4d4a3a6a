#pragma once
// kg::launch and kg::set_max_dynamic_smem in interpret mode, the launch
// records, and the thread order (KG_INTERPRET_ORDER). docs/interpret-mode.md.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernelgate/interpret/counters.hpp"
#include "kernelgate/interpret/cuda_shims.hpp"
#include "kernelgate/interpret/vector_types.hpp"

namespace kg {

constexpr std::size_t kDefaultDynamicSmemLimit = 48 * 1024;  // without opt-in
constexpr std::size_t kMaxDynamicSmemOptIn = 227 * 1024;     // sm_90 opt-in maximum
constexpr unsigned kMaxThreadsPerBlock = 1024;

namespace interp {

// One stream-ordered operation, as CUPTI's activity records show it on a GPU.
struct LaunchRecord {
  enum class Kind { kernel, memset, memcpy };
  Kind kind = Kind::kernel;
  cudaStream_t stream = nullptr;
  // The stream's id, copied when the record is made: a candidate may destroy
  // its stream before the audit reads the record. 0 for the default stream.
  unsigned long long stream_id = 0;
  dim3 grid{0, 0, 0};
  dim3 block{0, 0, 0};
  std::size_t dynamic_smem_bytes = 0;  // kernels; bytes moved for memset/memcpy
  const void* kernel = nullptr;        // the kernel's address (kernels only)
};

// Returns the records of every operation since the last call, in issue order,
// and forgets them. Records are kept for all host threads of the process.
std::vector<LaunchRecord> take_launch_records();

// The order in which the threads of a block run between barriers, and in which
// blocks are dispatched: "forward" (default), "reverse", "random" or
// "random:<seed>". Read from KG_INTERPRET_ORDER at each launch, unless the
// process pinned an order (pin_thread_order): the runner's child pins the
// order of its request before any candidate code runs, so a candidate that
// changes the environment cannot change the order it is judged under.
struct ThreadOrder {
  enum class Kind { forward, reverse, random };
  Kind kind = Kind::forward;
  std::uint64_t seed = 1;
};
ThreadOrder thread_order_from_environment();  // throws kg::Error on a bad value
ThreadOrder parse_thread_order(const std::string& text);  // throws kg::Error on a bad value
std::string to_string(const ThreadOrder& order);
// From now on every launch of this process uses `order`; the environment is
// no longer read.
void pin_thread_order(const ThreadOrder& order);
// The pinned order, else the environment's.
ThreadOrder current_thread_order();

// The wgmma proxy-fence check tracks a sample of blocks: the first and the
// last of a launch, two per kernel and process (docs/interpret-mode.md,
// "The proxy fence"). With `true`, every block of a kernel seen to issue
// wgmma is tracked: slower, for tests that launch one kernel many times.
void track_every_block_for_proxy_check(bool every);

// A type-erased kernel call: invoke(context) runs the kernel body for the
// current thread.
struct KernelInvocation {
  void (*invoke)(const void* context);
  const void* context;
};

struct LaunchConfig {
  const void* kernel;
  dim3 grid;
  dim3 block;
  std::size_t dynamic_smem_bytes;
  cudaStream_t stream;
};

// Checks the limits, records the launch, runs every block; throws kg::Error.
void launch_grid(const LaunchConfig& config, KernelInvocation invocation);
// The two halves of launch_grid: what is checked and recorded when a launch
// is issued, and running its blocks.
void check_and_record_launch(const LaunchConfig& config);
void run_grid(const LaunchConfig& config, KernelInvocation invocation);

// On the simulated GPU (kernelgate/interpret/simulated_gpu.hpp) a grid runs in
// stream order, when something waits for it: whether this process defers
// launches, and the deferral, which checks and records the launch at once
// (kg::Error for one the runtime refuses, as kg::launch throws on a GPU) and
// keeps `keep`, the launch's copy of its arguments, until the grid has run.
bool launches_deferred();
void defer_launch(const LaunchConfig& config, KernelInvocation invocation, std::shared_ptr<const void> keep);
// The opt-in maximum of the GPU interpret mode stands for (launch.cpp).
std::size_t max_dynamic_smem_optin();
void set_max_dynamic_smem(const void* kernel, std::size_t bytes);

// The current block's dynamic shared memory (poisoned with 0xff bytes, NaN as
// float, at each block start). Throws kg::Error outside a kernel.
void* dynamic_smem();

// Number of host threads that run blocks in parallel: KG_INTERPRET_THREADS,
// default min(2, hardware threads).
unsigned host_threads_from_environment();

}  // namespace interp

// Launches kernel<<<grid, block, dynamic_smem_bytes, stream>>>(args...) on the
// CPU and returns when it has finished (on the simulated GPU: enqueues it on
// the stream). Each argument is converted to the
// kernel's parameter type once, as the GPU copies parameters at launch.
template <typename... KernelArgs, typename... Args>
void launch(void (*kernel)(KernelArgs...), dim3 grid, dim3 block, std::size_t dynamic_smem_bytes,
            cudaStream_t stream, Args&&... args) {
  static_assert(sizeof...(KernelArgs) == sizeof...(Args),
                "kg::launch: the number of arguments differs from the kernel's parameters");
  using Parameters = std::tuple<std::remove_cvref_t<KernelArgs>...>;
  struct Call {
    void (*kernel)(KernelArgs...);
    Parameters parameters;
  };
  const auto invoke = [](const void* context) {
    const Call& c = *static_cast<const Call*>(context);
    std::apply(c.kernel, c.parameters);
  };
  const interp::LaunchConfig config{reinterpret_cast<const void*>(kernel), grid, block, dynamic_smem_bytes, stream};
  if (interp::launches_deferred()) {
    // The grid runs later: it gets a copy of the arguments that lives until then.
    auto call = std::make_shared<const Call>(Call{kernel, Parameters(std::forward<Args>(args)...)});
    interp::defer_launch(config, {invoke, call.get()}, call);
    return;
  }
  const Call call{kernel, Parameters(std::forward<Args>(args)...)};
  interp::launch_grid(config, {invoke, &call});
}

// Raises the dynamic shared memory limit of one kernel (the opt-in above
// 48 KiB that cudaFuncSetAttribute gives on the GPU), up to
// max_dynamic_smem_per_block().
template <typename... KernelArgs>
void set_max_dynamic_smem(void (*kernel)(KernelArgs...), std::size_t bytes) {
  interp::set_max_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes);
}

// The GPU build's device queries for sizing a grid (kernelgate/cuda.hpp).
// Interpret mode answers them only while a model run sets the GPU it sizes
// grids for (kg::interp::set_modelled_gpu); otherwise 0, a failed query.
inline int sm_count() { return interp::modelled_gpu().sm_count; }
// The opt-in maximum of a block's dynamic shared memory: the simulated card's
// where one is open (163 KiB on an A100, 99 KiB on an L40S), else Hopper's
// 227 KiB, which the cpu device assumes.
inline std::size_t max_dynamic_smem_per_block() { return interp::max_dynamic_smem_optin(); }
template <typename... KernelArgs>
int max_active_blocks_per_sm(void (*kernel)(KernelArgs...), int threads, std::size_t dynamic_smem_bytes) {
  return interp::modelled_blocks_per_sm(reinterpret_cast<const void*>(kernel), threads, dynamic_smem_bytes);
}

}  // namespace kg

// Declares `name` as the block's dynamic shared memory, viewed as type[].
#define KG_DYNAMIC_SMEM(type, name) type* const name = static_cast<type*>(::kg::interp::dynamic_smem())
