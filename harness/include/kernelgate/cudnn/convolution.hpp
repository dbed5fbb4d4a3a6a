#pragma once
// One fp32 convolution as a cuDNN backend graph with the engine chosen by
// cuDNN's heuristics, the way PyTorch's cuDNN v8+ path does it with
// benchmark=False: the heuristics' configurations in order, the first one that
// is allowed and finalizes wins.
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernelgate/cudnn/backend_descriptor.hpp"
#include "kernelgate/cudnn/handle.hpp"

namespace kg::cudnn {

enum class ConvolutionDirection {
  forward,        // y = conv(x, w)
  backward_data,  // x = conv^T(y, w): what ConvTranspose runs
};

enum class MathMode {
  // What PyTorch eager allows for fp32 (torch.backends.cudnn.allow_tf32 = True):
  // any engine except ones that down-convert inputs below TF32.
  tf32_allowed,
  // The strict-FP32 reference: no tensor-core engine (so no TF32), FMA math only.
  strict_fp32,
};

// A convolution in the terms of the FORWARD convolution it belongs to. For a
// PyTorch ConvTranspose with input [N, Cin, ...] and weight [Cin, Cout/g, k...]:
// direction backward_data, y = that input, w = that weight, x = its output.
struct ConvolutionShape {
  ConvolutionDirection direction = ConvolutionDirection::forward;
  std::vector<std::int64_t> x;  // N, C, spatial...
  std::vector<std::int64_t> w;  // K, C / groups, spatial...
  std::vector<std::int64_t> y;  // N, K, spatial...
  std::vector<std::int64_t> padding;   // per spatial dimension, both sides
  std::vector<std::int64_t> stride;
  std::vector<std::int64_t> dilation;
  std::int64_t alignment = 16;  // bytes every data pointer is aligned to (at most 16)

  // Throws kg::Error naming the inconsistency (ranks, channels, output extent).
  void validate() const;
  // Identifies the shape in plan caches and in messages.
  std::string key() const;
};

// The largest power of two up to 16 that divides every pointer.
std::int64_t pointer_alignment(const std::vector<const void*>& pointers);

class ConvolutionPlan {
 public:
  // Builds the graph and picks the engine; throws kg::Error when no engine
  // allowed under `math` supports the shape.
  ConvolutionPlan(const Handle& handle, const ConvolutionShape& shape, MathMode math);

  ConvolutionPlan(ConvolutionPlan&&) noexcept = default;
  ConvolutionPlan& operator=(ConvolutionPlan&&) noexcept = default;

  std::size_t workspace_bytes() const { return workspace_bytes_; }
  // "engine 17 (tensor_core, ...) from heuristics mode A via device properties"
  // (or "via handle": the path that built the plan): for logs and reports.
  const std::string& engine_description() const { return engine_description_; }
  const ConvolutionShape& shape() const { return shape_; }
  MathMode math() const { return math_; }

  // Enqueues on the handle's current stream. forward: reads input = x, writes
  // output = y; backward_data: reads input = y, writes output = x. `workspace`
  // holds at least workspace_bytes().
  void execute(const Handle& handle, const float* input, const float* filter, float* output,
               void* workspace) const;

 private:
  ConvolutionShape shape_;
  MathMode math_;
  // The plan references the graph's descriptors: they live as long as it does.
  std::vector<BackendDescriptor> keep_alive_;
  BackendDescriptor plan_;
  std::size_t workspace_bytes_ = 0;
  std::string engine_description_;
};

// Process-wide caches (PyTorch keeps the same kind of plan cache): one handle
// per CUDA device and one plan per (device, shape, math mode). Thread-safe.
const Handle& shared_handle();  // of the current device
const ConvolutionPlan& cached_plan(const ConvolutionShape& shape, MathMode math);

}  // namespace kg::cudnn
