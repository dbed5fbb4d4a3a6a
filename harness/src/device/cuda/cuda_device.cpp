// The cuda device (gpu build): device memory with guard bands, fill and hash
// on the GPU, one non-blocking stream per run, CUDA-event timing of the held
// stream with the L2 flushed before it and the SM clock read around it, the
// device's idle wait after each timed sample, and the CUPTI stream audit.
// Also the parent's description of a GPU, read without keeping a context.
// docs/gpu-runner.md describes the whole GPU path.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../nvml.hpp"
#include "../timed_region.hpp"
#include "device_memory.hpp"
#include "kernelgate/cuda_check.hpp"
#include "kernelgate/detail/device.hpp"
#include "kernelgate/detail/gpu_identity.hpp"
#include "platform.hpp"
#include "stream_audit.hpp"
#include "stream_hold.hpp"

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

// Full-size workloads: building cuDNN plans, 100+ timed samples, the stream
// audit and hashing GiB buffers fit well inside two minutes on an H100.
constexpr double kCudaTimeoutS = 180.0;
constexpr const char* kCudaClockName = "cuda_event";

// What the GPU is, from queries that need no CUDA context (device
// attributes and properties, NVML, the versions), so the parent of a run can
// read it too and hold nothing of the GPU afterwards.
GpuEnvironment read_gpu_environment(int ordinal) {
  cudaDeviceProp properties{};
  KG_CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal));
  GpuEnvironment e;
  e.device = cuda_detail::device_name(ordinal);
  e.name = properties.name;
  e.hardware = cuda_detail::hardware_key(e.name);
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal) == cudaSuccess) e.pci_bus_id = bus_id;
  e.compute_capability_major = properties.major;
  e.compute_capability_minor = properties.minor;
  e.sm_count = properties.multiProcessorCount;
  e.l2_cache_bytes = properties.l2CacheSize;
  e.memory_bytes = static_cast<std::int64_t>(properties.totalGlobalMem);
  e.memory_bus_width_bits = properties.memoryBusWidth;
  e.ecc_enabled = properties.ECCEnabled != 0;
  // CUDA 13 dropped the clock and compute-mode fields from cudaDeviceProp; the attributes remain.
  int value = 0;
  if (cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, ordinal) == cudaSuccess) e.sm_clock_max_khz = value;
  if (cudaDeviceGetAttribute(&value, cudaDevAttrMemoryClockRate, ordinal) == cudaSuccess) e.memory_clock_khz = value;
  if (cudaDeviceGetAttribute(&value, cudaDevAttrComputeMode, ordinal) == cudaSuccess) e.compute_mode = value;
  const detail::Nvml& nvml = detail::Nvml::instance();
  const detail::NvmlDevice gpu = nvml.device(e.pci_bus_id);
  e.sm_clock_mhz = gpu.sm_clock_mhz();
  e.sm_clock_max_app_mhz = gpu.application_sm_clock_mhz();
  e.driver = nvml.driver_version();
  cudaDriverGetVersion(&e.cuda_driver_api);
  cudaRuntimeGetVersion(&e.cuda_runtime);
  e.cudnn_runtime = cuda_detail::cudnn_runtime_version();
  e.cudnn_headers = cuda_detail::cudnn_header_version();
  e.cuda_compiler = cuda_detail::cuda_compiler_version();
  e.host_compiler = host_compiler_version();
  cudaGetLastError();  // a failed optional query must not look like a launch error later
  return e;
}

// The L2 flush buffer covers twice the L2, so no line of the previous run survives.
std::size_t flush_bytes_for(const GpuEnvironment& e) {
  return std::max<std::size_t>(2 * static_cast<std::size_t>(std::max<std::int64_t>(e.l2_cache_bytes, 0)), 64u << 20);
}

// The report's environment of a GPU: what environment_json gives, and the
// flush every timed sample starts with: the bytes swept, and the persisting
// L2 limit it sets (reset_persisting_l2).
nlohmann::ordered_json gpu_environment_json(const GpuEnvironment& e) {
  nlohmann::ordered_json j = environment_json(e);
  j["l2_flush_bytes"] = flush_bytes_for(e);
  j["l2_persisting_limit_bytes"] = 0;
  return j;
}

// One call of the persisting-L2 reset; a GPU or partition without persisting
// L2 (cudaErrorUnsupportedLimit, cudaErrorNotSupported) has nothing to reset.
void persisting_l2_call(cudaError_t status, const char* what) {
  if (status == cudaErrorUnsupportedLimit || status == cudaErrorNotSupported) {
    cudaGetLastError();
    return;
  }
  check_device(status, what);
}

// The clock the GPU is set to run at, where a setting holds it below boost
// (the throttle rule's reference; 0: none set, or not known).
int set_sm_clock_mhz(const GpuEnvironment& e) {
  const int boost_mhz = e.sm_clock_max_khz / 1000;
  return e.sm_clock_max_app_mhz > 0 && e.sm_clock_max_app_mhz < boost_mhz ? e.sm_clock_max_app_mhz : 0;
}

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int ordinal)
      : ordinal_(ordinal), environment_(read_gpu_environment(ordinal)),
        nvml_(detail::Nvml::instance().device(environment_.pci_bus_id)) {
    KG_CUDA_CHECK(cudaSetDevice(ordinal_));
    KG_CUDA_CHECK(cudaFree(nullptr));  // create the context now, not inside a timed region
    KG_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    KG_CUDA_CHECK(cudaEventCreate(&start_));
    KG_CUDA_CHECK(cudaEventCreate(&stop_));
    KG_CUDA_CHECK(cudaMalloc(&hash_scratch_, sizeof(std::uint64_t)));
    KG_CUDA_CHECK(cudaMalloc(&scan_scratch_, 4 * sizeof(unsigned long long)));
    hold_ = std::make_unique<cuda_detail::StreamHold>();
    flush_bytes_ = flush_bytes_for(environment_);
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

  std::string name() const override { return cuda_detail::device_name(ordinal_); }
  std::string hardware_key() const override { return environment_.hardware; }

  nlohmann::ordered_json environment() const override {
    GpuEnvironment now = environment_;
    now.sm_clock_mhz = nvml_.sm_clock_mhz();
    return gpu_environment_json(now);
  }

  bool interpreted() const override { return false; }
  bool simulated() const override { return cuda_detail::simulated_platform(); }
  double default_timeout_s() const override { return kCudaTimeoutS; }
  std::string clock_name() const override { return kCudaClockName; }
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

  void launch_empty_kernel() override { cuda_detail::launch_empty_kernel(stream_); }

  TimedLaunch time(const std::function<void()>& enqueue) override {
    TimingSteps steps(*this);
    const TimedLaunch sample =
        detail::run_timed_region(steps, enqueue, environment_.sm_clock_max_khz / 1000, set_sm_clock_mhz(environment_));
    note_clock(sample, steps.before_mhz(), steps.after_mhz());
    return sample;
  }

  void begin_stream_audit() override { cuda_detail::StreamAudit::instance().begin(stream_); }
  std::string end_stream_audit() override { return cuda_detail::StreamAudit::instance().end(); }

 private:
  void require_fits(const DeviceBuffer& buffer, std::size_t bytes) const {
    if (bytes > buffer.bytes)
      throw Error("copy of " + std::to_string(bytes) + " bytes does not fit " + buffer.label + " (" +
                  std::to_string(buffer.bytes) + " bytes)");
  }

  // The timed region's steps on this GPU (timed_region.hpp gives their order).
  class TimingSteps final : public detail::TimedRegionSteps {
   public:
    explicit TimingSteps(CudaDevice& device) : d_(device) {}
    detail::ClockReading read_clock() override {
      const detail::ClockReading reading{d_.nvml_.sm_clock_mhz(), d_.nvml_.clock_event_reasons()};
      if (readings_ < 2) clock_mhz_[readings_++] = reading.sm_mhz;
      return reading;
    }
    void flush_caches() override { d_.flush_caches(); }
    void hold_stream() override { check_device(d_.hold_->hold(d_.stream_), "stream hold"); }
    void record_start() override { check_device(cudaEventRecord(d_.start_, d_.stream_), "event record"); }
    void record_stop() override { check_device(cudaEventRecord(d_.stop_, d_.stream_), "event record"); }
    void release_stream() override { d_.hold_->release(); }
    void wait_for_stop() override { check_device(cudaEventSynchronize(d_.stop_), "event synchronize"); }
    // The harness stream is done; what the device still runs now was left on
    // another stream, out of the events' reach (kg::judge_busy_after_timing).
    void wait_for_device() override { check_device(cudaDeviceSynchronize(), "device synchronize after timing"); }
    double elapsed_ms() override {
      float ms = 0;
      check_device(cudaEventElapsedTime(&ms, d_.start_, d_.stop_), "event elapsed time");
      return ms;
    }
    bool hold_expired() override { return d_.hold_->expired(); }
    int before_mhz() const { return clock_mhz_[0]; }
    int after_mhz() const { return clock_mhz_[1]; }

   private:
    CudaDevice& d_;
    int clock_mhz_[2] = {0, 0};  // the readings before and after the timed region
    int readings_ = 0;
  };

  // The L2 flush before a timed sample (TimedRegionSteps::flush_caches).
  void flush_caches() {
    reset_persisting_l2();
    // A different byte each time: a write the memory system cannot elide.
    const int value = static_cast<int>(++flushes_ & 0xff);
    check_device(cudaMemsetAsync(flush_buffer_, value, flush_bytes_, stream_), "L2 flush");
    // The memset leaves an L2's worth of dirty lines, whose write-back would
    // land in the timed kernel (a few percent of a conv workload's traffic): read the
    // first half back so they are written back here and L2 starts clean.
    cuda_detail::read_sweep(flush_buffer_, flush_bytes_ / 2, sweep_sink_, stream_);
  }

  // Lines marked persisting survive the flush: a candidate that raised the
  // persisting limit, or set an access-policy window on the stream it was
  // given, would keep its data in L2 from one sample to the next. Before
  // each flush: every persisting line back to normal, the limit to 0 and the
  // harness stream's window cleared.
  void reset_persisting_l2() {
    persisting_l2_call(cudaCtxResetPersistingL2Cache(), "reset of persisting L2 lines");
    persisting_l2_call(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0), "persisting L2 limit");
    cudaStreamAttrValue no_window{};
    no_window.accessPolicyWindow.num_bytes = 0;
    persisting_l2_call(cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &no_window),
                       "access-policy window of the harness stream");
  }

  // One warning per device on the child's stderr when the clock moved within
  // a sample, or a launch outlasted its hold; the samples' records carry
  // the clocks and the expired holds to the report.
  void note_clock(const TimedLaunch& sample, int before_mhz, int after_mhz) {
    if (sm_clock_moved(before_mhz, after_mhz) && clock_warnings_++ == 0)
      std::fprintf(stderr, "kernelgate: warning: %s: %s\n", name().c_str(),
                   sm_clock_warning(before_mhz, after_mhz).c_str());
    if (sample.hold_expired && hold_warnings_++ == 0)
      std::fprintf(stderr,
                   "kernelgate: warning: %s: a launch took longer to enqueue than the %.0f ms the stream was held: "
                   "its sample may include host time\n",
                   name().c_str(), cuda_detail::StreamHold::kLimitMs);
  }

  int ordinal_;
  GpuEnvironment environment_;
  detail::NvmlDevice nvml_;  // looked up once: the timed loop reads it twice per sample
  std::unique_ptr<cuda_detail::StreamHold> hold_;
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
  int clock_warnings_ = 0;
  int hold_warnings_ = 0;
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

namespace {

// Throws NoDeviceError unless the driver shows a GPU with this ordinal.
void require_cuda_ordinal(int ordinal) {
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
    throw NoDeviceError(cuda_detail::device_name(ordinal) + " does not exist: " + std::to_string(count) +
                        " GPU(s) visible" + (count > 0 ? " (cuda:0 to cuda:" + std::to_string(count - 1) + ")" : ""));
}

// Creates this process's context on the GPU and destroys it again: proof
// that the candidates' children will get one, without keeping the GPU from
// them (a GPU in EXCLUSIVE_PROCESS mode admits one context at a time).
void try_context(const GpuEnvironment& e, int ordinal) {
  cudaError_t status = cudaSetDevice(ordinal);
  if (status == cudaSuccess) status = cudaFree(nullptr);
  if (status == cudaSuccess) {
    cudaDeviceReset();
    return;
  }
  cudaGetLastError();
  std::string problem = compute_mode_problem(e.device, e.compute_mode, true);
  if (problem.empty()) problem = e.device + " admits no CUDA context";
  throw Error(problem + " (" + cudaGetErrorName(status) + ": " + cudaGetErrorString(status) + ")");
}

}  // namespace

std::unique_ptr<Device> open_cuda_device(int ordinal) {
  require_cuda_ordinal(ordinal);
  return std::make_unique<CudaDevice>(ordinal);
}

DeviceDescription describe_cuda_device(int ordinal) {
  require_cuda_ordinal(ordinal);
  const GpuEnvironment e = read_gpu_environment(ordinal);
  if (const std::string problem = compute_mode_problem(e.device, e.compute_mode, false); !problem.empty())
    throw Error(problem);
  // Every candidate's checked runs are audited: a CUPTI that cannot audit is
  // said once, here, not as every candidate's failure.
  cuda_detail::require_usable_cupti();
  try_context(e, ordinal);
  return {.name = e.device,
          .child_spec = e.device,
          .hardware_key = e.hardware,
          .environment = gpu_environment_json(e),
          .interpreted = false,
          .simulated = cuda_detail::simulated_platform(),
          .default_timeout_s = kCudaTimeoutS,
          .clock_name = kCudaClockName,
          .memory_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(e.memory_bytes, 0)),
          .compute_capability = e.compute_capability_major * 10 + e.compute_capability_minor};
}

}  // namespace kg
