#pragma once
// Where candidates run: the `cpu` device (host memory, candidates in interpret
// mode) or a `cuda` device (harness/src/device/cuda, gpu build only). The runner only
// talks to this interface, so every check works the same on both.
//
// Buffers carry guard bands: `guard_bytes` before and after the user region are
// filled with a known pattern at allocation, and check_guards() tells whether a
// candidate wrote outside its buffer.
//
// This header must stay free of CUDA device syntax: it is included by host
// .cpp files of both builds.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/error.hpp"

#if defined(KG_INTERPRET)
#include "kernelgate/interpret/cuda_shims.hpp"  // cudaStream_t of interpret mode
#else
#include <cuda_runtime_api.h>  // cudaStream_t, no kernel syntax
#endif

namespace kg {

// The requested device cannot be had: no GPU, a build without CUDA, an ordinal
// out of range. `kernelgate run` turns this into CTest's skip code unless
// KERNELGATE_REQUIRE_GPU=1.
class NoDeviceError : public Error {
 public:
  using Error::Error;
};

// A sticky device error (an illegal address, a trap): the device is unusable
// for the rest of the process. The runner reports the candidate `crashed`
// with this message.
class DeviceFault : public Error {
 public:
  using Error::Error;
};

// One allocation: [front guard | user region of `bytes` | back guard].
// Owned by the device that made it; give it back with Device::release.
struct DeviceBuffer {
  std::string label;           // e.g. "input x", "output", "workspace": for messages
  std::byte* base = nullptr;   // start of the front guard band
  std::byte* data = nullptr;   // start of the user region (what candidates get)
  std::size_t bytes = 0;       // size of the user region
  std::size_t guard_bytes = 0; // size of each guard band
};

// True when the user regions of a and b share at least one byte.
inline bool buffers_overlap(const DeviceBuffer& a, const DeviceBuffer& b) {
  if (a.bytes == 0 || b.bytes == 0) return false;
  const auto a_begin = reinterpret_cast<std::uintptr_t>(a.data);
  const auto b_begin = reinterpret_cast<std::uintptr_t>(b.data);
  return a_begin < b_begin + b.bytes && b_begin < a_begin + a.bytes;
}

// Candidates' output is poisoned with this quiet NaN before each run, so an
// element the candidate never wrote is both non-finite and recognisable.
inline constexpr std::uint32_t kPoisonWord = 0x7fc0dead;

// What a scan of a buffer of floats found: elements still holding
// kPoisonWord (never written), and other elements that are NaN or infinite.
// Flat indices; -1 when there is none.
struct FloatScan {
  std::int64_t poisoned = 0;
  std::int64_t first_poisoned = -1;
  std::int64_t non_finite = 0;
  std::int64_t first_non_finite = -1;
};

// One timed launch. The clocks are MHz, 0 where the device cannot read them
// (the cpu device; a GPU without NVML): the lower of the SM clock read just
// before the timed region and just after it, the device's maximum (boost) SM
// clock, and the clock the GPU is set to run at where a setting holds it
// below boost (NVML's application clock; 0 when none is set or known).
// clock_event_reasons: why the clock was where it was, NVML's clocks-event
// reason bits seen in either reading (kernelgate/detail/throttle_rule.hpp), or -1
// where the driver does not say. The throttle rule judges the sample by them.
// busy_after_ms: how long the whole device took to go idle once the timed
// region had ended, that is work the launch left on another stream (a GPU;
// 0 on the cpu device, where kernels run when launched and timed samples are
// audited instead).
// hold_expired: on a GPU the stream is held while the launch is enqueued, so
// that only device work is timed; true when enqueueing outlasted the hold,
// so host time may be inside `ms` (docs/gpu-runner.md, "Timing").
struct TimedLaunch {
  double ms = 0;
  int sm_clock_mhz = 0;
  int sm_clock_max_mhz = 0;
  int sm_clock_set_mhz = 0;
  std::int64_t clock_event_reasons = -1;
  double busy_after_ms = 0;
  bool hold_expired = false;
};

class Device {
 public:
  virtual ~Device() = default;

  // "cpu", "cuda:0".
  virtual std::string name() const = 0;
  // Hardware key of the baselines: cpu, h100-sxm, h100-pcie, h200, ...
  virtual std::string hardware_key() const = 0;
  // GPU name, SM count, clocks, driver, CUDA, cuDNN, compiler... (docs/reports.md).
  virtual nlohmann::ordered_json environment() const = 0;
  // True when candidates run in interpret mode (thread orders apply).
  virtual bool interpreted() const = 0;
  // True for a GPU simulated on the CPU (docs/simulated-gpu.md): the cuda
  // device's own code, its kernels in interpret mode. It is slow like the
  // cpu device (timing uses that device's small defaults), and nothing it
  // times is a measurement; every rule of a GPU applies to it otherwise.
  virtual bool simulated() const { return false; }
  // How long a candidate's whole child process may run before the watchdog
  // kills it, when --timeout is not given.
  virtual double default_timeout_s() const = 0;
  // "wall" or "cuda_event": what timer() measures with.
  virtual std::string clock_name() const = 0;
  // The memory candidates' buffers come from (the GPU's global memory; on cpu
  // the machine's), so a size that cannot fit is refused before anything runs.
  virtual std::uint64_t memory_bytes() const = 0;

  // Memory, with guard bands of at least `min_guard_bytes` on each side.
  virtual DeviceBuffer allocate(std::size_t bytes, const std::string& label,
                                std::size_t min_guard_bytes = 4096) = 0;
  // Gives the memory back and empties `buffer`; a no-op on an empty buffer.
  virtual void release(DeviceBuffer& buffer) = 0;
  // Copies to/from the user region; `bytes` must not exceed buffer.bytes.
  virtual void copy_to_device(DeviceBuffer& buffer, const void* host, std::size_t bytes) = 0;
  virtual void copy_to_host(void* host, const DeviceBuffer& buffer, std::size_t bytes) = 0;
  // Fills the user region with a repeated 32-bit word (kPoisonWord, 0, ...).
  virtual void fill_words(DeviceBuffer& buffer, std::uint32_t word) = 0;
  // A hash of the user region's bytes (not cryptographic; detects changes).
  virtual std::uint64_t hash(const DeviceBuffer& buffer) = 0;
  // Empty when both guard bands are intact; otherwise which band and the first
  // overwritten byte offset relative to the user region.
  virtual std::string check_guards(const DeviceBuffer& buffer) = 0;
  // Copies the whole user region of src into dst (same size), on the device.
  virtual void copy_buffer(DeviceBuffer& dst, const DeviceBuffer& src) = 0;
  // The user region read as floats: the poison and non-finite scan of every
  // element (a small kernel on GPU: nothing crosses PCIe), and the values at
  // the given flat indices.
  virtual FloatScan scan_floats(const DeviceBuffer& buffer) = 0;
  virtual std::vector<float> gather_floats(const DeviceBuffer& buffer,
                                           const std::vector<std::int64_t>& indices) = 0;

  // The stream the harness gives candidates (never the default stream on GPU).
  virtual cudaStream_t stream() = 0;
  // Waits for all work on stream(); throws DeviceFault on a sticky error.
  virtual void synchronize() = 0;
  // One timing sample: first evicts what earlier runs left in caches (L2 on
  // GPU; nothing on the cpu device), then measures the milliseconds that the
  // work `enqueue` puts on stream() takes (events around it on GPU, with the
  // stream held while it is enqueued; wall clock including synchronisation
  // on the cpu device), and the SM clock it ran at.
  virtual TimedLaunch time(const std::function<void()>& enqueue) = 0;
  // Enqueues an empty kernel (one warp) on stream(): timed like a candidate's
  // launch, it shows what a sample costs beyond the kernel's own work.
  virtual void launch_empty_kernel() = 0;

  // Kernels launched between begin and end must all be on stream(). Returns
  // empty when they were, or a description of the first one that was not
  // (interpret-mode launch records; CUPTI activity records on GPU).
  virtual void begin_stream_audit() = 0;
  virtual std::string end_stream_audit() = 0;
};

// spec: "auto" (the first GPU when there is one, else cpu), "cpu", "cuda",
// "cuda:N", and in the cpu build "sim:<key>", the cuda device on a simulated
// GPU (docs/simulated-gpu.md). Throws NoDeviceError when a cuda device cannot
// be had, kg::Error for a malformed spec.
std::unique_ptr<Device> open_device(const std::string& spec);

// What the parent of a run knows of the device its candidates' children
// open: enough to name it, key its baselines, size the run and write the
// report's environment, and nothing of the device itself. A GPU is read and
// let go again (no CUDA context stays in the parent while the children run:
// each child must be able to create its own, the only one a GPU in
// EXCLUSIVE_PROCESS compute mode admits).
struct DeviceDescription {
  std::string name;          // Device::name
  std::string child_spec;    // what each candidate's child opens (open_device): the spec, scripted
  std::string hardware_key;  // Device::hardware_key
  nlohmann::ordered_json environment;
  bool interpreted = false;  // Device::interpreted: the cpu device
  bool simulated = false;    // Device::simulated
  double default_timeout_s = 0;
  std::string clock_name;
  std::uint64_t memory_bytes = 0;
  // The GPU's compute capability, 90 for 9.0 (the simulated GPU's card's
  // too); 0 for the cpu device, whose interpret mode runs every candidate.
  int compute_capability = 0;

  // Kernels run in interpret mode, in host memory (the cpu device and the
  // simulated GPU): slow, so the timing protocols' small defaults apply, and
  // the host holds the device's buffers too.
  bool kernels_interpreted() const { return interpreted || simulated; }
};
DeviceDescription describe(const Device& device);
// The device `spec` names (as open_device), described. For a GPU it checks,
// before any candidate runs, that this process can create a CUDA context
// there, and throws kg::Error naming the compute mode where it cannot
// (PROHIBITED, or EXCLUSIVE_PROCESS and held by another process).
DeviceDescription describe_device(const std::string& spec);

// True when this build can run candidates on the cpu device (interpret mode).
bool cpu_device_supported();

// Implemented by harness/src/device/cuda: in the gpu build (KG_GPU=1) on the
// GPUs of the machine, in the cpu build on the simulated GPU its process has
// opened. Throw NoDeviceError when there is no usable GPU with that ordinal.
std::unique_ptr<Device> open_cuda_device(int ordinal);
DeviceDescription describe_cuda_device(int ordinal);
// Number of visible GPUs; 0 when the driver has none (never throws).
int cuda_device_count();

}  // namespace kg
