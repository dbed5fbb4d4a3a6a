#pragma once
// A candidate: one file kernels/<workload>/<id>.cu with one KG_REGISTER_CANDIDATE.
// docs/adding-a-candidate.md has a complete example.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kernelgate/axes.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/kernel_resources.hpp"

namespace kg {

// A device buffer handed to the candidate (a host pointer in interpret mode).
struct TensorArg {
  std::string name;
  std::vector<std::int64_t> shape;
  const float* data = nullptr;
};

// What the harness gives one launch. Inputs and parameters are read-only.
struct LaunchArgs {
  Axes axes;
  std::vector<TensorArg> inputs;  // suite order: inputs, then parameters
  float* output = nullptr;
  std::vector<std::int64_t> output_shape;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  cudaStream_t stream{};

  // Throws kg::Error when the name is unknown.
  const float* in(std::string_view name) const;
  std::int64_t axis(std::string_view name) const;
};

struct Candidate {
  std::string workload;   // suite id, as the suite file names it
  std::string id;         // e.g. "implicit_gemm_tf32"
  std::string precision;  // "fp32", "tf32", "bf16": selects the suite's tolerance
  std::string summary;    // one line: the method
  // Empty when the axes are supported; otherwise why not (-> not_supported).
  // Left out of a registration: all axes are supported.
  std::function<std::string(const Axes&)> unsupported_reason = [](const Axes&) { return std::string(); };
  // The device scratch the launch needs; left out: none.
  std::function<std::size_t(const Axes&)> workspace_bytes = [](const Axes&) { return std::size_t{0}; };
  // Enqueues the work on args.stream; must not synchronise on other streams.
  std::function<void(const LaunchArgs&)> launch;
};

// Every candidate linked into this binary, in registration order.
std::vector<Candidate>& candidate_registry();

// Throws kg::Error when two registered candidates share a (workload, id),
// naming both source files: the parent and the child could otherwise pick
// different ones, and a wrong kernel hide behind a correct one.
void check_candidate_registry();

struct CandidateRegistrar {
  explicit CandidateRegistrar(Candidate candidate, const char* source_file = nullptr);
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
// KG_REGISTER_CANDIDATE({.workload = ..., .id = ..., .precision = ..., ...});
#define KG_REGISTER_CANDIDATE(...)                                                  \
  static const ::kg::CandidateRegistrar KG_CANDIDATE_CONCAT(kg_candidate_registrar_, \
                                                            __LINE__) {             \
    ::kg::Candidate __VA_ARGS__, __FILE__                                           \
  }
