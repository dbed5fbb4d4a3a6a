// Floors per hardware key, against NVIDIA's datasheet figures.
#include <gtest/gtest.h>

#include "kernelgate/error.hpp"
#include "kernelgate/hardware.hpp"
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

TEST(Hardware, KnownKeysAndErrors) {
  std::vector<std::string> keys;
  for (const auto& spec : known_hardware()) keys.push_back(spec.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"h100-sxm", "h100-pcie", "h200", "cpu"}));
  EXPECT_EQ(test::error_of([&] { hardware_spec("a100"); }),
            "unknown hardware key 'a100' (known: h100-sxm, h100-pcie, h200, cpu)");
}

}  // namespace
}  // namespace kg
