// Peak figures per hardware key. The GPU figures are NVIDIA's datasheet
// numbers (dense, no sparsity); the cpu key is a
// nominal 2-core x86 runner, only there so that interpret-mode reports have a
// scale, not a target.
#include "kernelgate/hardware.hpp"

#include <algorithm>

#include "kernelgate/error.hpp"

namespace kg {

namespace {

// The roofline figures of the Hopper keys (roofline.hpp). The SM count and
// boost clock are the datasheet's, and agree with its FP32 peak (SMs x 128
// FP32 lanes x 2 FLOP x clock). Shared memory: one wavefront, a pass of the 32
// banks of 4 bytes, per SM and clock (CUDA C++ Programming Guide, "Shared
// Memory"). L2: no datasheet gives it; 35.6 bytes per SM and clock is the
// 8986 GB/s of a full GH100 (144 SMs at 1755 MHz) in a published table of
// Hopper's figures (PubMed Central PMC10448217, table 3), scaled to each
// product's SMs and clock: a figure to calibrate once a GPU run exists. The
// same table gives the latencies, 400 clocks for global memory and 200 for
// L2: round figures, below what pointer-chasing microbenchmarks report, so
// the latency term errs on the fast side.
constexpr double kL2BytesPerSmClock = 8986e9 / (144 * 1.755e9);
constexpr int kDramLatencyCycles = 400;
constexpr int kL2LatencyCycles = 200;
constexpr const char* kHopperRooflineSource =
    "SMs, clock and dense BF16 peak: NVIDIA datasheet; shared memory: 32 banks x 4 bytes, one wavefront per SM "
    "and clock (CUDA C++ Programming Guide); L2: 35.6 bytes per SM and clock, from a published table of Hopper's "
    "figures (PMC10448217, table 3: 8986 GB/s at 144 SMs, 1755 MHz; latencies 400 clocks for global memory, 200 "
    "for L2); per SM 2048 threads, 32 blocks, 64 Ki "
    "registers, 228 KiB shared (1 KiB per block reserved): Programming Guide, compute capability 9.0";

HardwareSpec hopper(std::string key, std::string name, double dram_tb_s, double fp32, double tf32,
                    std::string source, double bf16, int sms, double clock_ghz) {
  HardwareSpec spec;
  spec.key = std::move(key);
  spec.name = std::move(name);
  spec.memory_bandwidth_tb_s = dram_tb_s;
  spec.fp32_tflop_s = fp32;
  spec.tf32_tflop_s = tf32;
  spec.source = std::move(source);
  spec.bf16_tflop_s = bf16;
  spec.sm_count = sms;
  spec.sm_clock_ghz = clock_ghz;
  spec.l2_bandwidth_tb_s = kL2BytesPerSmClock * sms * clock_ghz * 1e9 / 1e12;
  spec.l2_bytes = 50.0 * 1024 * 1024;  // "50 MB L2" on every Hopper datasheet: the larger reading, the lower floor
  spec.dram_latency_cycles = kDramLatencyCycles;
  spec.l2_latency_cycles = kL2LatencyCycles;
  spec.roofline_source = kHopperRooflineSource;
  spec.max_threads_per_sm = 2048;
  spec.max_blocks_per_sm = 32;
  spec.registers_per_sm = 64 * 1024;
  spec.shared_bytes_per_sm = 228 * 1024;
  spec.shared_reserved_per_block = 1024;
  return spec;
}

}  // namespace

const std::vector<HardwareSpec>& known_hardware() {
  static const std::vector<HardwareSpec> hardware = {
      hopper("h100-sxm", "NVIDIA H100 SXM5 80GB (HBM3)", 3.35, 67.0, 495.0, "NVIDIA H100 datasheet", 989.0, 132,
             1.98),
      hopper("h100-pcie", "NVIDIA H100 PCIe 80GB (HBM2e)", 2.0, 51.0, 378.0, "NVIDIA H100 datasheet", 756.0, 114,
             1.755),
      hopper("h200", "NVIDIA H200 SXM 141GB (HBM3e)", 4.8, 67.0, 495.0,
             "NVIDIA H200 datasheet (about 4.3 TB/s measured on a copy)", 989.0, 132, 1.98),
      {"cpu", "interpret mode on a nominal 2-core x86 CI runner", 0.02, 0.1, 0.1,
       "nominal: no tensor cores, so TF32 = FP32", 0, 0, 0, 0, 0, 0, 0, "none: interpret mode is not modelled as a GPU"},
  };
  return hardware;
}

const HardwareSpec* find_hardware(const std::string& key) {
  for (const auto& spec : known_hardware())
    if (spec.key == key) return &spec;
  return nullptr;
}

const HardwareSpec& hardware_spec(const std::string& key) {
  if (const HardwareSpec* spec = find_hardware(key)) return *spec;
  std::string known;
  for (const auto& spec : known_hardware()) known += (known.empty() ? "" : ", ") + spec.key;
  throw Error("unknown hardware key '" + key + "' (known: " + known + ")");
}

SmBlockLimits sm_block_limits(const HardwareSpec& spec, int threads_per_block, std::size_t shared_bytes_per_block,
                              int registers_per_thread) {
  SmBlockLimits limits;
  if (spec.max_threads_per_sm <= 0 || threads_per_block <= 0) return limits;
  limits.threads = spec.max_threads_per_sm / threads_per_block;
  limits.blocks = spec.max_blocks_per_sm;
  const std::size_t shared = shared_bytes_per_block + static_cast<std::size_t>(spec.shared_reserved_per_block);
  limits.shared = static_cast<int>(
      std::min<std::size_t>(static_cast<std::size_t>(spec.shared_bytes_per_sm) / shared, spec.max_blocks_per_sm));
  limits.registers = spec.max_blocks_per_sm;
  if (registers_per_thread > 0) {
    const int warps = (threads_per_block + 31) / 32;
    const int per_warp = (registers_per_thread * 32 + 255) / 256 * 256;
    limits.registers = std::min(limits.registers, spec.registers_per_sm / per_warp / warps);
  }
  return limits;
}

int SmBlockLimits::least() const { return std::max(0, std::min({threads, blocks, shared, registers})); }

const char* SmBlockLimits::limiting() const {
  const int least_blocks = least();
  if (threads == least_blocks) return "threads";
  if (blocks == least_blocks) return "blocks";
  if (shared == least_blocks) return "shared";
  return "registers";
}

int blocks_per_sm(const HardwareSpec& spec, int threads_per_block, std::size_t shared_bytes_per_block,
                  int registers_per_thread) {
  return sm_block_limits(spec, threads_per_block, shared_bytes_per_block, registers_per_thread).least();
}

bool same_grid(const HardwareSpec& a, const HardwareSpec& b) {
  return a.sm_count == b.sm_count && a.max_threads_per_sm == b.max_threads_per_sm &&
         a.max_blocks_per_sm == b.max_blocks_per_sm && a.registers_per_sm == b.registers_per_sm &&
         a.shared_bytes_per_sm == b.shared_bytes_per_sm && a.shared_reserved_per_block == b.shared_reserved_per_block;
}

double Floors::compute_ms(const std::string& precision) const {
  if (precision == "tf32") return tf32_ms;
  if (precision == "bf16" || precision == "fp16") return bf16_ms;
  return fp32_ms;
}

double Floors::bound_ms(const std::string& precision) const { return std::max(memory_ms, compute_ms(precision)); }

Floors floors(double flops, double bytes, const HardwareSpec& hardware) {
  Floors result;
  const double dram = hardware.memory_bandwidth_tb_s * 1e12;
  if (hardware.l2_bandwidth_tb_s > 0 && hardware.l2_bytes > 0) {
    // Every byte passes between L2 and the SMs; only what L2 cannot hold
    // must also pass to or from DRAM (the flush empties L2 of the inputs,
    // but outputs may stay there when the timer stops).
    const double through_l2 = bytes / (hardware.l2_bandwidth_tb_s * 1e12);
    const double through_dram = std::max(0.0, bytes - hardware.l2_bytes) / dram;
    result.memory_ms = std::max(through_l2, through_dram) * 1e3;
    result.l2_resident = bytes <= hardware.l2_bytes;
  } else {
    result.memory_ms = bytes / dram * 1e3;
  }
  // FLOP/s of each method, in TFLOP/s: 3xTF32 and the BF16 correction spend
  // three tensor-core products on each FP32 one.
  const double fp32_rate = std::max({hardware.fp32_tflop_s, hardware.tf32_tflop_s / 3, hardware.bf16_tflop_s / 3});
  const double tf32_rate = std::max(hardware.tf32_tflop_s, hardware.bf16_tflop_s / 3);
  const double bf16_rate = std::max(tf32_rate, hardware.bf16_tflop_s);
  result.fp32_ms = flops / (fp32_rate * 1e12) * 1e3;
  result.tf32_ms = flops / (tf32_rate * 1e12) * 1e3;
  result.bf16_ms = flops / (bf16_rate * 1e12) * 1e3;
  return result;
}

Floors floors(const Suite& suite, const Axes& axes, const HardwareSpec& hardware) {
  return floors(suite.flops(axes), suite.bytes(axes), hardware);
}

Floors floors(const Suite& suite, const Axes& axes, const std::string& hardware_key) {
  return floors(suite, axes, hardware_spec(hardware_key));
}

}  // namespace kg
