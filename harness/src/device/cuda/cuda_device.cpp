// The cuda device (gpu build): device memory with guard bands, fill and hash
// on the GPU, one non-blocking stream per run, CUDA-event timing with the L2
// flushed outside the timed region, the SM clock watched while timing, the
// device's idle wait after each timed sample, and the CUPTI stream audit.
// docs/gpu-runner.md describes the whole GPU path.
#include <cudnn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "device_memory.hpp"
#include "kernelgate/cuda_check.hpp"
#include "kernelgate/device.hpp"
#include "kernelgate/gpu_identity.hpp"
#include "nvml_clock.hpp"
#include "stream_audit.hpp"

namespace kg {
namespace {

constexpr std::size_t kAlignment = 256;  // what cudaMalloc gives; cuDNN and vector loads like it
constexpr unsigned char kGuardByte = 0xA5;

std::size_t round_up(std::size_t value, std::size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// Errors after which the CUDA context is unusable: the rest of the process
// cannot run anything, so the candidate that caused it is `crashed`.
bool is_sticky(cudaError_t status) {
  switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

// Like KG_CUDA_CHECK, but a sticky error becomes DeviceFault (docs/runner.md:
// a sticky CUDA error fails that candidate, never the run).
void check_device(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  if (is_sticky(status))
    throw DeviceFault(std::string(what) + ": sticky CUDA error " + cudaGetErrorName(status) + ": " +
                      cudaGetErrorString(status));
  ::kg::detail::check_cuda(status, what, __FILE__, __LINE__);
}

std::string host_compiler_version() {
#if defined(__clang__)
  return std::string("clang++ ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int ordinal) : ordinal_(ordinal) {
    KG_CUDA_CHECK(cudaSetDevice(ordinal_));
    KG_CUDA_CHECK(cudaFree(nullptr));  // create the context now, not inside a timed region
    KG_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    KG_CUDA_CHECK(cudaEventCreate(&start_));
    KG_CUDA_CHECK(cudaEventCreate(&stop_));
    KG_CUDA_CHECK(cudaMalloc(&hash_scratch_, sizeof(std::uint64_t)));
    KG_CUDA_CHECK(cudaMalloc(&scan_scratch_, 4 * sizeof(unsigned long long)));
    capture_environment();
    // The flush buffer covers twice the L2 so no line of the previous run survives.
    flush_bytes_ = std::max<std::size_t>(2 * static_cast<std::size_t>(environment_.l2_cache_bytes), 64u << 20);
    KG_CUDA_CHECK(cudaMalloc(&flush_buffer_, flush_bytes_));
    KG_CUDA_CHECK(cudaMalloc(&sweep_sink_, sizeof(std::uint32_t)));
  }

  ~CudaDevice() override {
    // Nothing here may throw; after a sticky error these calls just fail.
    if (flush_buffer_) cudaFree(flush_buffer_);
    if (sweep_sink_) cudaFree(sweep_sink_);
    if (hash_scratch_) cudaFree(hash_scratch_);
    if (scan_scratch_) cudaFree(scan_scratch_);
    if (gather_scratch_) cudaFree(gather_scratch_);
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "cuda:" + std::to_string(ordinal_); }
  std::string hardware_key() const override { return environment_.hardware; }

  nlohmann::ordered_json environment() const override {
    GpuEnvironment now = environment_;
    now.sm_clock_mhz = cuda_detail::Nvml::instance().sm_clock_mhz(environment_.pci_bus_id);
    nlohmann::ordered_json j = environment_json(now);
    if (timed_samples_ > 0) {
      j["timing_sm_clock_mhz_min"] = min_clock_mhz_ > 0 ? nlohmann::ordered_json(min_clock_mhz_) : nullptr;
      j["timing_sm_clock_mhz_max"] = max_clock_mhz_ > 0 ? nlohmann::ordered_json(max_clock_mhz_) : nullptr;
      j["timing_clock_warnings"] = clock_warnings_;
    }
    j["l2_flush_bytes"] = flush_bytes_;
    return j;
  }

  bool interpreted() const override { return false; }
  // Full-size workloads: building cuDNN plans, 100+ timed samples, the stream
  // audit and hashing GiB buffers fit well inside two minutes on an H100.
  double default_timeout_s() const override { return 180.0; }
  std::string clock_name() const override { return "cuda_event"; }
  std::uint64_t memory_bytes() const override { return std::uint64_t(std::max<std::int64_t>(environment_.memory_bytes, 0)); }

  DeviceBuffer allocate(std::size_t bytes, const std::string& label, std::size_t min_guard_bytes) override {
    DeviceBuffer buffer;
    buffer.label = label;
    buffer.bytes = bytes;
    buffer.guard_bytes = round_up(std::max<std::size_t>(min_guard_bytes, kAlignment), kAlignment);
    const std::size_t total = 2 * buffer.guard_bytes + round_up(bytes, kAlignment);
    void* base = nullptr;
    const cudaError_t status = cudaMalloc(&base, total);
    if (status != cudaSuccess) {
      cudaGetLastError();  // out of memory is not sticky: clear it
      throw Error("cannot allocate " + std::to_string(bytes) + " bytes of device memory for " + label + " on " +
                  name() + ": " + cudaGetErrorString(status));
    }
    buffer.base = static_cast<std::byte*>(base);
    buffer.data = buffer.base + buffer.guard_bytes;
    // The whole allocation, padding included, starts as the guard pattern.
    check_device(cudaMemsetAsync(base, kGuardByte, total, stream_), "guard band fill");
    synchronize();
    return buffer;
  }

  void release(DeviceBuffer& buffer) override {
    if (buffer.base) cudaFree(buffer.base);
    buffer = DeviceBuffer{};
  }

  void copy_to_device(DeviceBuffer& buffer, const void* host, std::size_t bytes) override {
    require_fits(buffer, bytes);
    check_device(cudaMemcpyAsync(buffer.data, host, bytes, cudaMemcpyHostToDevice, stream_), "copy to device");
    synchronize();
  }

  void copy_to_host(void* host, const DeviceBuffer& buffer, std::size_t bytes) override {
    require_fits(buffer, bytes);
    check_device(cudaMemcpyAsync(host, buffer.data, bytes, cudaMemcpyDeviceToHost, stream_), "copy to host");
    synchronize();
  }

  void fill_words(DeviceBuffer& buffer, std::uint32_t word) override {
    cuda_detail::fill_words(buffer.data, buffer.bytes, word, stream_);
    synchronize();
  }

  std::uint64_t hash(const DeviceBuffer& buffer) override {
    synchronize();  // a sticky error surfaces as DeviceFault here, not as a hash
    return cuda_detail::hash_bytes(buffer.data, buffer.bytes, hash_scratch_, stream_);
  }

  std::string check_guards(const DeviceBuffer& buffer) override {
    if (buffer.base == nullptr) return "";
    std::vector<unsigned char> band(buffer.guard_bytes);
    check_device(cudaMemcpyAsync(band.data(), buffer.base, band.size(), cudaMemcpyDeviceToHost, stream_),
                 "guard band read");
    synchronize();
    // The front band: the damage closest to the user region is what a reviewer needs.
    for (std::size_t i = band.size(); i-- > 0;)
      if (band[i] != kGuardByte)
        return "front guard band of " + buffer.label + " overwritten at byte offset -" +
               std::to_string(band.size() - i);
    // The back band starts at the end of the user region (padding included).
    const std::size_t back_offset = buffer.bytes;
    const std::size_t back_bytes = round_up(buffer.bytes, kAlignment) - buffer.bytes + buffer.guard_bytes;
    band.resize(back_bytes);
    check_device(cudaMemcpyAsync(band.data(), buffer.data + back_offset, back_bytes, cudaMemcpyDeviceToHost, stream_),
                 "guard band read");
    synchronize();
    for (std::size_t i = 0; i < band.size(); ++i)
      if (band[i] != kGuardByte)
        return "back guard band of " + buffer.label + " overwritten at byte offset +" +
               std::to_string(back_offset + i) + " (the region is " + std::to_string(buffer.bytes) + " bytes)";
    return "";
  }

  void copy_buffer(DeviceBuffer& dst, const DeviceBuffer& src) override {
    if (dst.bytes != src.bytes)
      throw Error("copy of " + src.label + " (" + std::to_string(src.bytes) + " bytes) into " + dst.label +
                  " (" + std::to_string(dst.bytes) + " bytes)");
    check_device(cudaMemcpyAsync(dst.data, src.data, src.bytes, cudaMemcpyDeviceToDevice, stream_),
                 "device to device copy");
    synchronize();
  }

  FloatScan scan_floats(const DeviceBuffer& buffer) override {
    synchronize();
    const auto counts = cuda_detail::scan_floats(reinterpret_cast<const float*>(buffer.data),
                                                 buffer.bytes / sizeof(float), kPoisonWord, scan_scratch_, stream_);
    return FloatScan{counts.poisoned, counts.first_poisoned, counts.non_finite, counts.first_non_finite};
  }

  std::vector<float> gather_floats(const DeviceBuffer& buffer, const std::vector<std::int64_t>& indices) override {
    const auto count = static_cast<std::int64_t>(buffer.bytes / sizeof(float));
    for (std::int64_t index : indices)
      if (index < 0 || index >= count) throw Error("index " + std::to_string(index) + " outside " + buffer.label);
    std::vector<float> values(indices.size());
    if (indices.empty()) return values;
    // Scratch for the indices and the values, kept between calls (one per
    // timed sample): grown when a call needs more, freed with the device.
    const std::size_t index_bytes = indices.size() * sizeof(std::int64_t);
    const std::size_t needed = index_bytes + values.size() * sizeof(float);
    if (needed > gather_scratch_bytes_) {
      if (gather_scratch_) cudaFree(gather_scratch_);
      gather_scratch_ = nullptr;
      gather_scratch_bytes_ = 0;
      check_device(cudaMalloc(&gather_scratch_, needed), "gather scratch");
      gather_scratch_bytes_ = needed;
    }
    auto* device_indices = static_cast<std::int64_t*>(gather_scratch_);
    auto* device_values = reinterpret_cast<float*>(static_cast<std::byte*>(gather_scratch_) + index_bytes);
    check_device(cudaMemcpyAsync(device_indices, indices.data(), index_bytes, cudaMemcpyHostToDevice, stream_),
                 "gather indices");
    cuda_detail::gather_floats(reinterpret_cast<const float*>(buffer.data), device_indices, indices.size(),
                               device_values, stream_);
    check_device(cudaMemcpyAsync(values.data(), device_values, values.size() * sizeof(float),
                                 cudaMemcpyDeviceToHost, stream_),
                 "gather values");
    synchronize();
    return values;
  }

  cudaStream_t stream() override { return stream_; }

  void synchronize() override {
    check_device(cudaStreamSynchronize(stream_), "stream synchronize");
    // An error from an earlier asynchronous launch may only show up here.
    check_device(cudaGetLastError(), "last launch");
  }

  void flush_caches() override {
    // A different byte each time: a write the memory system cannot elide.
    const int value = static_cast<int>(++flushes_ & 0xff);
    check_device(cudaMemsetAsync(flush_buffer_, value, flush_bytes_, stream_), "L2 flush");
    // The memset leaves an L2's worth of dirty lines, whose write-back would
    // land in the timed kernel (a few percent of a conv workload's traffic): read the
    // first half back so they are written back here and L2 starts clean.
    cuda_detail::read_sweep(flush_buffer_, flush_bytes_ / 2, sweep_sink_, stream_);
  }

  void launch_empty_kernel() override { cuda_detail::launch_empty_kernel(stream_); }

  TimedLaunch time(const std::function<void()>& enqueue) override {
    const cuda_detail::Nvml& nvml = cuda_detail::Nvml::instance();
    const int before_mhz = nvml.sm_clock_mhz(environment_.pci_bus_id);
    check_device(cudaEventRecord(start_, stream_), "event record");
    enqueue();
    check_device(cudaEventRecord(stop_, stream_), "event record");
    check_device(cudaEventSynchronize(stop_), "event synchronize");
    // The harness stream is done; what the device still runs now was left on
    // another stream, out of the events' reach (kg::judge_busy_after_timing).
    const auto stop_reached = std::chrono::steady_clock::now();
    check_device(cudaDeviceSynchronize(), "device synchronize after timing");
    const double busy_after_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - stop_reached).count();
    float elapsed_ms = 0;
    check_device(cudaEventElapsedTime(&elapsed_ms, start_, stop_), "event elapsed time");
    const int after_mhz = nvml.sm_clock_mhz(environment_.pci_bus_id);
    note_clock(before_mhz, after_mhz);
    // The lower reading: a sample is only as fast as the slowest clock it saw.
    const int ran_at_mhz = before_mhz > 0 && after_mhz > 0 ? std::min(before_mhz, after_mhz) : 0;
    return {.ms = elapsed_ms,
            .sm_clock_mhz = ran_at_mhz,
            .sm_clock_max_mhz = environment_.sm_clock_max_khz / 1000,
            .busy_after_ms = busy_after_ms};
  }

  void begin_stream_audit() override { cuda_detail::StreamAudit::instance().begin(stream_); }
  std::string end_stream_audit() override { return cuda_detail::StreamAudit::instance().end(); }

 private:
  void require_fits(const DeviceBuffer& buffer, std::size_t bytes) const {
    if (bytes > buffer.bytes)
      throw Error("copy of " + std::to_string(bytes) + " bytes does not fit " + buffer.label + " (" +
                  std::to_string(buffer.bytes) + " bytes)");
  }

  void note_clock(int before_mhz, int after_mhz) {
    ++timed_samples_;
    for (int mhz : {before_mhz, after_mhz}) {
      if (mhz <= 0) continue;
      min_clock_mhz_ = min_clock_mhz_ > 0 ? std::min(min_clock_mhz_, mhz) : mhz;
      max_clock_mhz_ = std::max(max_clock_mhz_, mhz);
    }
    if (sm_clock_moved(before_mhz, after_mhz)) {
      // Once per device is enough to flag the run; the count goes to the report.
      if (clock_warnings_++ == 0)
        std::fprintf(stderr, "kernelgate: warning: %s: %s\n", name().c_str(),
                     sm_clock_warning(before_mhz, after_mhz).c_str());
    }
  }

  void capture_environment() {
    cudaDeviceProp properties{};
    KG_CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal_));
    GpuEnvironment& e = environment_;
    e.device = name();
    e.name = properties.name;
    e.hardware = hardware_key_from_gpu_name(e.name);
    char bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal_) == cudaSuccess) e.pci_bus_id = bus_id;
    e.compute_capability_major = properties.major;
    e.compute_capability_minor = properties.minor;
    e.sm_count = properties.multiProcessorCount;
    e.l2_cache_bytes = properties.l2CacheSize;
    e.memory_bytes = static_cast<std::int64_t>(properties.totalGlobalMem);
    e.memory_bus_width_bits = properties.memoryBusWidth;
    e.ecc_enabled = properties.ECCEnabled != 0;
    // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain.
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ordinal_) == cudaSuccess) e.sm_clock_max_khz = khz;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, ordinal_) == cudaSuccess) e.memory_clock_khz = khz;
    const cuda_detail::Nvml& nvml = cuda_detail::Nvml::instance();
    e.sm_clock_mhz = nvml.sm_clock_mhz(e.pci_bus_id);
    e.sm_clock_max_app_mhz = nvml.application_sm_clock_mhz(e.pci_bus_id);
    e.driver = nvml.driver_version();
    cudaDriverGetVersion(&e.cuda_driver_api);
    cudaRuntimeGetVersion(&e.cuda_runtime);
    e.cudnn_runtime = cudnnGetVersion();
    e.cudnn_headers = CUDNN_VERSION;
    e.cuda_compiler = cuda_detail::cuda_compiler_version();
    e.host_compiler = host_compiler_version();
    cudaGetLastError();  // a failed optional query must not look like a launch error later
  }

  int ordinal_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  std::uint64_t* hash_scratch_ = nullptr;
  unsigned long long* scan_scratch_ = nullptr;
  void* gather_scratch_ = nullptr;
  std::size_t gather_scratch_bytes_ = 0;
  void* flush_buffer_ = nullptr;
  std::uint32_t* sweep_sink_ = nullptr;  // read_sweep's never-written word
  std::size_t flush_bytes_ = 0;
  std::uint64_t flushes_ = 0;
  GpuEnvironment environment_;
  std::int64_t timed_samples_ = 0;
  int min_clock_mhz_ = 0;
  int max_clock_mhz_ = 0;
  int clock_warnings_ = 0;
};

}  // namespace

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: not an error of anything later
    return 0;
  }
  return count;
}

std::unique_ptr<Device> open_cuda_device(int ordinal) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    // The two usual causes on a runner, said plainly: the runtime's own text
    // for a missing driver speaks of an "insufficient" version.
    std::string hint;
    if (status == cudaErrorInsufficientDriver)
      hint = " (no NVIDIA driver is loaded, or it is older than this build's CUDA " +
             std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10) +
             " runtime needs; check nvidia-smi)";
    else if (status == cudaErrorNoDevice)
      hint = " (the driver sees no GPU; check nvidia-smi and CUDA_VISIBLE_DEVICES)";
    throw NoDeviceError(std::string("no usable CUDA GPU: ") + cudaGetErrorName(status) + ": " +
                        cudaGetErrorString(status) + hint);
  }
  if (ordinal < 0 || ordinal >= count)
    throw NoDeviceError("cuda:" + std::to_string(ordinal) + " does not exist: " + std::to_string(count) +
                        " GPU(s) visible" + (count > 0 ? " (cuda:0 to cuda:" + std::to_string(count - 1) + ")" : ""));
  return std::make_unique<CudaDevice>(ordinal);
}

}  // namespace kg
