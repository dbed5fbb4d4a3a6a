// A candidate's workload and id come from its file's path
// (<folder>/<workload>/<id>.cu, kernelgate_candidate_library): a registration
// may leave them out, may repeat them, and may not contradict them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "kernelgate/candidate.hpp"
#include "kernelgate/error.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

using ::testing::HasSubstr;

const RegistrationSite kInCandidateFolder{"kernels/l1_086/fused_fp32.cu", "l1_086", "fused_fp32"};
const RegistrationSite kElsewhere{"tests/runner/test_candidates.cpp", "", ""};

// A registration that gives these names (empty: left out).
Candidate registration(std::string workload, std::string id) {
  Candidate candidate{.precision = "fp32", .summary = "test", .launch = [](const LaunchArgs&) {}};
  candidate.workload = std::move(workload);
  candidate.id = std::move(id);
  return candidate;
}

std::string refusal(const Candidate& candidate, const RegistrationSite& site) {
  return test::error_of([&] { named_by_site(candidate, site); });
}

TEST(Registration, ThePathNamesWhatTheRegistrationLeavesOut) {
  const Candidate named = named_by_site(registration("", ""), kInCandidateFolder);
  EXPECT_EQ(named.workload, "l1_086");
  EXPECT_EQ(named.id, "fused_fp32");
  EXPECT_EQ(named.precision, "fp32");
}

TEST(Registration, NamesThatRepeatThePathAreAccepted) {
  const Candidate named = named_by_site(registration("l1_086", "fused_fp32"), kInCandidateFolder);
  EXPECT_EQ(named.id, "fused_fp32");
}

TEST(Registration, AnIdOtherThanThePathsIsRefusedNamingBoth) {
  EXPECT_EQ(refusal(registration("", "fused_tf32"), kInCandidateFolder),
            "kernels/l1_086/fused_fp32.cu: the registration names the id 'fused_tf32' but the file's path "
            "names 'fused_fp32' (leave .id out: the path gives it)");
  EXPECT_THAT(refusal(registration("l1_071", ""), kInCandidateFolder), HasSubstr("the workload 'l1_071'"));
}

TEST(Registration, NamesAreLowercaseIdentifiers) {
  const RegistrationSite capitals{"kernels/l1_086/Fused-FP32.cu", "l1_086", "Fused-FP32"};
  EXPECT_EQ(refusal(registration("", ""), capitals),
            "kernels/l1_086/Fused-FP32.cu: the id 'Fused-FP32' is not lowercase letters, digits and '_' "
            "(not starting with a digit): rename the file or its folder");
  EXPECT_THAT(refusal(registration("w", "8rows"), kElsewhere), HasSubstr("rename the registration's .id"));
  EXPECT_EQ(named_by_site(registration("w", "implicit_gemm_tf32_wgmma_8rows"), kElsewhere).id,
            "implicit_gemm_tf32_wgmma_8rows");
}

TEST(Registration, OutsideACandidateFolderBothNamesMustBeGiven) {
  EXPECT_EQ(named_by_site(registration("w", "c"), kElsewhere).id, "c");
  EXPECT_EQ(refusal(registration("w", ""), kElsewhere),
            "tests/runner/test_candidates.cpp: the registration gives no id and the file is not "
            "<folder>/<workload>/<id>.cu of a candidate library");
}

// An architecture-specific need holds on its own capability alone, and names
// both sides where it fails; no need, or the cpu device (0), runs anywhere.
TEST(Registration, AnArchitectureNeedNamesItselfAndTheGpu) {
  const ArchitectureNeed wgmma = needs_sm_90a("wgmma");
  EXPECT_EQ(architecture_problem(wgmma, 90), "");
  EXPECT_EQ(architecture_problem(wgmma, 100), "needs sm_90a (wgmma); this GPU is sm_100");
  EXPECT_EQ(architecture_problem(wgmma, 80), "needs sm_90a (wgmma); this GPU is sm_80");
  EXPECT_EQ(architecture_problem(wgmma, 89), "needs sm_90a (wgmma); this GPU is sm_89");
  EXPECT_EQ(architecture_problem(wgmma, 0), "");
  EXPECT_EQ(architecture_problem(needs_sm_100a("tcgen05"), 90), "needs sm_100a (tcgen05); this GPU is sm_90");
  EXPECT_EQ(architecture_problem(needs_sm_100a("tcgen05"), 100), "");
  for (int capability : {0, 80, 89, 90, 100}) EXPECT_EQ(architecture_problem(ArchitectureNeed{}, capability), "");
}

}  // namespace
}  // namespace kg
