// The cpu device (cpu build): buffers are host memory with guard bands,
// candidates run in interpret mode on the calling thread, the timer is the
// wall clock, and the stream audit reads interpret mode's launch records.
#include "cpu_device.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include "kernelgate/error.hpp"

#if defined(KG_INTERPRET)
#include "kernelgate/cuda.hpp"
#include "kernelgate/interpret/counters.hpp"
#include "kernelgate/interpret/launch.hpp"
#include "kernelgate/interpret/tensor_core_arithmetic.hpp"
#endif

namespace kg::detail {

#if defined(KG_INTERPRET)
namespace {

// As cudaMalloc's: a warp's 128 contiguous bytes then touch 4 sectors, not 5,
// in interpret mode's counters too.
constexpr std::size_t kAlignment = 256;
// Guard bytes: a pattern no float computation is likely to produce exactly.
constexpr std::byte kGuardByte{0xA5};

std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// The bytes mapped for a buffer: both guard bands and the user region, whole pages.
std::size_t mapped_bytes(const DeviceBuffer& buffer) {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return round_up(2 * buffer.guard_bytes + round_up(buffer.bytes, kAlignment), page);
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown";
}

// The kernel of launch_empty_kernel: one warp that does nothing.
__global__ void empty_kernel() {}

class CpuDevice final : public Device {
 public:
  CpuDevice() {
    if (cudaStreamCreate(&stream_) != cudaSuccess) throw Error("interpret mode could not create a stream");
  }
  ~CpuDevice() override { cudaStreamDestroy(stream_); }

  std::string name() const override { return "cpu"; }
  std::string hardware_key() const override { return "cpu"; }
  nlohmann::ordered_json environment() const override {
    return {{"device", "cpu"},
            {"mode", "interpret"},
            {"cpu", cpu_model()},
            {"logical_cores", std::thread::hardware_concurrency()},
            {"compiler", std::string("g++ ") + __VERSION__},
            {"thread_order", interp::to_string(interp::current_thread_order())},
            {"tensor_cores", interp::to_string(interp::current_tensor_core_arithmetic())}};
  }
  bool interpreted() const override { return true; }
  // Interpret mode runs a ci-preset candidate in seconds; full shapes take far
  // longer, so the limit is generous and --timeout overrides it.
  double default_timeout_s() const override { return 300.0; }
  std::string clock_name() const override { return "wall"; }
  std::uint64_t memory_bytes() const override {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page_bytes = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page_bytes > 0 ? std::uint64_t(pages) * std::uint64_t(page_bytes) : 0;
  }

  DeviceBuffer allocate(std::size_t bytes, const std::string& label,
                        std::size_t min_guard_bytes) override {
    DeviceBuffer buffer;
    buffer.label = label;
    buffer.bytes = bytes;
    buffer.guard_bytes = round_up(std::max<std::size_t>(min_guard_bytes, kAlignment), kAlignment);
    // Fresh pages from the kernel: the user region reads as zeros whatever
    // ran before in this process, and costs nothing until it is touched (a
    // `kernelgate model` run touches only its sampled blocks' part of a
    // full-size output). Only the guard bands are written here.
    const std::size_t total = mapped_bytes(buffer);
    void* mapped = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw Error("cannot allocate " + std::to_string(bytes) + " bytes for " + label);
    buffer.base = static_cast<std::byte*>(mapped);
    buffer.data = buffer.base + buffer.guard_bytes;
    std::memset(buffer.base, static_cast<int>(kGuardByte), buffer.guard_bytes);
    std::memset(buffer.data + bytes, static_cast<int>(kGuardByte), total - buffer.guard_bytes - bytes);
    interp::register_global_memory(buffer.data, bytes);
    return buffer;
  }

  void release(DeviceBuffer& buffer) override {
    if (buffer.base && buffer.bytes) interp::unregister_global_memory(buffer.data);
    if (buffer.base) ::munmap(buffer.base, mapped_bytes(buffer));
    buffer = DeviceBuffer{};
  }

  void copy_to_device(DeviceBuffer& buffer, const void* host, std::size_t bytes) override {
    check_size(buffer, bytes);
    std::memcpy(buffer.data, host, bytes);
  }
  void copy_to_host(void* host, const DeviceBuffer& buffer, std::size_t bytes) override {
    check_size(buffer, bytes);
    std::memcpy(host, buffer.data, bytes);
  }

  void fill_words(DeviceBuffer& buffer, std::uint32_t word) override {
    const std::size_t words = buffer.bytes / sizeof(word);
    for (std::size_t i = 0; i < words; ++i)
      std::memcpy(buffer.data + i * sizeof(word), &word, sizeof(word));
    // A tail shorter than a word gets the word's leading bytes.
    std::memcpy(buffer.data + words * sizeof(word), &word, buffer.bytes % sizeof(word));
  }

  std::uint64_t hash(const DeviceBuffer& buffer) override {
    // 64-bit FNV-1a over 8-byte words with a final avalanche: fast, and any
    // change of a byte changes the value with overwhelming probability.
    std::uint64_t h = 0xcbf29ce484222325ull ^ buffer.bytes;
    std::size_t i = 0;
    for (; i + 8 <= buffer.bytes; i += 8) {
      std::uint64_t word;
      std::memcpy(&word, buffer.data + i, 8);
      h = (h ^ word) * 0x100000001b3ull;
      h ^= h >> 29;
    }
    for (; i < buffer.bytes; ++i) h = (h ^ std::to_integer<std::uint64_t>(buffer.data[i])) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
  }

  std::string check_guards(const DeviceBuffer& buffer) override {
    if (!buffer.base) return "";
    for (std::size_t i = 0; i < buffer.guard_bytes; ++i)
      if (buffer.base[i] != kGuardByte)
        return "the guard band before " + buffer.label + " was overwritten at byte offset -" +
               std::to_string(buffer.guard_bytes - i);
    const std::size_t back = 2 * buffer.guard_bytes + round_up(buffer.bytes, kAlignment) -
                             buffer.guard_bytes - buffer.bytes;
    for (std::size_t i = 0; i < back; ++i)
      if (buffer.data[buffer.bytes + i] != kGuardByte)
        return "the guard band after " + buffer.label + " was overwritten at byte offset +" +
               std::to_string(i) + " past its end";
    return "";
  }

  void copy_buffer(DeviceBuffer& dst, const DeviceBuffer& src) override {
    if (dst.bytes != src.bytes)
      throw Error("copy of " + src.label + " (" + std::to_string(src.bytes) + " bytes) into " + dst.label +
                  " (" + std::to_string(dst.bytes) + " bytes)");
    std::memcpy(dst.data, src.data, src.bytes);
  }

  FloatScan scan_floats(const DeviceBuffer& buffer) override {
    FloatScan scan;
    const std::int64_t count = static_cast<std::int64_t>(buffer.bytes / sizeof(float));
    for (std::int64_t i = 0; i < count; ++i) {
      std::uint32_t word;
      std::memcpy(&word, buffer.data + i * sizeof(float), sizeof word);
      if (word == kPoisonWord) {
        if (scan.poisoned++ == 0) scan.first_poisoned = i;
      } else if ((word & 0x7f800000u) == 0x7f800000u) {  // exponent all ones: NaN or infinity
        if (scan.non_finite++ == 0) scan.first_non_finite = i;
      }
    }
    return scan;
  }

  std::vector<float> gather_floats(const DeviceBuffer& buffer, const std::vector<std::int64_t>& indices) override {
    const std::int64_t count = static_cast<std::int64_t>(buffer.bytes / sizeof(float));
    std::vector<float> values(indices.size());
    for (std::size_t i = 0; i < indices.size(); ++i) {
      if (indices[i] < 0 || indices[i] >= count)
        throw Error("index " + std::to_string(indices[i]) + " outside " + buffer.label);
      std::memcpy(&values[i], buffer.data + indices[i] * sizeof(float), sizeof(float));
    }
    return values;
  }

  cudaStream_t stream() override { return stream_; }
  void synchronize() override { cudaStreamSynchronize(stream_); }
  void launch_empty_kernel() override { kg::launch(empty_kernel, dim3(1), dim3(32), 0, stream_); }
  // No cache of interpret mode's outlives a launch, so nothing is flushed first.
  TimedLaunch time(const std::function<void()>& enqueue) override {
    const auto start = std::chrono::steady_clock::now();
    enqueue();
    synchronize();
    return {.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count()};
  }

  // Records are taken (and forgotten) at both ends, so only the candidate's
  // own operations are audited.
  void begin_stream_audit() override { interp::take_launch_records(); }
  std::string end_stream_audit() override {
    for (const auto& record : interp::take_launch_records())
      if (record.stream_id != stream_->id)  // ids, not pointers: a freed stream's address is reused
        return describe(record) + " was issued on " +
               (record.stream_id ? "stream " + std::to_string(record.stream_id)
                              : std::string("the default stream")) +
               ", not on the stream the harness gave (stream " + std::to_string(stream_->id) + ")";
    return "";
  }

 private:
  static void check_size(const DeviceBuffer& buffer, std::size_t bytes) {
    if (bytes > buffer.bytes)
      throw Error("copy of " + std::to_string(bytes) + " bytes into " + buffer.label + " of " +
                  std::to_string(buffer.bytes) + " bytes");
  }
  static std::string describe(const interp::LaunchRecord& record) {
    switch (record.kind) {
      case interp::LaunchRecord::Kind::kernel:
        return "a kernel launch (grid " + std::to_string(record.grid.x) + "x" +
               std::to_string(record.grid.y) + "x" + std::to_string(record.grid.z) + ", block " +
               std::to_string(record.block.x) + "x" + std::to_string(record.block.y) + "x" +
               std::to_string(record.block.z) + ")";
      case interp::LaunchRecord::Kind::memset:
        return "a memset of " + std::to_string(record.dynamic_smem_bytes) + " bytes";
      case interp::LaunchRecord::Kind::memcpy:
        return "a memcpy of " + std::to_string(record.dynamic_smem_bytes) + " bytes";
    }
    return "an operation";
  }

  cudaStream_t stream_ = nullptr;
};

}  // namespace

std::unique_ptr<Device> make_cpu_device() { return std::make_unique<CpuDevice>(); }

#else

std::unique_ptr<Device> make_cpu_device() {
  throw Error("the cpu device needs the cpu build (interpret mode)");
}

#endif

}  // namespace kg::detail
