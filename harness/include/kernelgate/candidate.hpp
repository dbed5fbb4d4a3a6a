#pragma once
// A candidate: one file kernels/<workload>/<id>.cu with one KG_REGISTER_CANDIDATE;
// the file's path names its workload and id. docs/adding-a-candidate.md has a
// complete example. Its kernels use what kernelgate/cuda.hpp lists, with
// kernelgate/ptx.hpp and kernelgate/grid_stride.hpp.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kernelgate/axes.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/dtype.hpp"
#include "kernelgate/kernel_resources.hpp"

namespace kg {

// A device buffer handed to the candidate (a host pointer in interpret mode),
// holding elements of the tensor's dtype; LaunchArgs reads it typed.
struct TensorArg {
  std::string name;
  std::vector<std::int64_t> shape;
  DType dtype = DType::float32;
  const void* data = nullptr;
};

// What the harness gives one launch. Inputs and parameters are read-only.
struct LaunchArgs {
  Axes axes;
  std::vector<TensorArg> inputs;  // suite order: inputs, then parameters
  // The output, as its dtype: one of the two is set.
  float* output = nullptr;               // a float32 output
  std::int64_t* output_int64 = nullptr;  // an int64 output (argmax, argmin positions)
  std::vector<std::int64_t> output_shape;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  cudaStream_t stream{};

  // The tensor's elements, typed: each throws kg::Error when the name is
  // unknown or the tensor holds another dtype (a float32 kernel reading an
  // int64 tensor's bytes as floats would read garbage, and pass nothing).
  const float* in(std::string_view name) const;
  const std::int64_t* in_int64(std::string_view name) const;
  const bool* in_bool(std::string_view name) const;
  std::int64_t axis(std::string_view name) const;
  // The workspace as `count` floats for what `what` names ("pooled values");
  // throws kg::Error saying so when it holds fewer bytes than they need.
  float* workspace_floats(std::int64_t count, std::string_view what) const;

 private:
  const void* input_of(std::string_view name, DType dtype) const;
};

// The GPU architecture a candidate's kernels need beyond what the build
// targets: an architecture-specific instruction set (sm_90a's wgmma, sm_100a's
// tcgen05) runs on that architecture alone, and compiles to a trap for every
// other one (kernelgate/arch.hpp). Left out of a registration: any GPU the
// build targets. The runner reports a candidate whose GPU lacks it
// not_supported, naming both, before anything of the candidate's runs; the
// cpu device (interpret mode) runs every candidate.
struct ArchitectureNeed {
  int compute_capability = 0;  // 90 for sm_90a, 100 for sm_100a; 0: none
  std::string feature;         // what needs it, for the reason: "wgmma"
};
// The need of a kernel that uses sm_90a's instructions (wgmma, setmaxnreg).
inline ArchitectureNeed needs_sm_90a(std::string feature) { return {90, std::move(feature)}; }
// The need of a kernel that uses sm_100a's instructions (tcgen05).
inline ArchitectureNeed needs_sm_100a(std::string feature) { return {100, std::move(feature)}; }
// Why a GPU of `compute_capability` (90 for 9.0; 0 when unknown or the cpu
// device) cannot run a candidate with this need ("needs sm_90a (wgmma); this
// GPU is sm_100"), or "" when it can.
std::string architecture_problem(const ArchitectureNeed& need, int compute_capability);

struct Candidate {
  // Left out of a registration in <folder>/<workload>/<id>.cu (built by
  // kernelgate_candidate_library): taken from the path. Given: must equal it.
  std::string workload{};  // suite id, as the suite file names it
  std::string id{};        // e.g. "implicit_gemm_tf32"
  std::string precision;  // "fp32", "tf32", "bf16": selects the suite's tolerance
  std::string summary;    // one line: the method
  // Empty when the axes are supported; otherwise why not (-> not_supported).
  // Left out of a registration: all axes are supported.
  std::function<std::string(const Axes&)> unsupported_reason = [](const Axes&) { return std::string(); };
  // The device scratch the launch needs; left out: none.
  std::function<std::size_t(const Axes&)> workspace_bytes = [](const Axes&) { return std::size_t{0}; };
  // Enqueues the work on args.stream; must not synchronise on other streams.
  std::function<void(const LaunchArgs&)> launch;
  // A GPU library the candidate is made of ("cuDNN": the cudnn_eager
  // baselines); empty for a kernel of its own. Such a candidate is a GPU's
  // baseline: the cpu device leaves it out, and a GPU that lacks the
  // library (the simulated GPU) reports it not_supported.
  std::string gpu_library{};
  // Left out: none beyond the build's targets.
  ArchitectureNeed needs{};
};

// Every candidate linked into this binary, in registration order.
std::vector<Candidate>& candidate_registry();

// Throws kg::Error when a registration was refused (named_by_site), or when
// two registered candidates share a (workload, id), naming both source files:
// the parent and the child could otherwise pick different ones, and a wrong
// kernel hide behind a correct one.
void check_candidate_registry();

// The source file a candidate of the registry was registered in, as the
// compiler named it (what `kernelgate run` lints); "" when not known.
std::string candidate_source_file(const Candidate& candidate);

// Where a registration is written: its source file and, for a file built by
// kernelgate_candidate_library, the workload and id its path names (empty for
// a registration anywhere else, which must name both itself).
struct RegistrationSite {
  const char* file = nullptr;
  const char* workload = "";
  const char* id = "";
};

// The candidate with the workload and id of its site filled in where the
// registration left them out. Throws kg::Error naming the file when a name
// given differs from the path's, or when neither the registration nor the
// path gives one: the id is what baselines and reports are keyed by, so the
// file a reader opens must be the candidate it names.
Candidate named_by_site(Candidate candidate, const RegistrationSite& site);

// Registers the candidate, or keeps why it cannot be registered for
// check_candidate_registry: a throw here, in static initialisation, would end
// the process before main could print a message.
struct CandidateRegistrar {
  explicit CandidateRegistrar(Candidate candidate, RegistrationSite site = {});
};

// A kernel folder's resources.json (made by ci/kernel-resources.sh from the
// gpu build), which the cpu build compiles in: interpret mode has no
// registers, and a model run's occupancy takes them from here
// (docs/roofline.md). Registered by the generated source, not by hand.
struct KernelResourcesRegistrar {
  KernelResourcesRegistrar(const char* json_text, const char* source_file);
};
// Every registered table merged; throws kg::Error naming the file when one is
// malformed or two disagree about a kernel.
std::map<std::string, KernelResources> registered_kernel_resources();

}  // namespace kg

#define KG_CANDIDATE_CONCAT_INNER(a, b) a##b
#define KG_CANDIDATE_CONCAT(a, b) KG_CANDIDATE_CONCAT_INNER(a, b)
// kernelgate_candidate_library defines the names each candidate file's path
// gives; a file built any other way has none.
#if defined(KG_CANDIDATE_WORKLOAD) && defined(KG_CANDIDATE_ID)
#define KG_REGISTRATION_SITE (::kg::RegistrationSite{__FILE__, KG_CANDIDATE_WORKLOAD, KG_CANDIDATE_ID})
#else
#define KG_REGISTRATION_SITE (::kg::RegistrationSite{__FILE__, "", ""})
#endif

// KG_REGISTER_CANDIDATE({.precision = ..., .summary = ..., .launch = ...});
#define KG_REGISTER_CANDIDATE(...)                                                  \
  static const ::kg::CandidateRegistrar KG_CANDIDATE_CONCAT(kg_candidate_registrar_, \
                                                            __LINE__) {             \
    ::kg::Candidate __VA_ARGS__, KG_REGISTRATION_SITE                               \
  }
