// Floors per hardware key, against NVIDIA's datasheet figures.
#include <gtest/gtest.h>

#include "kernelgate/error.hpp"
#include "kernelgate/hardware.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

TEST(Hardware, FloorsMatchWorkloadsMd) {
  Suite l1_071 = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), "l1_071_conv_transposed_2d");
  Axes axes = l1_071.default_axes();
  Floors h100 = floors(l1_071, axes, "h100-sxm");
  EXPECT_NEAR(h100.memory_ms, 0.32, 0.005);
  EXPECT_NEAR(h100.tf32_ms, 0.16, 0.005);
  EXPECT_NEAR(h100.fp32_ms, 1.15, 0.01);
  EXPECT_NEAR(floors(l1_071, axes, "h200").memory_ms, 0.22, 0.005);
  EXPECT_DOUBLE_EQ(h100.bound_ms("tf32"), h100.memory_ms);
  EXPECT_DOUBLE_EQ(h100.bound_ms("fp32"), h100.fp32_ms);

  Suite l1_086 = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), "l1_086_conv_depthwise_separable_2d");
  axes = l1_086.default_axes();
  EXPECT_NEAR(floors(l1_086, axes, "h100-sxm").memory_ms, 0.96, 0.005);
  EXPECT_NEAR(floors(l1_086, axes, "h200").memory_ms, 0.67, 0.005);
  EXPECT_NEAR(floors(l1_086, axes, "h200").fp32_ms, 1.10, 0.005);

  Suite l2_078 = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), "l2_078_conv_transpose3d_max_max_sum");
  axes = l2_078.default_axes();
  EXPECT_NEAR(floors(l2_078, axes, "h100-sxm").tf32_ms, 0.44, 0.005);
  EXPECT_NEAR(floors(l2_078, axes, "h100-sxm").fp32_ms, 3.24, 0.005);
  // H100 PCIe: 2.0 TB/s, 51 FP32, 378 TF32 TFLOP/s.
  EXPECT_NEAR(floors(l2_078, axes, "h100-pcie").tf32_ms, 216.79 / 378.0, 0.001);
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
