#pragma once
// The hardware keys of kernelgate (baselines/<workload>/<hardware>.json) and
// their peak figures, from which the floors of a workload follow: the time
// any implementation of a precision needs at least, for its bytes at the
// fastest memory level they fit in and for its FLOPs at the fastest method
// that meets the precision (docs/roofline.md, "Floors"), and the roofline
// of interpret mode's counters (kernelgate/detail/roofline.hpp).
#include <cstddef>
#include <string>
#include <vector>

#include "kernelgate/detail/suite.hpp"

namespace kg {

// The key of interpret mode on the CPU: its baselines gate counters, not time.
inline constexpr const char* kCpuHardwareKey = "cpu";

struct HardwareSpec {
  std::string key;               // a100-sxm, l40s, h100-sxm, ..., b200, gb200, cpu
  // The CTest label of its tests (`ctest -L h100`): the GPU it is, whatever
  // its board (h100-sxm, h100-pcie and h100-nvl are all h100), while the key
  // keeps each board's baselines apart. cpu for the cpu key.
  std::string label;
  std::string name;              // what it is, in words
  double memory_bandwidth_tb_s;  // TB/s (1e12 bytes per second)
  double fp32_tflop_s;           // FP32 SIMT peak (FMA = 2 FLOP)
  double tf32_tflop_s;           // dense TF32 tensor-core peak (FP32 peak where there are none)
  std::string source;            // where the figures above come from
  // For the roofline of counted runs; 0 where the key has none (cpu).
  double bf16_tflop_s = 0;       // dense BF16/FP16 tensor-core peak
  double l2_bandwidth_tb_s = 0;  // SM <-> L2, all SMs together
  double l2_bytes = 0;           // L2 capacity (datasheet)
  int sm_count = 0;
  double sm_clock_ghz = 0;       // the boost clock the peaks above assume
  // The latency of a load served by DRAM and by L2, in SM clocks: the
  // roofline's `latency` term (roofline.hpp).
  int dram_latency_cycles = 0;
  int l2_latency_cycles = 0;
  std::string roofline_source;   // where those come from
  // What one SM holds at once (CUDA C++ Programming Guide, "Compute
  // Capabilities", for the key's capability): the occupancy of a launch, hence the grid
  // a persistent kernel sizes to the GPU; 0 where the key has none (cpu).
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int registers_per_sm = 0;
  int shared_bytes_per_sm = 0;         // what blocks may use together
  int shared_reserved_per_block = 0;   // taken by the system from each block's share
  // 80 for compute capability 8.0, 89, 90, 100; 0 where the key has none (cpu).
  int compute_capability = 0;
  // One wavefront (a pass of the 32 banks of 4 bytes) per SM and clock.
  double shared_wavefronts_per_s() const { return sm_count * sm_clock_ghz * 1e9; }
  bool has_roofline() const { return l2_bandwidth_tb_s > 0 && sm_count > 0 && sm_clock_ghz > 0; }
};

// The blocks of a kernel that one SM of `spec` could hold by each of its
// limits alone; registers (allocated per warp in units of 256) only when
// registers_per_thread > 0, else no limit.
struct SmBlockLimits {
  int threads = 0, blocks = 0, shared = 0, registers = 0;
  int least() const;
  const char* limiting() const;  // "threads", "blocks", "shared" or "registers": the first that is least
};
SmBlockLimits sm_block_limits(const HardwareSpec& spec, int threads_per_block, std::size_t shared_bytes_per_block,
                              int registers_per_thread = 0);
// Blocks of a kernel that one SM of `spec` holds at once: the least of its
// limits; 0 when one block does not fit or the key has no such figures.
int blocks_per_sm(const HardwareSpec& spec, int threads_per_block, std::size_t shared_bytes_per_block,
                  int registers_per_thread = 0);
// The same SMs, each holding the same blocks: a kernel that sizes its grid to
// the GPU launches the same grid on both.
bool same_grid(const HardwareSpec& a, const HardwareSpec& b);

// Every known key, in a fixed order.
const std::vector<HardwareSpec>& known_hardware();
// The spec of a key, or nullptr for a key the table does not know.
const HardwareSpec* find_hardware(const std::string& key);
// Throws kg::Error listing the known keys.
const HardwareSpec& hardware_spec(const std::string& key);

// Lower bounds that hold for any implementation (docs/roofline.md, "Floors"),
// assuming only that every element of every tensor moves at least once.
struct Floors {
  // The working set (suite.bytes) between the SMs and L2 at L2 bandwidth,
  // and all of it that L2 cannot hold between L2 and DRAM at DRAM bandwidth:
  // the larger. Without L2 figures (cpu), all of it at DRAM bandwidth.
  double memory_ms = 0;
  bool l2_resident = false;  // the working set fits in L2: the L2 term bounds it
  // suite.flops at the fastest method accurate enough for each precision:
  // fp32, the fastest of FP32 SIMT, 3xTF32 (a third of the TF32 peak) and the
  // three-product BF16 correction (a third of the BF16 peak); tf32, the TF32
  // peak or that BF16 correction; bf16 and fp16, the BF16 peak.
  double fp32_ms = 0;
  double tf32_ms = 0;
  double bf16_ms = 0;
  // The larger of memory and the compute floor of the given precision
  // ("fp32", "tf32", "bf16" or "fp16"; anything else counts as fp32).
  double compute_ms(const std::string& precision) const;
  double bound_ms(const std::string& precision) const;
};

Floors floors(double flops, double bytes, const HardwareSpec& hardware);
Floors floors(const Suite& suite, const Axes& axes, const HardwareSpec& hardware);
Floors floors(const Suite& suite, const Axes& axes, const std::string& hardware_key);

}  // namespace kg
