#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/source_lint.hpp"

namespace {

namespace fs = std::filesystem;
using kg::lint::Finding;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// "line rule" for each finding of a snippet.
std::vector<std::string> found(const std::string& source) {
  std::vector<std::string> lines;
  for (const Finding& f : kg::lint::lint_source("candidate.cu", source))
    lines.push_back(std::to_string(f.line) + " " + f.rule);
  return lines;
}

std::set<std::string> rules_of(const fs::path& file) {
  std::set<std::string> rules;
  for (const Finding& f : kg::lint::lint_file(file)) rules.insert(f.rule);
  return rules;
}

TEST(LintStreams, CreatingOrConfiguringAStreamEventGraphOrLimitIsAFinding) {
  EXPECT_THAT(found("void f() {\n cudaStream_t s;\n cudaStreamCreate(&s);\n}"), ElementsAre("3 streams-and-limits"));
  EXPECT_THAT(found("void f() { cudaEvent_t e; }"), ElementsAre("1 streams-and-limits"));
  EXPECT_THAT(found("void f() { cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1 << 20); }"),
              ElementsAre("1 streams-and-limits"));
  EXPECT_THAT(found("void f(S s) { cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v); }"),
              ElementsAre("1 streams-and-limits"));
  EXPECT_THAT(found("void f() { cudaGraphLaunch(g, 0); }"), ElementsAre("1 streams-and-limits"));
}

TEST(LintStreams, WaitingOnTheGivenStreamIsNot) {
  EXPECT_THAT(found("void f(cudaStream_t s) { cudaStreamSynchronize(s); cudaFuncSetAttribute(k, a, 1); }"),
              IsEmpty());
}

TEST(LintProcess, ProcessesSignalsExitsAndThreadsAreFindings) {
  EXPECT_THAT(found("void f() { if (fork() == 0) setsid(); }"), ElementsAre("1 process-control"));
  EXPECT_THAT(found("void f() {\n kill(getppid(), SIGSTOP);\n}"), ElementsAre("2 process-control"));
  EXPECT_THAT(found("void f() { std::thread t(g); }"), ElementsAre("1 process-control"));
  EXPECT_THAT(found("void f() { _exit(0); }"), ElementsAre("1 process-control"));
  EXPECT_THAT(found("void f() { std::abort(); }"), ElementsAre("1 process-control"));
  EXPECT_THAT(found("#include <thread>\n"), ElementsAre("1 process-control"));
}

TEST(LintProcess, NamesThatOnlyLookAlikeAreNot) {
  // A variable named thread, a member called exit, a function of the file's
  // own namespace called kill, and the words in comments and strings.
  EXPECT_THAT(found("__global__ void k() { const int thread = threadIdx.x; }\n"
                    "void f(Runner& r) { r.exit(); mine::kill(1); }\n"
                    "// fork() here would be bad\n"
                    "const char* kText = \"calls abort()\";\n"),
              IsEmpty());
}

TEST(LintFiles, FilesDescriptorsProcAndTheEnvironmentAreFindings) {
  EXPECT_THAT(found("void f() { setenv(\"KG_INTERPRET_ORDER\", \"forward\", 1); }"), ElementsAre("1 files-and-environment"));
  EXPECT_THAT(found("void f() { auto p = std::getenv(\"X\"); }"), ElementsAre("1 files-and-environment"));
  EXPECT_THAT(found("void f() { (void)!write(1, b, n); }"), ElementsAre("1 files-and-environment"));
  EXPECT_THAT(found("void f() { ::write(1, b, n); }"), ElementsAre("1 files-and-environment"));
  EXPECT_THAT(found("void f() { std::ofstream(\"result.json\") << x; }"), ElementsAre("1 files-and-environment"));
  // A path in a raw string, on the line where the string starts.
  EXPECT_THAT(found("/* one\n two */\nconst auto p = R\"x(\n/proc/self/fd/1)x\";"),
              ElementsAre("3 files-and-environment"));
}

TEST(LintPatching, SymbolLookupsAndPageProtectionAreFindings) {
  EXPECT_THAT(found("void f() { auto p = dlsym(RTLD_NEXT, \"cudaEventElapsedTime\"); }"),
              ElementsAre("1 process-patching"));
  EXPECT_THAT(found("void f() { mprotect(page, 4096, 7); }"), ElementsAre("1 process-patching"));
  EXPECT_THAT(found("#include <dlfcn.h>\n"), ElementsAre("1 process-patching"));
}

TEST(LintMacros, ACallInsideAMacroBodyIsStillAFinding) {
  EXPECT_THAT(found("#define QUIETLY(x) \\\n  setenv(x, \"1\", 1)\nvoid f() { QUIETLY(\"A\"); }"),
              ElementsAre("1 files-and-environment"));
}

// A candidate's own test of the architecture (kernelgate/arch.hpp is the one
// place): a branch interpret mode never takes, or a guard to keep right in
// every file. Naming the macro in code is as much a test as a directive.
TEST(LintArchitecture, TestingTheArchitectureMacrosIsAFinding) {
  EXPECT_THAT(found("#if __CUDA_ARCH__ >= 900\nconst int x = 1;\n#endif"), ElementsAre("1 architecture-guard"));
  EXPECT_THAT(found("#ifdef __CUDA_ARCH__\nconst int x = 1;\n#elif defined(__CUDA_ARCH_FEAT_SM90_ALL)\n#endif"),
              ElementsAre("1 architecture-guard", "3 architecture-guard"));
  EXPECT_THAT(found("int arch() { return __CUDA_ARCH__; }"), ElementsAre("1 architecture-guard"));
  EXPECT_THAT(found("#include \"kernelgate/arch.hpp\"\n#if KG_ARCH_HAS_SM90A\nconst int x = 1;\n#endif"),
              IsEmpty());
}

TEST(LintState, StaticLocalsAndMutableGlobalsAreFindings) {
  EXPECT_THAT(found("void launch(const kg::LaunchArgs& a) {\n  static int calls = 0;\n}"),
              ElementsAre("2 state-between-calls"));
  EXPECT_THAT(found("void launch() {\n  if (x) {\n    static std::vector<float> last;\n  }\n}"),
              ElementsAre("3 state-between-calls"));
  EXPECT_THAT(found("void launch() { thread_local int n; }"), ElementsAre("1 state-between-calls"));
  EXPECT_THAT(found("namespace {\nstd::vector<float> cache;\n}"), ElementsAre("2 state-between-calls"));
  EXPECT_THAT(found("int calls = 0;"), ElementsAre("1 state-between-calls"));
  EXPECT_THAT(found("float table[] = {1, 2};"), ElementsAre("1 state-between-calls"));
  EXPECT_THAT(found("std::vector<int> v{1, 2};"), ElementsAre("1 state-between-calls"));
  EXPECT_THAT(found("__device__ float scratch[1024];"), ElementsAre("1 state-between-calls"));
  EXPECT_THAT(found("struct Cache {\n  static int hits;\n};"), ElementsAre("2 state-between-calls"));
  // Inside a lambda passed to the registration macro.
  EXPECT_THAT(found("KG_REGISTER_CANDIDATE({.launch = [](const kg::LaunchArgs& a) {\n static bool done = false;\n}});"),
              ElementsAre("2 state-between-calls"));
  // A lambda that initialises a static local: the static is the finding.
  EXPECT_THAT(found("void f() {\n static cudaStream_t own = [] { return make(); }();\n}"),
              ElementsAre("2 state-between-calls"));
}

TEST(LintState, ConstantsFunctionsTypesAndRegistrationsAreNot) {
  EXPECT_THAT(found("namespace {\n"
                    "constexpr int kThreads = 256;\n"
                    "const float kScale = 2.0f;\n"
                    "__constant__ float weights[64];\n"
                    "constexpr const char* kWorkload = \"w\";\n"
                    "using Shape = kg::Shape;\n"
                    "struct Tile { int rows = 4; float* data; static constexpr int kPad = 1; "
                    "static Tile make(int rows); };\n"
                    "enum class Mode { fast, slow };\n"
                    "template <class T, int N> __device__ T load(const T* p) { return p[N]; }\n"
                    "void launch(const kg::LaunchArgs& args);\n"
                    "void launch(const kg::LaunchArgs& args) {\n"
                    "  static constexpr int kBlock = 128;\n"
                    "  static const auto kLimit = 4;\n"
                    "  __shared__ float tile[32];\n"
                    "  float sum = 0;\n"
                    "  const auto n = static_cast<int>(args.size);\n"
                    "}\n"
                    "KG_REGISTER_CANDIDATE({.precision = \"tf32\", .launch = launch});\n"
                    "}  // namespace\n"),
              IsEmpty());
}

TEST(LintPrecision, HalfTypesInAFileThatDeclaresFp32AreFindings) {
  const std::string uses_half = "#include <cuda_fp16.h>\n__device__ float f(float x) { return __half2float(__float2half(x)); }\n";
  EXPECT_THAT(found(uses_half + "KG_REGISTER_CANDIDATE({.precision = \"fp32\"});"),
              ElementsAre("1 lower-precision", "2 lower-precision"));
  EXPECT_THAT(found(uses_half + "KG_REGISTER_CANDIDATE({.precision = \"bf16\"});"), IsEmpty());
  // cuda_fp16.h's short name as a type, and as the variable name it often is.
  EXPECT_THAT(found("__device__ void f(const float* p) {\n  half h;\n  auto q = reinterpret_cast<const half2*>(p);\n}\n"
                    "constexpr auto p = \"fp32\";"),
              ElementsAre("2 lower-precision", "3 lower-precision"));
  EXPECT_THAT(found("__device__ void f(float* s) {\n  for (unsigned half = 16; half > 0; half /= 2) s[half] += 1;\n}\n"
                    "constexpr auto p = \"fp32\";"),
              IsEmpty());
  EXPECT_THAT(found("__device__ void f() { asm(\"cvt.rn.bf16x2.f32 %0, %1, %2;\"); }\nauto p = \"fp32\";"),
              ElementsAre("1 lower-precision", "2 state-between-calls"));
  EXPECT_THAT(found("__device__ void f() { asm(\"cvt.rna.tf32.f32 %0, %1;\"); }\nconstexpr auto p = \"fp32\";"),
              IsEmpty());
}

TEST(LintFile, AnUnreadableFileIsAnErrorNamingIt) {
  try {
    kg::lint::lint_file("no/such/candidate.cu");
    FAIL() << "no error";
  } catch (const kg::Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("no/such/candidate.cu: cannot read"));
  }
}

TEST(LintFile, TheFindingLineNamesFileLineRuleAndWhatItSaw) {
  const std::vector<Finding> findings = kg::lint::lint_source("k/a.cu", "void f() {\n  setenv(\"A\", \"1\", 1);\n}");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(kg::lint::format(findings[0]), "k/a.cu:2: files-and-environment: calls setenv");
}

// The candidates this project ships lint clean: a finding there is either a
// kernel to fix or a rule that cries wolf.
TEST(LintShipped, EveryShippedCandidateFileIsClean) {
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(KERNELGATE_SOURCE_ROOT) / "kernels")) {
    const std::string extension = entry.path().extension().string();
    if (extension != ".cu" && extension != ".cuh") continue;
    ++files;
    for (const Finding& f : kg::lint::lint_file(entry.path())) ADD_FAILURE() << kg::lint::format(f);
  }
  EXPECT_GE(files, 30);
}

// Each adversarial candidate with the rules its trick shows in its own file;
// the empty ones misbehave in their arithmetic or through the shared helper
// (a wrong value, a write past the end, the default stream passed to it),
// which the runner's checks catch and no source rule can see. A new
// adversarial candidate must be added here.
TEST(LintAdversarial, EachTrickThatShowsInTheSourceIsFlagged) {
  const std::map<std::string, std::set<std::string>> expected = {
      {"l1_071_conv_transposed_2d/moves_stream_when_timed.cu", {"state-between-calls", "streams-and-limits"}},
      {"l1_071_conv_transposed_2d/nan_between_samples.cu", {}},
      {"l1_071_conv_transposed_2d/skips_when_timed.cu", {"state-between-calls"}},
      {"l1_071_conv_transposed_2d/writes_parent_stdout.cu", {"files-and-environment", "process-control"}},
      {"l1_086_conv_depthwise_separable_2d/aborts.cu", {"process-control"}},
      {"l1_086_conv_depthwise_separable_2d/aborts_in_workspace_bytes.cu", {"process-control"}},
      {"l1_086_conv_depthwise_separable_2d/destroys_its_stream.cu", {"streams-and-limits"}},
      {"l1_086_conv_depthwise_separable_2d/forges_result.cu", {"files-and-environment", "process-control"}},
      {"l1_086_conv_depthwise_separable_2d/ignores_stream.cu", {}},
      {"l1_086_conv_depthwise_separable_2d/loops_forever.cu", {}},
      {"l1_086_conv_depthwise_separable_2d/mutates_input.cu", {}},
      {"l1_086_conv_depthwise_separable_2d/replays_previous.cu", {"state-between-calls"}},
      {"l1_086_conv_depthwise_separable_2d/replays_by_content.cu", {"state-between-calls"}},
      {"l1_086_conv_depthwise_separable_2d/segfaults.cu", {}},
      {"l1_086_conv_depthwise_separable_2d/sets_thread_order.cu", {"files-and-environment"}},
      {"l1_086_conv_depthwise_separable_2d/writes_half.cu", {}},
      {"l1_086_conv_depthwise_separable_2d/writes_nan.cu", {}},
      {"l1_086_conv_depthwise_separable_2d/writes_past_end.cu", {}},
      {"l1_086_conv_depthwise_separable_2d/wrong_by_one.cu", {}},
      {"l2_078_conv_transpose3d_max_max_sum/leaves_grandchild.cu",
       {"files-and-environment", "process-control", "state-between-calls"}},
      {"l2_078_conv_transpose3d_max_max_sum/replays_when_timed.cu", {"state-between-calls"}},
      {"l2_078_conv_transpose3d_max_max_sum/stops_parent.cu",
       {"files-and-environment", "process-control", "state-between-calls"}},
      {"l2_078_conv_transpose3d_max_max_sum/throws_in_unsupported_reason.cu", {}},
  };
  const fs::path root = fs::path(KERNELGATE_TEST_DATA_DIR) / "adversarial";
  std::set<std::string> seen;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".cu") continue;
    const std::string name = fs::relative(entry.path(), root).string();
    if (name.rfind("duplicate/", 0) == 0) continue;  // a copy of a shipped kernel, for the duplicate-id test
    seen.insert(name);
    const auto want = expected.find(name);
    if (want == expected.end()) {
      ADD_FAILURE() << name << ": not in this table; say which rules its trick trips";
      continue;
    }
    EXPECT_EQ(rules_of(entry.path()), want->second) << name;
  }
  EXPECT_EQ(seen.size(), expected.size());
}

}  // namespace
