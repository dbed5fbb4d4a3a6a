// The tripwire's rules over the tokens of one file (lexer.hpp). Names are
// matched as written: a rule sees what the file says, not what a macro of
// another file expands to.
#include "kernelgate/detail/source_lint.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "kernelgate/error.hpp"
#include "lexer.hpp"
#include "scopes.hpp"

namespace kg::lint {
namespace {

using detail::Lexed;
using detail::Token;
using detail::TokenKind;

constexpr const char* kStreams = "streams-and-limits";
constexpr const char* kProcess = "process-control";
constexpr const char* kFiles = "files-and-environment";
constexpr const char* kPatching = "process-patching";
constexpr const char* kState = "state-between-calls";
constexpr const char* kPrecision = "lower-precision";
constexpr const char* kArchitecture = "architecture-guard";

// A table of names, each with the rule it breaks, written rule by rule.
using RuleOfName = std::map<std::string, const char*>;

RuleOfName by_rule(std::initializer_list<std::pair<const char*, std::vector<std::string>>> groups) {
  RuleOfName table;
  for (const auto& [rule, names] : groups)
    for (const std::string& name : names) table.emplace(name, rule);
  return table;
}

// Functions of the C library and POSIX a candidate never needs. Matched only
// where called (`name(`), not as a member or in a namespace of the file's
// own, so a field named `write` is not a finding.
const RuleOfName kCalls = by_rule({
    {kProcess, {"fork", "vfork", "execv", "execve", "execvp", "execl", "execlp", "execle", "system", "popen", "kill",
                "raise", "signal", "sigaction", "exit", "_exit", "_Exit", "abort", "quick_exit", "setsid", "prctl",
                "pthread_create", "posix_spawn", "clone", "getppid"}},
    {kFiles, {"fopen", "freopen", "open", "openat", "creat", "read", "write", "pwrite", "dup", "dup2", "unlink",
              "rename", "getenv", "secure_getenv", "setenv", "putenv", "unsetenv", "clearenv"}},
    {kPatching, {"dlsym", "dlvsym", "dlopen", "mprotect", "mmap", "ptrace", "process_vm_writev", "process_vm_readv"}},
});

// Names of the standard library that are a finding wherever they appear
// (types, globals), written std::name; so a variable named `thread` is none.
const RuleOfName kStdNames = by_rule({
    {kProcess, {"thread", "jthread", "async", "system", "exit", "quick_exit", "abort"}},
    {kFiles, {"ofstream", "ifstream", "fstream", "filebuf", "getenv"}},
});

// Headers whose only use in a candidate would be one of the rules' things.
const RuleOfName kHeaders = by_rule({
    {kProcess, {"thread", "future", "pthread.h", "csignal", "signal.h", "spawn.h", "sys/wait.h"}},
    {kFiles, {"fstream", "fcntl.h", "unistd.h"}},
    {kPatching, {"dlfcn.h", "sys/mman.h", "sys/ptrace.h", "link.h"}},
});

// The CUDA runtime and driver calls that make or change streams, events,
// graphs, contexts and device-wide settings. Waiting on the stream it was
// given is no finding.
bool streams_or_limits(const std::string& name) {
  static const std::vector<std::string> kPrefixes = {
      "cudaStream", "cudaEvent", "cudaGraph", "cudaCtx", "cudaDeviceSet", "cudaThreadSet",
      "cuStream",   "cuEvent",   "cuGraph",   "cuCtx",   "cuDevicePrimaryCtx"};
  static const std::set<std::string> kAllowed = {"cudaStream_t", "cudaStreamSynchronize", "cudaStreamQuery"};
  static const std::set<std::string> kExact = {"cudaDeviceReset", "cudaSetDevice", "cudaSetDeviceFlags",
                                                "cudaLimitPersistingL2CacheSize", "cudaAccessPolicyWindow",
                                                "cudaLaunchAttributeAccessPolicyWindow"};
  if (kAllowed.count(name)) return false;
  if (kExact.count(name)) return true;
  return std::any_of(kPrefixes.begin(), kPrefixes.end(),
                     [&](const std::string& prefix) { return name.rfind(prefix, 0) == 0; });
}

// Half and bfloat16 types and conversions. cuda_fp16.h's short names `half`
// and `half2` are also common variable names (`for (unsigned half = ...)`):
// they count only where used as a type, declaring a name (`half h`), as a
// template argument or cast (`<half*>`, `(half)`).
bool lower_precision_name(const std::vector<Token>& tokens, std::size_t i) {
  static const std::set<std::string> kTypes = {"__half", "__half2", "__nv_bfloat16", "__nv_bfloat162",
                                               "nv_bfloat16", "nv_bfloat162"};
  const std::string& name = tokens[i].text;
  if (name == "half" || name == "half2") {
    std::size_t b = i;  // the token before, past a `const`
    if (b > 0 && tokens[b - 1].text == "const") --b;
    const std::string before = b > 0 ? tokens[b - 1].text : "";
    const std::string after = i + 1 < tokens.size() ? tokens[i + 1].text : "";
    const bool declares = i + 1 < tokens.size() && tokens[i + 1].kind == TokenKind::identifier;
    const bool template_argument = before == "<" && (after == ">" || after == "*" || after == "&" || after == ",");
    const bool cast = before == "(" && after == ")";
    return declares || template_argument || cast;
  }
  return kTypes.count(name) || name.rfind("__float2half", 0) == 0 || name.rfind("__float2bfloat16", 0) == 0 ||
         name.rfind("__floats2half", 0) == 0 || name.rfind("__floats2bfloat16", 0) == 0;
}

// A PTX type of 16-bit floats in an asm string (".f16", ".bf16", ".f16x2").
bool lower_precision_ptx(const std::string& text) {
  for (std::size_t at = text.find("f16"); at != std::string::npos; at = text.find("f16", at + 1)) {
    const bool dotted = (at >= 1 && text[at - 1] == '.') || (at >= 2 && text.compare(at - 2, 2, ".b") == 0);
    const bool ends = at + 3 == text.size() || !std::isalnum(static_cast<unsigned char>(text[at + 3])) ||
                      text[at + 3] == 'x';
    if (dotted && ends) return true;
  }
  return false;
}

class Scan {
 public:
  Scan(std::string file, const Lexed& lexed) : file_(std::move(file)), lexed_(lexed) {}

  std::vector<Finding> run() {
    declares_fp32_ = std::any_of(lexed_.tokens.begin(), lexed_.tokens.end(), [](const Token& t) {
      return t.kind == TokenKind::string && t.text == "fp32";
    });
    for (const detail::Include& include : lexed_.includes) header(include);
    names(lexed_.tokens);
    names(lexed_.macro_tokens);
    for (const detail::MutableState& state : detail::mutable_state(lexed_.tokens))
      add(state.line, kState, state.what);
    std::sort(findings_.begin(), findings_.end(), [](const Finding& a, const Finding& b) {
      return std::tie(a.line, a.rule, a.saw) < std::tie(b.line, b.rule, b.saw);
    });
    return std::move(findings_);
  }

 private:
  void add(int line, const char* rule, std::string saw) {
    // One finding per line and rule: the first thing seen says enough.
    if (!seen_.insert({line, rule}).second) return;
    findings_.push_back({file_, line, rule, std::move(saw)});
  }

  void header(const detail::Include& include) {
    if (const auto found = kHeaders.find(include.target); found != kHeaders.end())
      add(include.line, found->second, "includes <" + include.target + ">");
    if (declares_fp32_ && (include.target == "cuda_fp16.h" || include.target == "cuda_bf16.h"))
      add(include.line, kPrecision, "includes <" + include.target + "> in a file that declares fp32");
  }

  void names(const std::vector<Token>& tokens) {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const Token& t = tokens[i];
      if (t.kind == TokenKind::string) {
        string_literal(t);
        continue;
      }
      if (t.kind != TokenKind::identifier) continue;
      if (streams_or_limits(t.text)) add(t.line, kStreams, "uses " + t.text);
      if (declares_fp32_ && lower_precision_name(tokens, i))
        add(t.line, kPrecision, "uses " + t.text + " in a file that declares fp32");
      if (t.text == "environ") add(t.line, kFiles, "uses environ");
      if (t.text.rfind("__CUDA_ARCH", 0) == 0) add(t.line, kArchitecture, "tests " + t.text);
      if (const auto found = kStdNames.find(t.text); found != kStdNames.end() && qualified_by_std(tokens, i))
        add(t.line, found->second, "uses std::" + t.text);
      const bool called = i + 1 < tokens.size() && tokens[i + 1].text == "(";
      if (const auto found = kCalls.find(t.text);
          found != kCalls.end() && called && qualified_by_std_or_nothing(tokens, i))
        add(t.line, found->second, "calls " + t.text);
    }
  }

  // `name` alone, `::name` or `std::name`: the library's, not a member or a
  // function of the file's own namespace.
  static bool qualified_by_std_or_nothing(const std::vector<Token>& tokens, std::size_t i) {
    if (i == 0) return true;
    const std::string& before = tokens[i - 1].text;
    if (before == "." || before == "->") return false;
    if (before != "::") return true;
    return i < 2 || tokens[i - 2].kind != TokenKind::identifier || tokens[i - 2].text == "std";
  }

  static bool qualified_by_std(const std::vector<Token>& tokens, std::size_t i) {
    return i >= 2 && tokens[i - 1].text == "::" && tokens[i - 2].text == "std";
  }

  void string_literal(const Token& t) {
    for (const char* path : {"/proc", "/dev/", "/sys/"})
      if (t.text.find(path) != std::string::npos) add(t.line, kFiles, "names the path \"" + t.text + "\"");
    if (declares_fp32_ && lower_precision_ptx(t.text))
      add(t.line, kPrecision, "16-bit float PTX in a file that declares fp32");
  }

  std::string file_;
  const Lexed& lexed_;
  bool declares_fp32_ = false;
  std::set<std::pair<int, std::string>> seen_;
  std::vector<Finding> findings_;
};

}  // namespace

const std::vector<Rule>& rules() {
  static const std::vector<Rule> kRules = {
      {kStreams,
       "work moved to a stream the harness does not time or audit; L2 kept warm across the flush by a persisting "
       "window or limit; a context or device setting changed under the harness"},
      {kProcess,
       "a process or thread that outlives the call, stopping or signalling the parent, exiting before the "
       "harness has checked the run"},
      {kFiles,
       "a forged result file or reply written into a descriptor, the parent's output reached through /proc, "
       "harness settings read from or written into the environment"},
      {kPatching, "the harness's own code or the timer replaced at run time (a GOT entry, a patched page)"},
      {kState,
       "an answer kept from an earlier call and replayed, or a call counter that tells the checked runs from the "
       "timed ones"},
      {kPrecision, "half or bfloat16 arithmetic in a file that declares fp32 and so claims FP32's tolerance"},
      {kArchitecture,
       "code that differs between interpret mode and the GPU, or between the architectures of one build, chosen "
       "by the compiler's architecture macros instead of kernelgate/arch.hpp and a registration's needs"},
  };
  return kRules;
}

std::vector<Finding> lint_source(const std::string& file, std::string_view text) {
  const Lexed lexed = detail::lex(text);
  return Scan(file, lexed).run();
}

std::vector<Finding> lint_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in || std::filesystem::is_directory(file)) throw Error(file.string() + ": cannot read this source file");
  std::ostringstream text;
  text << in.rdbuf();
  return lint_source(file.string(), text.str());
}

std::string format(const Finding& finding) {
  return finding.file + ":" + std::to_string(finding.line) + ": " + finding.rule + ": " + finding.saw;
}

}  // namespace kg::lint
