#pragma once
// Shared by the adversarial candidates: a correct depthwise-separable kernel
// (the element of kernels/l1_086_conv_depthwise_separable_2d/direct.cuh, as
// direct_fp32 computes it) with one hook per way of misbehaving, so each
// candidate file is one registration.
// Every misbehaviour happens in device code or through the CUDA API, so the
// same files test the cpu device (interpret mode) and a GPU.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <functional>
#include <string>
#include <utility>

#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "l1_086_conv_depthwise_separable_2d/direct.cuh"

namespace kg::adversarial {

inline const char* const kWorkload = "l1_086_conv_depthwise_separable_2d";

enum class Misbehaviour {
  none,
  write_first_half,    // leaves the second half of the output unwritten
  mutate_input,        // writes into the input x
  write_past_end,      // one element past the end of the output
  write_nan,           // a NaN into one element
  wrong_by_one,        // one element off by 1.0
  wild_pointer,        // writes through an unmapped address
  spin_forever,        // never finishes
};

// Each thread computes its element into dynamic shared memory, then writes
// its left neighbour's element without a barrier between: right only when
// the threads of a block run in order (as a 32-thread warp does on a GPU),
// wrong when interpret mode runs them in reverse.
inline constexpr unsigned kShiftThreads = 32;

using Shape = l1_086::DirectShape;

// static: each candidate file compiles its own copy (a header, in every translation unit).
static __global__ void misbehaving_kernel(Shape s, Misbehaviour misbehaviour, const float* __restrict__ x,
                                   const float* __restrict__ depthwise,
                                   const float* __restrict__ pointwise, float* y, float* writable_x,
                                   float* wild) {
  const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t total = s.total();
  if (misbehaviour == Misbehaviour::spin_forever) {
    volatile bool forever = true;
    while (forever) {
    }
  }
  if (misbehaviour == Misbehaviour::wild_pointer && index == 0) *static_cast<volatile float*>(wild) = 1.0f;
  if (misbehaviour == Misbehaviour::write_past_end && index == total) y[total] = 0.0f;
  if (index >= total) return;
  if (misbehaviour == Misbehaviour::write_first_half && index >= total / 2) return;

  float sum = l1_086::direct_element(s, x, depthwise, pointwise, index);
  if (misbehaviour == Misbehaviour::write_nan && index == total / 3) sum = __uint_as_float(0x7fc00000u);
  if (misbehaviour == Misbehaviour::wrong_by_one && index == total / 3) sum += 1.0f;
  y[index] = sum;
  // After the output is written, so only the input rule can catch it.
  if (misbehaviour == Misbehaviour::mutate_input && index == 0) writable_x[0] += 1.0f;
}

static __global__ void shifted_through_shared_kernel(Shape s, const float* __restrict__ x,
                                                     const float* __restrict__ depthwise,
                                                     const float* __restrict__ pointwise, float* y) {
  KG_DYNAMIC_SMEM(float, staged);
  const unsigned t = threadIdx.x;
  const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + t;
  const std::int64_t total = s.total();
  if (index < total) staged[t] = l1_086::direct_element(s, x, depthwise, pointwise, index);
  // No barrier here: the missing __syncthreads this candidate relies on.
  if (t > 0 && index - 1 < total) y[index - 1] = staged[t - 1];
  if ((t == blockDim.x - 1 && index < total) || index == total - 1) y[index] = staged[t];
}

inline Shape shape_of(const LaunchArgs& args) { return l1_086::direct_shape(args); }

// Launches the kernel on `stream` (normally args.stream) with one thread per
// output element, plus one when the candidate writes past the end.
inline void launch_misbehaving(const LaunchArgs& args, Misbehaviour misbehaviour, cudaStream_t stream) {
  const Shape s = shape_of(args);
  const std::int64_t threads = s.total() + (misbehaviour == Misbehaviour::write_past_end ? 1 : 0);
  constexpr unsigned kThreads = 128;
  const auto blocks = static_cast<unsigned>(std::max<std::int64_t>(1, (threads + kThreads - 1) / kThreads));
  const float* x = args.in("x");
  kg::launch(misbehaving_kernel, dim3(blocks), dim3(kThreads), 0, stream, s, misbehaviour, x,
             args.in("depthwise_weight"), args.in("pointwise_weight"), args.output,
             const_cast<float*>(x), reinterpret_cast<float*>(std::uintptr_t{16}));
}

// The real direct_fp32 candidate of `workload`, linked into the same binary:
// the adversarial candidates of the other workloads wrap it, so that only
// their misbehaviour differs from an honest kernel.
inline const Candidate& honest(const std::string& workload) {
  for (const Candidate& candidate : candidate_registry())
    if (candidate.workload == workload && candidate.id == "direct_fp32") return candidate;
  throw std::runtime_error("no direct_fp32 candidate of " + workload + " in this binary");
}
inline void launch_honest(const std::string& workload, const LaunchArgs& args) { honest(workload).launch(args); }
// The workspace a candidate wrapping it needs: the honest one's.
inline std::function<std::size_t(const Axes&)> honest_workspace(const char* workload) {
  return [workload](const Axes& axes) { return honest(workload).workspace_bytes(axes); };
}

// Elements of the output, for candidates of any workload.
inline std::int64_t output_count(const LaunchArgs& args) {
  std::int64_t count = 1;
  for (auto extent : args.output_shape) count *= extent;
  return count;
}

// Seconds an adversarial candidate that waits should wait: longer than the
// watchdog limit the test gives (KG_ADVERSARIAL_WAIT_S), 7 s otherwise.
inline unsigned wait_seconds() {
  const char* text = std::getenv("KG_ADVERSARIAL_WAIT_S");
  return text && *text ? static_cast<unsigned>(std::strtoul(text, nullptr, 10)) : 7u;
}

// Launches shifted_through_shared_kernel: blocks of one warp.
inline void launch_shifted(const LaunchArgs& args) {
  const Shape s = shape_of(args);
  const auto blocks = static_cast<unsigned>((s.total() + kShiftThreads - 1) / kShiftThreads);
  kg::launch(shifted_through_shared_kernel, dim3(blocks), dim3(kShiftThreads), kShiftThreads * sizeof(float),
             args.stream, s, args.in("x"), args.in("depthwise_weight"), args.in("pointwise_weight"), args.output);
}

inline std::string always_supported(const Axes&) { return {}; }

// The registration of an adversarial candidate that misbehaves in its launch
// only: fp32, every axes value supported, and the workspace of the honest
// direct_fp32 (which its launch may wrap: launch_honest).
inline Candidate candidate(const char* workload, const char* summary, std::function<void(const LaunchArgs&)> launch) {
  return Candidate{
      .workload = workload,
      .precision = "fp32",
      .summary = summary,
      .unsupported_reason = always_supported,
      .workspace_bytes = honest_workspace(workload),
      .launch = std::move(launch),
  };
}

// One of this workload that launches the shared kernel with `misbehaviour`
// on the harness's stream.
inline Candidate misbehaving_candidate(const char* summary, Misbehaviour misbehaviour) {
  return candidate(kWorkload, summary, [misbehaviour](const LaunchArgs& args) {
    launch_misbehaving(args, misbehaviour, args.stream);
  });
}

}  // namespace kg::adversarial
