// An fp32 convolution as a cuDNN backend operation graph, engine from the
// heuristics (docs/gpu-runner.md, "cuDNN graphs").
#include "kernelgate/cudnn/convolution.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <sstream>

#include "kernelgate/cuda_check.hpp"
#include "kernelgate/error.hpp"

namespace kg::cudnn {
namespace {

// Unique ids of the graph's tensors in the variant pack.
constexpr std::int64_t kUidX = 'x';
constexpr std::int64_t kUidW = 'w';
constexpr std::int64_t kUidY = 'y';

std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> strides(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

BackendDescriptor tensor(std::int64_t uid, const std::vector<std::int64_t>& dims, std::int64_t alignment) {
  BackendDescriptor descriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  descriptor.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_DATA_FLOAT)
      .set(CUDNN_ATTR_TENSOR_DIMENSIONS, dims)
      .set(CUDNN_ATTR_TENSOR_STRIDES, contiguous_strides(dims))
      .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, uid)
      .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, alignment)
      .finalize();
  return descriptor;
}

std::string join(const std::vector<std::int64_t>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) text += 'x';  // appended piecewise: GCC 12 warns falsely on "x" + std::string
    text += std::to_string(values[i]);
  }
  return text;
}

const char* note_name(cudnnBackendNumericalNote_t note) {
  switch (note) {
    case CUDNN_NUMERICAL_NOTE_TENSOR_CORE: return "tensor_core";
    case CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS: return "down_convert_inputs";
    case CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION: return "reduced_precision_reduction";
    case CUDNN_NUMERICAL_NOTE_FFT: return "fft";
    case CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC: return "nondeterministic";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD: return "winograd";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4: return "winograd_4x4";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6: return "winograd_6x6";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13: return "winograd_13x13";
    case CUDNN_NUMERICAL_NOTE_STRICT_NAN_PROP: return "strict_nan_prop";
    default: return "other";
  }
}

// PyTorch's filter for fp32 with allow_tf32 (aten/src/ATen/native/cudnn/Conv_v8.cpp):
// never engines that down-convert inputs; without TF32, no tensor-core engine.
// The strict reference also drops the transforms whose rounding differs from a
// direct sum (FFT, Winograd) and reduced-precision reductions.
bool allowed(const std::vector<cudnnBackendNumericalNote_t>& notes, MathMode math) {
  for (cudnnBackendNumericalNote_t note : notes) {
    if (note == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) return false;
    if (math == MathMode::strict_fp32 &&
        (note == CUDNN_NUMERICAL_NOTE_TENSOR_CORE || note == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION ||
         note == CUDNN_NUMERICAL_NOTE_FFT || note == CUDNN_NUMERICAL_NOTE_WINOGRAD ||
         note == CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4 || note == CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6 ||
         note == CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13))
      return false;
  }
  return true;
}

const char* math_name(MathMode math) { return math == MathMode::strict_fp32 ? "strict_fp32" : "tf32_allowed"; }

// The graph's one operation and the descriptors it references.
struct ConvolutionOperation {
  BackendDescriptor x, w, y, convolution, operation;
};

BackendDescriptor convolution_descriptor(const ConvolutionShape& shape) {
  BackendDescriptor convolution(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  convolution.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_DATA_FLOAT)
      .set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_CROSS_CORRELATION)  // what PyTorch's Conv computes
      .set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, static_cast<std::int64_t>(shape.x.size() - 2))
      .set(CUDNN_ATTR_CONVOLUTION_DILATIONS, shape.dilation)
      .set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, shape.stride)
      .set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, shape.padding)
      .set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, shape.padding)
      .finalize();
  return convolution;
}

// The attribute names of a convolution operation in one direction: cuDNN
// names forward's and backward-data's alike but for their prefix.
struct OperationAttributes {
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t alpha, beta, convolution, w, x, y;
};

constexpr OperationAttributes kForward{CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
                                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y};
// Backward data computes a convolution's dx from its dy: the transposed
// convolution's output is x, its input y.
constexpr OperationAttributes kBackwardData{CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
                                            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
                                            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
                                            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
                                            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
                                            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
                                            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY};

ConvolutionOperation convolution_operation(const ConvolutionShape& shape) {
  ConvolutionOperation op{tensor(kUidX, shape.x, shape.alignment), tensor(kUidW, shape.w, shape.alignment),
                          tensor(kUidY, shape.y, shape.alignment), convolution_descriptor(shape), {}};
  const float alpha = 1.0f;
  const float beta = 0.0f;  // the output is overwritten, never accumulated into
  const OperationAttributes& names = shape.direction == ConvolutionDirection::forward ? kForward : kBackwardData;
  op.operation = BackendDescriptor(names.type);
  op.operation.set(names.alpha, alpha)
      .set(names.beta, beta)
      .set(names.convolution, op.convolution)
      .set(names.w, op.w)
      .set(names.x, op.x)
      .set(names.y, op.y);
  op.operation.finalize();
  return op;
}

// How the graph, the heuristics and the plans learn which GPU they are for.
// cuDNN 9.8 added device-property descriptors and deprecated the handle
// attributes of the operation graph and the execution plan; the cuDNN 9
// releases before 9.8 know only the handle.
struct Target {
  cudnnHandle_t handle = nullptr;  // the handle path
  BackendDescriptor properties;    // the device-property path; empty on the handle path
  bool by_properties() const { return static_cast<bool>(properties); }
};

// The handle attribute of an operation graph or execution plan descriptor,
// for the handle path only. The one place the deprecated names appear: the
// cuDNN 9 releases before 9.8 require these attributes and have no
// replacement, so their deprecation warning is silenced here and nowhere else.
cudnnBackendAttributeName_t handle_attribute(cudnnBackendDescriptorType_t type) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  return type == CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR ? CUDNN_ATTR_OPERATIONGRAPH_HANDLE
                                                         : CUDNN_ATTR_EXECUTION_PLAN_HANDLE;
#pragma GCC diagnostic pop
}

// With device properties the graph gets no handle: cuDNN 9.8 and later
// finalize it without one and take the device from the heuristics.
BackendDescriptor operation_graph(const BackendDescriptor& operation, const Target& target) {
  BackendDescriptor graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  if (!target.by_properties()) graph.set(handle_attribute(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR), target.handle);
  graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, std::vector<const BackendDescriptor*>{&operation}).finalize();
  return graph;
}

// Not finalized: a mode may legitimately have nothing for the graph.
BackendDescriptor engine_heuristics(const BackendDescriptor& graph, cudnnBackendHeurMode_t mode,
                                    [[maybe_unused]] const Target& target) {
  BackendDescriptor heuristics(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heuristics.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph).set(CUDNN_ATTR_ENGINEHEUR_MODE, mode);
#if CUDNN_VERSION >= 90800
  if (target.by_properties()) heuristics.set(CUDNN_ATTR_ENGINEHEUR_DEVICEPROP, target.properties);
#endif
  return heuristics;
}

// Not finalized. With device properties the plan gets no handle either: its
// engine configuration comes from heuristics that were given the device.
BackendDescriptor execution_plan(const BackendDescriptor& config, const Target& target) {
  BackendDescriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  if (!target.by_properties()) plan.set(handle_attribute(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR), target.handle);
  plan.set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config);
  return plan;
}

// A finalized plan, the descriptors it references (they live as long as it
// does) and what engine_description() says of it.
struct Found {
  BackendDescriptor plan;
  std::vector<BackendDescriptor> sources;
  std::string description;
};

// The plan of one configuration from the heuristics; nothing, with the engine
// added to `rejected`, when the engine is not allowed or its plan does not build.
std::optional<Found> plan_for(BackendDescriptor config, const Target& target, MathMode math,
                              std::string& rejected) {
  BackendDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  config.get_descriptor(CUDNN_ATTR_ENGINECFG_ENGINE, engine);
  const std::vector<cudnnBackendNumericalNote_t> notes =
      engine.get_numerical_notes(CUDNN_ATTR_ENGINE_NUMERICAL_NOTE);
  const std::string index = std::to_string(engine.get_int64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX));
  std::string note_list;
  for (cudnnBackendNumericalNote_t note : notes)
    note_list += std::string(note_list.empty() ? "" : ", ") + note_name(note);
  if (!allowed(notes, math)) {
    rejected += " " + index + "(" + note_list + ")";
    return std::nullopt;
  }
  BackendDescriptor plan = execution_plan(config, target);
  if (plan.try_finalize() != CUDNN_STATUS_SUCCESS) {
    rejected += " " + index + "(does not build)";
    return std::nullopt;
  }
  Found found{std::move(plan), {},
              "engine " + index + " (" + (note_list.empty() ? std::string("no numerical notes") : note_list) + ")"};
  found.sources.push_back(std::move(engine));
  found.sources.push_back(std::move(config));  // the plan was built from it
  return found;
}

// Heuristics mode A is PyTorch's default (benchmark=False); the fallback list
// is what PyTorch tries when none of those configurations builds.
std::optional<Found> first_plan(const BackendDescriptor& graph, const Target& target, MathMode math,
                                std::string& rejected) {
  for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    BackendDescriptor heuristics = engine_heuristics(graph, mode, target);
    if (heuristics.try_finalize() != CUDNN_STATUS_SUCCESS) continue;
    for (BackendDescriptor& config :
         heuristics.get_descriptors(CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR)) {
      std::optional<Found> found = plan_for(std::move(config), target, math, rejected);
      if (!found) continue;
      found->description += std::string(" from heuristics mode ") + (mode == CUDNN_HEUR_MODE_A ? "A" : "fallback");
      return found;
    }
  }
  return std::nullopt;
}

// Graph, heuristics and plan for one target, each path from its own
// descriptors; the description ends with the path that built the plan.
std::optional<Found> build(const ConvolutionShape& shape, Target target, MathMode math, std::string& rejected) {
  ConvolutionOperation op = convolution_operation(shape);
  BackendDescriptor graph = operation_graph(op.operation, target);
  std::optional<Found> found = first_plan(graph, target, math, rejected);
  if (!found) return std::nullopt;
  found->description += target.by_properties() ? " via device properties" : " via handle";
  for (BackendDescriptor* part : {&op.x, &op.w, &op.y, &op.convolution, &op.operation, &graph, &target.properties})
    if (*part) found->sources.push_back(std::move(*part));
  return found;
}

// The device-property path, taken when both the cuDNN headers built against
// and the cuDNN loaded are 9.8 or later. It has not run on a GPU yet, so any
// descriptor cuDNN refuses, or a search that builds no plan, gives nothing
// (the reason in `failure`) and the caller builds on the handle path instead.
#if CUDNN_VERSION >= 90800
std::optional<Found> build_with_device_properties(const Handle& handle, const ConvolutionShape& shape,
                                                  MathMode math, std::string& failure) {
  if (cudnnGetVersion() < 90800) return std::nullopt;
  try {
    Target target;
    target.properties = BackendDescriptor(CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR);
    target.properties.set(CUDNN_ATTR_DEVICEPROP_HANDLE, handle.get()).finalize();
    std::string rejected;
    std::optional<Found> found = build(shape, std::move(target), math, rejected);
    if (!found) failure = "no engine built a plan";
    return found;
  } catch (const CudaError& error) {
    failure = error.what();
    return std::nullopt;
  }
}
#else
std::optional<Found> build_with_device_properties(const Handle&, const ConvolutionShape&, MathMode, std::string&) {
  return std::nullopt;  // headers before 9.8 have no device-property descriptors
}
#endif

}  // namespace

void ConvolutionShape::validate() const {
  const std::size_t rank = x.size();
  auto fail = [&](const std::string& what) { throw Error("convolution " + key() + ": " + what); };
  if (rank < 3 || w.size() != rank || y.size() != rank) fail("x, w and y need the same rank, at least 3");
  const std::size_t spatial = rank - 2;
  if (padding.size() != spatial || stride.size() != spatial || dilation.size() != spatial)
    fail("padding, stride and dilation need one value per spatial dimension");
  if (x[0] != y[0]) fail("x and y differ in batch");
  if (w[0] != y[1]) fail("w's first dimension must be y's channels");
  if (w[1] <= 0 || x[1] % w[1] != 0) fail("x's channels must be a multiple of w's second dimension");
  const std::int64_t groups = x[1] / w[1];
  if (y[1] % groups != 0) fail("y's channels must be a multiple of the groups");
  for (std::size_t d = 0; d < spatial; ++d) {
    if (stride[d] <= 0 || dilation[d] <= 0 || padding[d] < 0) fail("stride and dilation must be positive, padding >= 0");
    const std::int64_t extent = (x[2 + d] + 2 * padding[d] - dilation[d] * (w[2 + d] - 1) - 1) / stride[d] + 1;
    if (extent != y[2 + d])
      fail("spatial dimension " + std::to_string(d) + " of y is " + std::to_string(y[2 + d]) +
           ", the forward convolution gives " + std::to_string(extent));
  }
  if (alignment <= 0 || alignment > 16 || (alignment & (alignment - 1)) != 0)
    fail("alignment must be a power of two up to 16");
}

std::string ConvolutionShape::key() const {
  std::ostringstream text;
  text << (direction == ConvolutionDirection::forward ? "forward" : "backward_data") << " x=" << join(x)
       << " w=" << join(w) << " y=" << join(y) << " pad=" << join(padding) << " stride=" << join(stride)
       << " dilation=" << join(dilation) << " align=" << alignment;
  return text.str();
}

std::int64_t pointer_alignment(const std::vector<const void*>& pointers) {
  std::uintptr_t bits = 16;
  for (const void* pointer : pointers) bits |= reinterpret_cast<std::uintptr_t>(pointer);
  return static_cast<std::int64_t>(bits & (~bits + 1));  // lowest set bit
}

ConvolutionPlan::ConvolutionPlan(const Handle& handle, const ConvolutionShape& shape, MathMode math)
    : shape_(shape), math_(math) {
  shape.validate();
  std::string device_path_failure;
  std::optional<Found> found = build_with_device_properties(handle, shape, math, device_path_failure);
  std::string rejected;
  if (!found) found = build(shape, Target{handle.get(), {}}, math, rejected);
  const std::string fallback_note =
      device_path_failure.empty() ? std::string() : " (device-property path failed: " + device_path_failure + ")";
  if (!found)
    throw Error("cuDNN has no " + std::string(math_name(math)) + " engine for convolution " + shape.key() +
                (rejected.empty() ? std::string() : "; engines rejected:" + rejected) + fallback_note);
  workspace_bytes_ = static_cast<std::size_t>(found->plan.get_int64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE));
  engine_description_ = found->description + fallback_note;
  plan_ = std::move(found->plan);
  keep_alive_ = std::move(found->sources);
}

void ConvolutionPlan::execute(const Handle& handle, const float* input, const float* filter, float* output,
                              void* workspace) const {
  const bool forward = shape_.direction == ConvolutionDirection::forward;
  // cuDNN's variant pack takes non-const pointers; it only writes the output.
  void* x = forward ? const_cast<float*>(input) : output;
  void* y = forward ? output : const_cast<float*>(input);
  std::vector<std::int64_t> uids{kUidX, kUidW, kUidY};
  std::vector<void*> pointers{x, const_cast<float*>(filter), y};
  BackendDescriptor variant_pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  variant_pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, uids)
      .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, pointers)
      .set_pointer(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, workspace)
      .finalize();
  KG_CUDNN_CHECK(cudnnBackendExecute(handle.get(), plan_.get(), variant_pack.get()));
}

}  // namespace kg::cudnn
