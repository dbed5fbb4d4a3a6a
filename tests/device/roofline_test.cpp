// The roofline of counted runs, on counters whose terms are known by hand.
#include <gtest/gtest.h>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/roofline.hpp"

namespace kg {
namespace {

const HardwareSpec& h100() { return hardware_spec("h100-sxm"); }

TEST(Roofline, EachTermIsItsWorkOverItsPeak) {
  // 3.35e9 bytes at 3.35 TB/s: 1 ms of DRAM.
  const NamedCounters counters = {{"dram_bytes", 3'350'000'000},
                                  {"global_load_sectors", 1'000'000},
                                  {"global_store_sectors", 500'000},
                                  {"shared_wavefronts", 261'360'000},
                                  {"tensor_flops", 495'000'000'000}};
  const ModelledTime model = modelled_time(counters, "tf32", 1e12, h100());
  ASSERT_EQ(model.terms.size(), 4u);  // a tensor kernel has no fp32 term
  auto term = [&](const std::string& name) {
    for (const auto& t : model.terms)
      if (t.name == name) return t.ms;
    ADD_FAILURE() << "no term " << name;
    return 0.0;
  };
  EXPECT_NEAR(term("dram"), 1.0, 1e-12);
  EXPECT_NEAR(term("tensor"), 1.0, 1e-12);  // 495 GFLOP at 495 TFLOP/s
  // 132 SMs x 1.98 GHz = 261.36 G wavefronts per second.
  EXPECT_NEAR(term("shared"), 1.0, 1e-12);
  // 1.5 M sectors x 32 bytes at 35.6 bytes per SM and clock.
  EXPECT_NEAR(term("l2"), 48e6 / (8986e9 / (144 * 1.755e9) * 132 * 1.98e9) * 1e3, 1e-12);
  EXPECT_NEAR(h100().l2_bandwidth_tb_s, 9.29, 0.01);
}

TEST(Roofline, TheBoundIsTheLargestTermAndTheOthersFollowInOrder) {
  const NamedCounters counters = {{"dram_bytes", 3'350'000'000}, {"global_load_sectors", 200'000'000}};
  const ModelledTime model = modelled_time(counters, "fp32", 67e9, h100());
  // dram 1 ms, fp32 67 GFLOP / 67 TFLOP/s = 1 ms too (a tie keeps the order of
  // roofline.hpp), l2 6.4e9 bytes / 9.29 TB/s = 0.69 ms, shared 0.
  EXPECT_EQ(model.bound, "dram");
  EXPECT_DOUBLE_EQ(model.time_ms, model.terms[0].ms);
  ASSERT_EQ(model.terms.size(), 4u);
  EXPECT_EQ(model.terms[1].name, "fp32");
  EXPECT_EQ(model.terms[2].name, "l2");
  EXPECT_EQ(model.terms[3].name, "shared");
  EXPECT_EQ(model.describe(), "modelled on h100-sxm: 1 ms, bound by dram (1 ms), then fp32 (1 ms)");
}

TEST(Roofline, HalfPrecisionUsesTheBf16PeakAndTheRestTf32) {
  const NamedCounters counters = {{"tensor_flops", 989'000'000'000}};
  EXPECT_NEAR(modelled_time(counters, "bf16", 0, h100()).time_ms, 1.0, 1e-12);
  EXPECT_NEAR(modelled_time(counters, "fp32", 0, h100()).time_ms, 989.0 / 495.0, 1e-12);
  EXPECT_EQ(modelled_time(counters, "fp32", 0, h100()).bound, "tensor");
}

double term_ms(const ModelledTime& model, const std::string& name) {
  for (const auto& t : model.terms)
    if (t.name == name) return t.ms;
  ADD_FAILURE() << "no term " << name;
  return 0.0;
}

TEST(Roofline, LatencyIsTheWaitsOverTheResidentWarpsTimesTheMeanLatency) {
  // Blocks of 256 threads without shared memory or known registers: 8 per
  // SM by threads, 64 warps, 8448 over 132 SMs. 1000 waits of each of them,
  // for bytes that all come from DRAM (400 clocks): 1000 x 400 / 1.98 GHz.
  NamedCounters counters = {{"global_load_waits", 8448 * 1000},
                            {"global_load_sectors", 1'000'000},
                            {"dram_read_bytes", 32'000'000},
                            {"launches", 1},
                            {"blocks", 1'000'000},
                            {"max_threads_per_block", 256}};
  EXPECT_NEAR(term_ms(modelled_time(counters, "fp32", 0, h100()), "latency"), 1000 * 400 / 1.98e9 * 1e3, 1e-12);
  // Half the bytes hit L2 (200 clocks): a mean of 300.
  counters[2].second = 16'000'000;
  EXPECT_NEAR(term_ms(modelled_time(counters, "fp32", 0, h100()), "latency"), 1000 * 300 / 1.98e9 * 1e3, 1e-12);
  // A grid of 4 blocks has 32 warps to wait together, not 8448: it is
  // latency-bound.
  counters[4].second = 4;
  const ModelledTime small = modelled_time(counters, "fp32", 0, h100());
  EXPECT_NEAR(term_ms(small, "latency"), 8448.0 * 1000 / 32 * 300 / 1.98e9 * 1e3, 1e-9);
  EXPECT_EQ(small.bound, "latency");
  // Registers that leave one block per SM: 8 warps each, 1056 in all.
  counters[4].second = 1'000'000;
  counters.push_back({"max_registers_per_thread", 255});
  EXPECT_NEAR(term_ms(modelled_time(counters, "fp32", 0, h100()), "latency"), 8448.0 * 1000 / 1056 * 300 / 1.98e9 * 1e3,
              1e-9);
}

TEST(Roofline, EveryGpuKeyAndNotTheCpu) {
  std::vector<std::string> keys;
  for (const HardwareSpec* hardware : roofline_hardware()) keys.push_back(hardware->key);
  EXPECT_EQ(keys, (std::vector<std::string>{"a100-sxm", "l40s", "h100-sxm", "h100-pcie", "h100-nvl", "h200", "gh200",
                                            "b200", "gb200"}));
  EXPECT_THROW(modelled_time({}, "fp32", 0, hardware_spec("cpu")), Error);
  // The same counters are faster where the memory is: h200's 4.8 TB/s.
  EXPECT_NEAR(modelled_time({{"dram_bytes", 4'800'000'000}}, "fp32", 0, hardware_spec("h200")).time_ms, 1.0, 1e-12);
}

// No guess where interpret mode has no instruction model: wgmma counters on
// a GPU without wgmma get no time, and Blackwell's tensor term says it is
// only the bound its dense peak gives.
TEST(Roofline, WhatTheModelDoesNotKnowItSays) {
  const NamedCounters wgmma = {{"tensor_flops", 1'000'000}, {"wgmma_flops", 1'000'000}};
  for (const char* key : {"b200", "a100-sxm", "l40s"}) {
    const ModelledTime model = modelled_time(wgmma, "tf32", 0, hardware_spec(key));
    EXPECT_EQ(model.time_ms, 0) << key;
    EXPECT_TRUE(model.terms.empty()) << key;
    EXPECT_NE(model.not_modelled.find("wgmma is sm_90a's and does not run on sm_"), std::string::npos) << key;
  }
  EXPECT_EQ(modelled_time(wgmma, "tf32", 0, hardware_spec("b200")).describe(),
            "not modelled on b200: wgmma is sm_90a's and does not run on sm_100");
  EXPECT_TRUE(modelled_time(wgmma, "tf32", 0, h100()).not_modelled.empty());
  const NamedCounters mma = {{"tensor_flops", 1'125'000'000}};
  const ModelledTime blackwell = modelled_time(mma, "tf32", 0, hardware_spec("b200"));
  ASSERT_EQ(blackwell.bound, "tensor");
  EXPECT_NEAR(blackwell.time_ms, 0.001, 1e-12);  // 1.125 GFLOP at 1125 TFLOP/s
  EXPECT_NE(blackwell.terms[0].what.find("a lower bound: no instruction model of mma.sync or tcgen05 on sm_100"),
            std::string::npos);
  const nlohmann::ordered_json by_key = modelled_json(wgmma, "tf32", 1e6, 1e6, {&hardware_spec("b200")});
  EXPECT_FALSE(by_key.at("b200").contains("time_ms"));
  EXPECT_EQ(by_key.at("b200").at("not_modelled"), "wgmma is sm_90a's and does not run on sm_100");
}

}  // namespace
}  // namespace kg
