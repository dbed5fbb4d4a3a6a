// kg::launch in interpret mode: limits, launch records, and running the grid's
// blocks on one or more host threads.
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "access_counter.hpp"
#include "block_runner.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/interpret/launch.hpp"
#include "kernelgate/interpret/simulated_gpu.hpp"
#include "launch_records.hpp"

namespace kg::interp {

namespace {

std::string dims(const dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

std::mutex& smem_limits_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::unordered_map<const void*, std::size_t>& smem_limits() {
  static std::unordered_map<const void*, std::size_t> limits;
  return limits;
}

std::size_t dynamic_smem_limit(const void* kernel) {
  std::lock_guard lock(smem_limits_mutex());
  const auto found = smem_limits().find(kernel);
  return found == smem_limits().end() ? kDefaultDynamicSmemLimit : found->second;
}

void check_limits(const LaunchConfig& config) {
  const dim3 g = config.grid;
  const dim3 b = config.block;
  const std::string where = "kg::launch with grid " + dims(g) + " and block " + dims(b) + ": ";
  if (b.x == 0 || b.y == 0 || b.z == 0) throw Error(where + "the block has a zero dimension");
  if (g.x == 0 || g.y == 0 || g.z == 0) throw Error(where + "the grid has a zero dimension");
  const std::uint64_t threads = std::uint64_t{b.x} * b.y * b.z;
  if (threads > kMaxThreadsPerBlock)
    throw Error(where + "the block has " + std::to_string(threads) + " threads; at most " +
                std::to_string(kMaxThreadsPerBlock) + " are allowed");
  if (b.z > 64) throw Error(where + "a block dimension exceeds the maximum (1024, 1024, 64)");
  if (g.x > 2147483647u || g.y > 65535u || g.z > 65535u)
    throw Error(where + "a grid dimension exceeds the maximum (2147483647, 65535, 65535)");
  const std::size_t limit = dynamic_smem_limit(config.kernel);
  if (config.dynamic_smem_bytes > limit)
    throw Error(where + "dynamic shared memory of " + std::to_string(config.dynamic_smem_bytes) +
                " bytes exceeds this kernel's limit of " + std::to_string(limit) +
                " bytes (raise it with kg::set_max_dynamic_smem, up to " +
                std::to_string(max_dynamic_smem_optin()) + ")");
}

// The blocks of one launch, handed out to host threads one at a time.
struct GridJob {
  BlockTask task;
  std::uint64_t total = 0;
  // A counted sample of the grid (set_block_sample): only these blocks run.
  std::vector<std::uint64_t> only;
  std::uint64_t step = 1;    // dispatch order: block = (i * step + offset) % total
  // A sampled, counted launch, whose output nobody reads: once counting has
  // given up (AccessCounter::gave_up) the blocks left would be run for nothing.
  bool sampled = false;
  std::uint64_t offset = 0;
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex failure_mutex;
  std::exception_ptr failure;

  std::uint64_t block_at(std::uint64_t i) const {
    if (task.order.kind == ThreadOrder::Kind::reverse) return total - 1 - i;
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(i) * step + offset) % total);
  }

  void run_blocks() {
    BlockRunner& runner = BlockRunner::of_this_thread();
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) return;
      if (sampled && AccessCounter::gave_up()) return;
      const std::uint64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= (only.empty() ? total : only.size())) return;
      try {
        runner.run_block(task, only.empty() ? block_at(i) : only[i]);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        failed = true;
        return;
      }
    }
  }
};

// Host threads that help the launching thread run blocks. Created once and
// kept (a launch is often short); recreated in a forked child, which inherits
// the pool's memory but not its threads.
class HostThreadPool {
 public:
  static HostThreadPool& instance(unsigned helpers) {
    static HostThreadPool* pool = nullptr;
    static pid_t owner = 0;
    if (pool == nullptr || owner != getpid()) {
      pool = new HostThreadPool();  // deliberately never destroyed: see above
      owner = getpid();
    }
    pool->grow(helpers);
    return *pool;
  }

  void run(GridJob& job, unsigned helpers) {
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      helpers_wanted_ = helpers;
      helpers_done_ = 0;
      ++generation_;
    }
    work_.notify_all();
    job.run_blocks();
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return helpers_done_ == helpers_wanted_; });
    job_ = nullptr;
  }

 private:
  void grow(unsigned helpers) {
    while (threads_.size() < helpers) {
      const unsigned id = static_cast<unsigned>(threads_.size());
      threads_.emplace_back([this, id] { serve(id); });
      threads_.back().detach();
    }
  }

  void serve(unsigned id) {
    std::uint64_t seen = 0;
    for (;;) {
      GridJob* job = nullptr;
      {
        std::unique_lock lock(mutex_);
        work_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (id >= helpers_wanted_) continue;
        job = job_;
      }
      job->run_blocks();
      {
        std::lock_guard lock(mutex_);
        ++helpers_done_;
      }
      done_.notify_all();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable work_;
  std::condition_variable done_;
  GridJob* job_ = nullptr;
  std::uint64_t generation_ = 0;
  unsigned helpers_wanted_ = 0;
  unsigned helpers_done_ = 0;
};

std::mutex& launch_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

std::size_t max_dynamic_smem_optin() {
  return sim::is_open() ? sim::card().max_dynamic_smem_optin : kMaxDynamicSmemOptIn;
}

void set_max_dynamic_smem(const void* kernel, std::size_t bytes) {
  // As cudaFuncSetAttribute on the GPU: above the card's opt-in maximum it fails.
  if (bytes > max_dynamic_smem_optin())
    throw Error("kg::set_max_dynamic_smem: " + std::to_string(bytes) +
                " bytes exceeds the maximum dynamic shared memory of a block (" +
                std::to_string(max_dynamic_smem_optin()) + " bytes)");
  std::lock_guard lock(smem_limits_mutex());
  smem_limits()[kernel] = bytes;
}

void launch_grid(const LaunchConfig& config, KernelInvocation invocation) {
  check_and_record_launch(config);
  run_grid(config, invocation);
}

void check_and_record_launch(const LaunchConfig& config) {
  if (BlockRunner::active() != nullptr)
    throw Error("kg::launch called from inside a kernel (dynamic parallelism is not supported)");
  check_limits(config);
  record_operation(LaunchRecord{LaunchRecord::Kind::kernel, config.stream, stream_id_of(config.stream),
                                config.grid, config.block, config.dynamic_smem_bytes, config.kernel});
}

void run_grid(const LaunchConfig& config, KernelInvocation invocation) {
  GridJob job;
  job.task = BlockTask{invocation, config.grid, config.block, config.dynamic_smem_bytes,
                       current_thread_order(), current_tensor_core_arithmetic(), config.kernel};
  job.total = std::uint64_t{config.grid.x} * config.grid.y * config.grid.z;
  if (job.task.order.kind == ThreadOrder::Kind::random) {
    // A stride coprime to the block count visits every block once, in an order
    // that depends on the seed.
    const std::uint64_t mixed = split_mix(job.task.order.seed);
    job.offset = mixed % job.total;
    job.step = (mixed >> 17) % job.total + 1;
    while (std::gcd(job.step, job.total) != 1) ++job.step;
  }

  const bool counting = AccessCounter::counting();
  job.sampled = counting && block_sample() > 0;
  // Most of a sampled tensor-core kernel's time would be its arithmetic,
  // which changes none of the counts (tensor_core_arithmetic.hpp).
  if (job.sampled) job.task.arithmetic = TensorCoreArithmetic::skipped;
  if (job.sampled && block_sample() < job.total) job.only = sampled_blocks(job.total, block_sample());
  const std::uint64_t blocks_run = job.only.empty() ? job.total : job.only.size();

  const unsigned threads = host_threads_from_environment();
  const unsigned helpers =
      static_cast<unsigned>(std::min<std::uint64_t>(threads, blocks_run)) - 1;
  std::lock_guard lock(launch_mutex());
  if (helpers == 0)
    job.run_blocks();
  else
    HostThreadPool::instance(helpers).run(job, helpers);
  if (counting)
    count_launch(config.kernel, job.total, blocks_run, job.only.empty() || job.only.back() == job.total - 1,
                 config.block.x * config.block.y * config.block.z, config.dynamic_smem_bytes);
  if (job.failure) std::rethrow_exception(job.failure);
}

}  // namespace kg::interp
