// Peak figures per hardware key. The GPU figures are NVIDIA's datasheet
// numbers (dense, no sparsity; docs/roofline.md cites each); the cpu key is a
// nominal 2-core x86 runner, only there so that interpret-mode reports have a
// scale, not a target.
#include "kernelgate/detail/hardware.hpp"

#include <algorithm>

#include "kernelgate/error.hpp"

namespace kg {

namespace {

// What every GPU of one compute capability shares: what one SM holds (CUDA C++
// Programming Guide, "Compute Capabilities", and the tuning guide of each
// architecture for shared memory per SM).
struct SmGeneration {
  int compute_capability;
  int max_threads_per_sm;
  int max_blocks_per_sm;
  int shared_kib_per_sm;  // what blocks may use together, 1 KiB of each reserved
  std::string limits_source() const {
    return "per SM " + std::to_string(max_threads_per_sm) + " threads, " + std::to_string(max_blocks_per_sm) +
           " blocks, 64 Ki registers, " + std::to_string(shared_kib_per_sm) +
           " KiB shared (1 KiB per block reserved): Programming Guide, compute capability " +
           std::to_string(compute_capability / 10) + "." + std::to_string(compute_capability % 10);
  }
};
constexpr SmGeneration kAmpere{80, 2048, 32, 164};
constexpr SmGeneration kAda{89, 1536, 24, 100};
constexpr SmGeneration kHopper{90, 2048, 32, 228};
constexpr SmGeneration kBlackwell{100, 2048, 32, 228};

// L2 bandwidth, which no datasheet gives, in bytes per SM and clock. Hopper:
// 8986 GB/s of a full GH100 (144 SMs at 1755 MHz) in a published table of
// Hopper's figures (PubMed Central PMC10448217, table 3), 35.6; the same
// table gives the latencies, 400 clocks for global memory and 200 for L2:
// round figures, below what pointer-chasing microbenchmarks report, so the
// latency term errs on the fast side. Ampere: the A100 whitepaper's 5120
// bytes per clock over 108 SMs, 47.4. Ada and Blackwell publish none: they
// take Hopper's per-SM figure, to calibrate once a GPU run exists. The floor
// rule's slack (half the floor) keeps a floor a lower bound while the true
// figure is under twice these.
constexpr double kHopperL2BytesPerSmClock = 8986e9 / (144 * 1.755e9);
constexpr double kAmpereL2BytesPerSmClock = 5120.0 / 108;
constexpr int kDramLatencyCycles = 400;
constexpr int kL2LatencyCycles = 200;
constexpr double kMiB = 1024.0 * 1024.0;

// One GPU: the datasheet's dense peaks (no sparsity), where the datasheets
// disagree the larger figure (a floor must stay a lower bound).
struct GpuFigures {
  const char* key;
  const char* label;
  const char* name;
  double dram_tb_s, fp32, tf32, bf16;
  const char* source;       // of the four figures above
  int sms;
  double clock_ghz;         // the boost clock: SMs x FP32 lanes (128; 64 on the A100) x 2 x clock = the FP32 peak
  double l2_mib;
  double l2_bytes_per_sm_clock;
  const char* l2_source;    // of the SMs, clock, L2 size and bandwidth
};

HardwareSpec gpu(const GpuFigures& f, const SmGeneration& generation) {
  HardwareSpec spec;
  spec.key = f.key;
  spec.label = f.label;
  spec.name = f.name;
  spec.compute_capability = generation.compute_capability;
  spec.memory_bandwidth_tb_s = f.dram_tb_s;
  spec.fp32_tflop_s = f.fp32;
  spec.tf32_tflop_s = f.tf32;
  spec.source = f.source;
  spec.bf16_tflop_s = f.bf16;
  spec.sm_count = f.sms;
  spec.sm_clock_ghz = f.clock_ghz;
  spec.l2_bandwidth_tb_s = f.l2_bytes_per_sm_clock * f.sms * f.clock_ghz * 1e9 / 1e12;
  spec.l2_bytes = f.l2_mib * kMiB;
  spec.dram_latency_cycles = kDramLatencyCycles;
  spec.l2_latency_cycles = kL2LatencyCycles;
  spec.roofline_source = std::string(f.l2_source) +
                         "; shared memory: 32 banks x 4 bytes, one wavefront per SM and clock (Programming Guide); "
                         "latencies 400 clocks for global memory, 200 for L2 (PMC10448217, table 3); " +
                         generation.limits_source();
  spec.max_threads_per_sm = generation.max_threads_per_sm;
  spec.max_blocks_per_sm = generation.max_blocks_per_sm;
  spec.registers_per_sm = 64 * 1024;
  spec.shared_bytes_per_sm = generation.shared_kib_per_sm * 1024;
  spec.shared_reserved_per_block = 1024;
  return spec;
}

constexpr const char* kHopperL2 =
    "SMs, clock and L2 size: NVIDIA H100 datasheet and Hopper architecture whitepaper (50 MB); L2 bandwidth: 35.6 "
    "bytes per SM and clock (PMC10448217, table 3: 8986 GB/s at 144 SMs, 1755 MHz)";
constexpr const char* kBlackwellL2 =
    "SMs: 148 (74 of each die's 80), L2: 126 MB, both as measured and published for B200; clock: what the FP32 "
    "peak implies; L2 bandwidth: Hopper's 35.6 bytes per SM and clock, no Blackwell figure being published";

}  // namespace

const std::vector<HardwareSpec>& known_hardware() {
  static const std::vector<HardwareSpec> hardware = {
      gpu({"a100-sxm", "a100", "NVIDIA A100 SXM4 80GB (HBM2e)", 2.039, 19.5, 156.0, 312.0,
           "NVIDIA A100 datasheet (80GB SXM)", 108, 1.41, 40, kAmpereL2BytesPerSmClock,
           "SMs, clock, L2 size (40 MB) and bandwidth (5120 bytes per clock): NVIDIA A100 Tensor Core GPU "
           "architecture whitepaper"},
          kAmpere),
      gpu({"l40s", "l40s", "NVIDIA L40S 48GB (GDDR6)", 0.864, 91.6, 183.0, 362.05, "NVIDIA L40S datasheet", 142,
           2.52, 96, kHopperL2BytesPerSmClock,
           "SMs and clock: NVIDIA L40S datasheet (18176 CUDA cores, 91.6 TFLOP/s); L2: the full AD102's 96 MB (Ada "
           "architecture whitepaper), an upper bound of the board's; L2 bandwidth: Hopper's 35.6 bytes per SM and "
           "clock, no Ada figure being published"},
          kAda),
      gpu({"h100-sxm", "h100", "NVIDIA H100 SXM5 80GB (HBM3)", 3.35, 67.0, 495.0, 989.0, "NVIDIA H100 datasheet",
           132, 1.98, 50, kHopperL2BytesPerSmClock, kHopperL2},
          kHopper),
      gpu({"h100-pcie", "h100", "NVIDIA H100 PCIe 80GB (HBM2e)", 2.0, 51.0, 378.0, 756.0, "NVIDIA H100 datasheet",
           114, 1.755, 50, kHopperL2BytesPerSmClock, kHopperL2},
          kHopper),
      gpu({"h100-nvl", "h100", "NVIDIA H100 NVL 94GB (HBM3)", 3.9, 60.0, 417.5, 835.5,
           "NVIDIA H100 datasheet (H100 NVL: TF32 835 and BF16 1671 TFLOP/s with sparsity, halved)", 132, 1.785, 50,
           kHopperL2BytesPerSmClock, kHopperL2},
          kHopper),
      gpu({"h200", "h200", "NVIDIA H200 SXM 141GB (HBM3e)", 4.8, 67.0, 495.0, 989.0,
           "NVIDIA H200 datasheet (about 4.3 TB/s measured on a copy)", 132, 1.98, 50, kHopperL2BytesPerSmClock,
           kHopperL2},
          kHopper),
      gpu({"gh200", "gh200", "NVIDIA GH200 Grace Hopper superchip's GPU (96 GB HBM3 or 144 GB HBM3e)", 4.9, 67.0,
           495.0, 989.0, "NVIDIA GH200 datasheet (the HBM3e version's 4.9 TB/s: the larger, for both versions)", 132,
           1.98, 50, kHopperL2BytesPerSmClock, kHopperL2},
          kHopper),
      gpu({"b200", "b200", "NVIDIA B200 180GB (HBM3e)", 8.0, 75.0, 1125.0, 2250.0,
           "NVIDIA HGX B200 datasheet, per GPU (FP32 600 TFLOP/s, TF32 18 and BF16 36 PFLOP/s with sparsity, "
           "HBM3e 64 TB/s, over 8 GPUs)",
           148, 75.0 / (148 * 0.256), 126, kHopperL2BytesPerSmClock, kBlackwellL2},
          kBlackwell),
      gpu({"gb200", "gb200", "NVIDIA GB200 Grace Blackwell superchip's GPU (186 GB HBM3e)", 8.0, 80.0, 1250.0,
           2500.0,
           "NVIDIA GB200 NVL72 datasheet, per GPU (FP32 5760 TFLOP/s, TF32 180 and BF16 360 PFLOP/s with sparsity, "
           "HBM3e 576 TB/s, over 72 GPUs)",
           148, 80.0 / (148 * 0.256), 126, kHopperL2BytesPerSmClock, kBlackwellL2},
          kBlackwell),
      {.key = "cpu", .label = "cpu", .name = "interpret mode on a nominal 2-core x86 CI runner",
       .memory_bandwidth_tb_s = 0.02, .fp32_tflop_s = 0.1, .tf32_tflop_s = 0.1,
       .source = "nominal: no tensor cores, so TF32 = FP32",
       .roofline_source = "none: interpret mode is not modelled as a GPU"},
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
