// The cpu key's gate on interpret mode's counters (docs/roofline.md): a
// counted run against the modelled records that the same run publishes.
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/gate.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

using namespace test;  // the fixtures and matchers (fixtures.hpp)

// The fixture cpu run with the same counters for every candidate.
RunResult counted_run() {
  RunResult run = fixture_run("run_cpu_interpret.json");
  for (auto& c : run.candidates)
    c.counters = {{"global_requests", 100},      {"global_load_requests", 80}, {"global_load_sectors", 320},
                  {"global_store_requests", 20}, {"global_store_sectors", 80}, {"dram_bytes", 10000},
                  {"shared_wavefronts", 50},     {"shared_wavefronts_ideal", 50}, {"tensor_flops", 4096},
                  {"barriers", 4},               {"global_load_waits", 8},
                  {"launches", 1},               {"blocks", 100000},         {"max_threads_per_block", 256},
                  {"max_registers_per_thread", 64}};
  return run;
}

void set(CandidateResult& c, const std::string& name, std::uint64_t value) {
  for (auto& [key, count] : c.counters)
    if (key == name) count = value;
}

// The cpu file a publish of this run writes: modelled records, through JSON
// and the reader, so that every rule of the format holds.
BaselineFile modelled_file(const RunResult& run) {
  BaselineFile file;
  file.workload = run.workload;
  file.hardware = "cpu";
  for (const auto& c : run.candidates) file.records.push_back(measured_record(run, c, std::nullopt));
  file.ranking = rank_records(file.records);
  return parse_baseline_file(nlohmann::ordered_json(file), "cpu.json");
}

RunResult gated(RunResult run, const BaselineFile& file, GatePolicy policy = {}) {
  apply_gate(run, evaluate_gate(run, &file, fixture_options(policy)));
  return run;
}

TEST(CounterGate, ACountedRunPublishesModelledRecordsWithItsCounters) {
  const RunResult run = counted_run();
  const BaselineRecord record = measured_record(run, run.candidates[1], std::nullopt);
  EXPECT_EQ(record.trust, Trust::modelled);
  EXPECT_EQ(record.counters, run.candidates[1].counters);
  // Uncounted, the same candidate's record is measured, as before.
  const RunResult plain = fixture_run("run_cpu_interpret.json");
  EXPECT_EQ(measured_record(plain, plain.candidates[1], std::nullopt).trust, Trust::measured);
  EXPECT_TRUE(measured_record(plain, plain.candidates[1], std::nullopt).counters.empty());
}

TEST(CounterGate, TheSameCountersPass) {
  RunResult run = gated(counted_run(), modelled_file(counted_run()));
  for (const auto& c : run.candidates) {
    EXPECT_EQ(c.outcome, Outcome::passed) << c.id << ": " << c.message;
    EXPECT_THAT(check(c, kLatencyCheck).message, HasSubstr("within 1% tolerance"));
    EXPECT_EQ(check(c, kStalenessCheck).outcome, Outcome::passed);
  }
  EXPECT_EQ(gate_exit_code(run), 0);
}

TEST(CounterGate, ACounterAboveTheToleranceRegressesNamingIt) {
  const BaselineFile file = modelled_file(counted_run());
  RunResult run = counted_run();
  set(candidate(run, "fused_tf32"), "shared_wavefronts", 200);    // bank conflicts: 4 per request
  set(candidate(run, "implicit_gemm_tf32"), "dram_bytes", 10101);  // +1.01%: just beyond 1%
  set(candidate(run, "fused_3xtf32"), "dram_bytes", 10099);        // +0.99%: within
  run = gated(std::move(run), file);

  const auto& fused = check(candidate(run, "fused_tf32"), kLatencyCheck);
  EXPECT_EQ(fused.outcome, Outcome::regressed);
  EXPECT_THAT(fused.message, HasSubstr("shared_wavefronts 200 vs 50 (+300.0%)"));
  EXPECT_THAT(fused.message, HasSubstr("wavefronts per ideal 4 vs 1"));
  EXPECT_THAT(fused.message, Not(HasSubstr("dram_bytes")));

  const auto& gemm = check(candidate(run, "implicit_gemm_tf32"), kLatencyCheck);
  EXPECT_EQ(gemm.outcome, Outcome::regressed);
  EXPECT_THAT(gemm.message, HasSubstr("dram_bytes 10101 vs 10000"));
  EXPECT_EQ(candidate(run, "fused_3xtf32").outcome, Outcome::passed);
  EXPECT_EQ(candidate(run, "cudnn_eager").outcome, Outcome::passed);
  EXPECT_EQ(gate_exit_code(run), 1);

  // A looser tolerance lets the 1% pass, never the conflicts.
  GatePolicy loose;
  loose.counter_tolerance = 0.05;
  RunResult again = counted_run();
  set(candidate(again, "fused_tf32"), "shared_wavefronts", 200);
  set(candidate(again, "implicit_gemm_tf32"), "dram_bytes", 10101);
  again = gated(std::move(again), file, loose);
  EXPECT_EQ(candidate(again, "fused_tf32").outcome, Outcome::regressed);
  EXPECT_EQ(candidate(again, "implicit_gemm_tf32").outcome, Outcome::passed);
}

TEST(CounterGate, ARatioCanRegressWhileEveryTotalStays) {
  // The same sectors in half the requests would be better; the same requests
  // touching twice the sectors per request with the stores halved is a
  // worse pattern of loads that the totals alone would hide.
  const BaselineFile file = modelled_file(counted_run());
  RunResult run = counted_run();
  auto& c = candidate(run, "fused_tf32");
  set(c, "global_load_requests", 40);
  set(c, "global_requests", 60);
  run = gated(std::move(run), file);
  const auto& latency = check(candidate(run, "fused_tf32"), kLatencyCheck);
  EXPECT_EQ(latency.outcome, Outcome::regressed);
  EXPECT_THAT(latency.message, HasSubstr("sectors per load request 8 vs 4"));
}

TEST(CounterGate, FewerCountsPassAndAskForAPublish) {
  RunResult run = counted_run();
  set(candidate(run, "fused_tf32"), "dram_bytes", 5000);
  run = gated(std::move(run), modelled_file(counted_run()));
  const auto& c = candidate(run, "fused_tf32");
  EXPECT_EQ(check(c, kLatencyCheck).outcome, Outcome::passed);
  EXPECT_EQ(check(c, kStalenessCheck).outcome, Outcome::stale);
  EXPECT_THAT(check(c, kStalenessCheck).message, HasSubstr("dram_bytes 5000 vs 10000"));

  GatePolicy quiet;
  quiet.win_is_stale = false;
  RunResult again = counted_run();
  set(candidate(again, "fused_tf32"), "dram_bytes", 5000);
  again = gated(std::move(again), modelled_file(counted_run()), quiet);
  EXPECT_EQ(candidate(again, "fused_tf32").outcome, Outcome::passed);
}

TEST(CounterGate, FewerResidentWarpsRegressOnTheLatencyTerm) {
  // 64 registers a thread: 4 blocks of 8 warps per SM; 255: one. The
  // counters stay, the occupancy falls to a quarter, the latency term
  // quadruples.
  const BaselineFile file = modelled_file(counted_run());
  RunResult run = counted_run();
  set(candidate(run, "fused_tf32"), "max_registers_per_thread", 255);
  run = gated(std::move(run), file);
  const auto& latency = check(candidate(run, "fused_tf32"), kLatencyCheck);
  EXPECT_EQ(latency.outcome, Outcome::regressed);
  EXPECT_THAT(latency.message, HasSubstr("latency term on h100-sxm"));
  EXPECT_THAT(latency.message, HasSubstr("(+300.0%)"));
  EXPECT_THAT(latency.message, Not(HasSubstr("on h200")));  // same figures as h100-sxm
  EXPECT_EQ(candidate(run, "implicit_gemm_tf32").outcome, Outcome::passed);
}

TEST(CounterGate, TheLatencyTermIsJudgedOnEveryKey) {
  // 375 blocks of 8 warps: 3000 warps, fewer than h100-sxm's 132 SMs hold at
  // 24 or 32 warps each, more than h100-pcie's 114 hold at 24. Registers
  // 64 -> 72 (32 -> 24 warps per SM) leave h100-sxm's term as it was and
  // raise h100-pcie's: 3000 / 2736 warps at once.
  RunResult base = counted_run();
  for (auto& c : base.candidates) set(c, "blocks", 375);
  const BaselineFile file = modelled_file(base);
  RunResult run = base;
  set(candidate(run, "fused_tf32"), "max_registers_per_thread", 72);
  run = gated(std::move(run), file);
  const auto& latency = check(candidate(run, "fused_tf32"), kLatencyCheck);
  EXPECT_EQ(latency.outcome, Outcome::regressed);
  EXPECT_THAT(latency.message, HasSubstr("latency term on h100-pcie"));
  EXPECT_THAT(latency.message, Not(HasSubstr("on h100-sxm")));
}

TEST(CounterGate, ARecordWithoutACounterCountedSinceGatesTheRestAndSaysSo) {
  // Records published before global_load_waits was counted.
  RunResult older = counted_run();
  for (auto& c : older.candidates) std::erase_if(c.counters, [](const auto& kv) { return kv.first == "global_load_waits"; });
  const BaselineFile file = modelled_file(older);
  RunResult run = counted_run();
  set(candidate(run, "fused_tf32"), "shared_wavefronts", 200);
  run = gated(std::move(run), file);
  EXPECT_EQ(check(candidate(run, "fused_tf32"), kLatencyCheck).outcome, Outcome::regressed);
  const auto& same = candidate(run, "implicit_gemm_tf32");
  EXPECT_EQ(same.outcome, Outcome::passed) << same.message;
  EXPECT_THAT(check(same, kLatencyCheck).message, HasSubstr("predates them (publish to gate them): global_load_waits"));
}

TEST(CounterGate, ARunThatCouldNotCountCannotGateOneThatDidNotTryIsNotCompared) {
  const BaselineFile file = modelled_file(counted_run());
  RunResult run = counted_run();
  candidate(run, "fused_tf32").counters.clear();
  candidate(run, "fused_tf32").counters_unavailable = "more than 4194304 warp requests live at once";
  candidate(run, "implicit_gemm_tf32").counters.clear();
  run = gated(std::move(run), file);
  const auto& unable = check(candidate(run, "fused_tf32"), kLatencyCheck);
  EXPECT_EQ(unable.outcome, Outcome::unreliable);
  EXPECT_THAT(unable.message, HasSubstr("could not count: more than 4194304"));
  const auto& untried = check(candidate(run, "implicit_gemm_tf32"), kLatencyCheck);
  EXPECT_EQ(untried.outcome, Outcome::passed);
  EXPECT_THAT(untried.message, HasSubstr("kernelgate run --counters"));
  EXPECT_EQ(gate_exit_code(run), 1);  // the unreliable one
}

TEST(CounterGate, WithoutAModelledRecordACountedCandidateIsNew) {
  BaselineFile file = modelled_file(counted_run());
  file.records.erase(file.records.begin() + 1);  // fused_tf32's
  file.ranking = rank_records(file.records);
  RunResult run = gated(counted_run(), file);
  EXPECT_EQ(candidate(run, "fused_tf32").outcome, Outcome::new_record);
  EXPECT_EQ(candidate(run, "implicit_gemm_tf32").outcome, Outcome::passed);
}

TEST(CounterGate, AModelledRecordOfOtherAxesOrPrecisionIsStaleNotCompared) {
  BaselineFile file = modelled_file(counted_run());
  file.records[1].axes["batch_size"] += 1;
  file.records[2].precision = "fp32";
  RunResult run = counted_run();
  set(candidate(run, "fused_tf32"), "dram_bytes", 99999);
  run = gated(std::move(run), file);
  for (const char* id : {"fused_tf32", "implicit_gemm_tf32"}) {
    EXPECT_EQ(check(candidate(run, id), kLatencyCheck).outcome, Outcome::passed) << id;
    EXPECT_EQ(check(candidate(run, id), kStalenessCheck).outcome, Outcome::stale) << id;
  }
}

TEST(CounterGate, ModelledRecordsAreRefusedOutsideTheCpuKeyAndNeedTheirCounters) {
  nlohmann::ordered_json file = modelled_file(counted_run());
  file["hardware"] = "h100-sxm";
  EXPECT_THAT(test::error_of([&] { parse_baseline_file(file, "h100-sxm.json"); }),
              HasSubstr("a modelled record belongs in the cpu key's file"));
  auto refusal = [](nlohmann::ordered_json j) {
    j.erase("ranking");  // optional, and it would name the edited record's trust
    try {
      parse_baseline_file(j, "cpu.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  nlohmann::ordered_json bare = modelled_file(counted_run());
  bare["records"][0].erase("counters");
  EXPECT_THAT(refusal(bare), HasSubstr("a modelled record needs its counters"));
  nlohmann::ordered_json measured = modelled_file(counted_run());
  measured["records"][0]["trust"] = "measured";
  EXPECT_THAT(refusal(measured), HasSubstr("only a modelled record has counters"));
}

}  // namespace
}  // namespace kg
