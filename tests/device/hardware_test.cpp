// Floors per hardware key, against NVIDIA's datasheet figures.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/hardware.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

// The floors are lower bounds for any implementation (docs/roofline.md,
// "Floors"); the figures below are worked out by hand from the datasheets.
TEST(Hardware, FloorsAreTheFastestMethodAndMemoryLevel) {
  Suite l1_071 = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), "l1_071_conv_transposed_2d");
  Axes axes = l1_071.default_axes();  // 77309411328 FLOP, 1076928512 bytes
  Floors h100 = floors(l1_071, axes, "h100-sxm");
  // FP32-accurate: the three-product BF16 correction at 989 / 3 TFLOP/s beats
  // 3xTF32 (495 / 3) and FP32 SIMT (67).
  EXPECT_NEAR(h100.fp32_ms, 0.23451, 0.00001);
  EXPECT_NEAR(h100.tf32_ms, 0.15618, 0.00001);  // the TF32 peak
  EXPECT_NEAR(h100.bf16_ms, 0.07817, 0.00001);  // the BF16 peak
  // Above L2's 50 MiB: all but L2's worth through DRAM at 3.35 TB/s.
  EXPECT_FALSE(h100.l2_resident);
  EXPECT_NEAR(h100.memory_ms, 0.30582, 0.00001);
  EXPECT_NEAR(floors(l1_071, axes, "h200").memory_ms, 0.21344, 0.00001);  // 4.8 TB/s
  EXPECT_NEAR(floors(l1_071, axes, "h100-pcie").fp32_ms, 0.30678, 0.00001);  // 756 / 3
  EXPECT_DOUBLE_EQ(h100.bound_ms("fp32"), h100.memory_ms);
  EXPECT_DOUBLE_EQ(h100.bound_ms("bf16"), h100.memory_ms);
  EXPECT_DOUBLE_EQ(h100.compute_ms("fp16"), h100.bf16_ms);
  EXPECT_DOUBLE_EQ(h100.compute_ms("anything"), h100.fp32_ms);

  // At the ci preset l2_078's 576832 bytes fit in L2: its bandwidth bounds
  // them (35.6 bytes per SM and clock: 9.29 TB/s), not DRAM's.
  Suite l2_078 = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), "l2_078_conv_transpose3d_max_max_sum");
  const Floors small = floors(l2_078, l2_078.resolve_axes("ci"), "h100-sxm");
  EXPECT_TRUE(small.l2_resident);
  EXPECT_NEAR(small.memory_ms, 6.2070e-5, 1e-8);

  // No L2 figures (cpu): everything through memory.
  const Floors cpu = floors(l2_078, l2_078.resolve_axes("ci"), "cpu");
  EXPECT_FALSE(cpu.l2_resident);
  EXPECT_NEAR(cpu.memory_ms, 576832 / 0.02e12 * 1e3, 1e-9);
}

TEST(Hardware, BlocksPerSmAreTheLeastTheSmsLimitsAllow) {
  const HardwareSpec& h100 = hardware_spec("h100-sxm");
  EXPECT_EQ(blocks_per_sm(h100, 256, 0), 8);              // 2048 threads
  EXPECT_EQ(blocks_per_sm(h100, 32, 0), 32);              // 32 blocks
  EXPECT_EQ(blocks_per_sm(h100, 256, 100 * 1024), 2);     // 228 KiB, 1 KiB of each block reserved
  EXPECT_EQ(blocks_per_sm(h100, 256, 113 * 1024), 2);     // 2 x 114 KiB is all of it
  EXPECT_EQ(blocks_per_sm(h100, 256, 113 * 1024 + 1), 1);
  EXPECT_EQ(blocks_per_sm(h100, 256, 0, 128), 2);         // 32 Ki registers a block
  EXPECT_EQ(blocks_per_sm(h100, 256, 0, 121), 2);         // 121 take 128 (per warp, units of 256)
  EXPECT_EQ(blocks_per_sm(h100, 256, 0, 129), 1);
  EXPECT_EQ(blocks_per_sm(h100, 4096, 0), 0);             // never fits
  EXPECT_EQ(blocks_per_sm(hardware_spec("cpu"), 256, 0), 0);  // no such figures
}

TEST(Hardware, TheLimitThatSetsTheBlocksIsNamed) {
  const HardwareSpec& h100 = hardware_spec("h100-sxm");
  EXPECT_STREQ(sm_block_limits(h100, 256, 0).limiting(), "threads");
  EXPECT_STREQ(sm_block_limits(h100, 32, 0).limiting(), "blocks");
  EXPECT_STREQ(sm_block_limits(h100, 256, 100 * 1024, 64).limiting(), "shared");  // 2 by shared, 4 by registers
  const SmBlockLimits limits = sm_block_limits(h100, 256, 0, 129);
  EXPECT_STREQ(limits.limiting(), "registers");
  EXPECT_EQ(limits.registers, 1);
  EXPECT_EQ(limits.threads, 8);
}

// Ampere and Blackwell, worked by hand: on the A100 FP32 accuracy is
// fastest through the BF16 correction (312 / 3 = 104 TFLOP/s, against 52
// for 3xTF32 and 19.5 for FP32 SIMT), on the B200 too (750 against 375 and
// 75).
TEST(Hardware, FloorsOfOtherArchitectures) {
  Suite l1_071 = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), "l1_071_conv_transposed_2d");
  Axes axes = l1_071.default_axes();  // 77309411328 FLOP, 1076928512 bytes
  const Floors a100 = floors(l1_071, axes, "a100-sxm");
  EXPECT_NEAR(a100.fp32_ms, 0.74336, 0.00001);
  EXPECT_NEAR(a100.tf32_ms, 0.49557, 0.00001);
  EXPECT_NEAR(a100.bf16_ms, 0.24779, 0.00001);
  EXPECT_NEAR(a100.memory_ms, 0.50760, 0.00001);  // all but 40 MiB at 2.039 TB/s
  const Floors b200 = floors(l1_071, axes, "b200");
  EXPECT_NEAR(b200.fp32_ms, 0.10308, 0.00001);
  EXPECT_NEAR(b200.bf16_ms, 0.03436, 0.00001);
  EXPECT_NEAR(b200.memory_ms, 0.11810, 0.00001);  // all but 126 MiB at 8 TB/s
}

// Every GPU key is complete: its peaks and their source, its SMs and clock
// agreeing with its FP32 peak (128 FP32 lanes per SM, 64 on the A100, an
// FMA a clock), what one SM holds, its compute capability and label.
TEST(Hardware, EveryGpuKeyHasEveryFigureAndItsSource) {
  for (const HardwareSpec& spec : known_hardware()) {
    if (spec.key == kCpuHardwareKey) continue;
    SCOPED_TRACE(spec.key);
    EXPECT_GT(spec.memory_bandwidth_tb_s, 0);
    EXPECT_GE(spec.tf32_tflop_s, spec.fp32_tflop_s);
    EXPECT_GE(spec.bf16_tflop_s, spec.tf32_tflop_s);
    EXPECT_FALSE(spec.source.empty());
    EXPECT_FALSE(spec.roofline_source.empty());
    EXPECT_TRUE(spec.has_roofline());
    const int fp32_lanes = spec.compute_capability == 80 ? 64 : 128;
    EXPECT_NEAR(spec.sm_count * fp32_lanes * 2 * spec.sm_clock_ghz / 1e3, spec.fp32_tflop_s,
                0.03 * spec.fp32_tflop_s);
    EXPECT_GT(spec.l2_bytes, 0);
    EXPECT_GT(spec.max_threads_per_sm, 0);
    EXPECT_GT(spec.shared_bytes_per_sm, 0);
    EXPECT_TRUE(spec.compute_capability == 80 || spec.compute_capability == 89 || spec.compute_capability == 90 ||
                spec.compute_capability == 100);
    EXPECT_FALSE(spec.label.empty());
  }
}

// One GPU label per GPU of the table, the same in the CTest cases
// (kernelgate-functions.cmake's KERNELGATE_GPU_LABELS) and in the test
// presets of CMakePresets.json: `ctest -L b200` and `ctest --preset b200`
// exist for every GPU the table knows.
TEST(Hardware, TheTablesLabelsAreTheCTestLabelsAndPresets) {
  std::set<std::string> table;
  for (const HardwareSpec& spec : known_hardware())
    if (spec.key != kCpuHardwareKey) table.insert(spec.label);
  std::set<std::string> cmake;
  std::stringstream list(KERNELGATE_GPU_LABELS_OF_CMAKE);
  for (std::string label; std::getline(list, label, ',');) cmake.insert(label);
  EXPECT_EQ(cmake, table);
  std::ifstream file(KERNELGATE_PRESETS_FILE);
  const nlohmann::json presets = nlohmann::json::parse(file);
  std::set<std::string> tested;
  for (const auto& preset : presets.at("testPresets")) {
    const std::string name = preset.at("name");
    if (name == "cpu" || name == "gpu") continue;
    EXPECT_EQ(preset.at("filter").at("include").at("label"), "^" + name + "$") << name;
    tested.insert(name);
  }
  EXPECT_EQ(tested, table);
}

TEST(Hardware, KnownKeysAndErrors) {
  std::vector<std::string> keys;
  for (const auto& spec : known_hardware()) keys.push_back(spec.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"a100-sxm", "l40s", "h100-sxm", "h100-pcie", "h100-nvl", "h200",
                                            "gh200", "b200", "gb200", "cpu"}));
  EXPECT_EQ(test::error_of([&] { hardware_spec("a100"); }),
            "unknown hardware key 'a100' (known: a100-sxm, l40s, h100-sxm, h100-pcie, h100-nvl, h200, gh200, b200, "
            "gb200, cpu)");
}

}  // namespace
}  // namespace kg
