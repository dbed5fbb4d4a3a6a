// An fp32 convolution as a cuDNN backend operation graph, engine from the
// heuristics (docs/gpu-runner.md, "cuDNN graphs").
#include "kernelgate/cudnn/convolution.hpp"

#include <algorithm>
#include <cstdint>
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
  const std::size_t spatial = shape.x.size() - 2;

  BackendDescriptor x = tensor(kUidX, shape.x, shape.alignment);
  BackendDescriptor w = tensor(kUidW, shape.w, shape.alignment);
  BackendDescriptor y = tensor(kUidY, shape.y, shape.alignment);

  BackendDescriptor convolution(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  convolution.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_DATA_FLOAT)
      .set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_CROSS_CORRELATION)  // what PyTorch's Conv computes
      .set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, static_cast<std::int64_t>(spatial))
      .set(CUDNN_ATTR_CONVOLUTION_DILATIONS, shape.dilation)
      .set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, shape.stride)
      .set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, shape.padding)
      .set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, shape.padding)
      .finalize();

  const float alpha = 1.0f;
  const float beta = 0.0f;  // the output is overwritten, never accumulated into
  BackendDescriptor operation;
  if (shape.direction == ConvolutionDirection::forward) {
    operation = BackendDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    operation.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, alpha)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, beta)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, convolution)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, w)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, y);
  } else {
    operation = BackendDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR);
    operation.set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, alpha)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, beta)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, convolution)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, w)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, x)
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, y);
  }
  operation.finalize();

  // The handle attributes are deprecated in favour of device-property
  // descriptors in late cuDNN 9 releases but work in every cuDNN 9.
  BackendDescriptor graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, handle.get())
      .set(CUDNN_ATTR_OPERATIONGRAPH_OPS, std::vector<const BackendDescriptor*>{&operation})
      .finalize();

  // Heuristics mode A is PyTorch's default (benchmark=False); the fallback
  // list is what PyTorch tries when none of those configurations builds.
  std::string rejected;
  for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    BackendDescriptor heuristics(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    heuristics.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph).set(CUDNN_ATTR_ENGINEHEUR_MODE, mode);
    if (heuristics.try_finalize() != CUDNN_STATUS_SUCCESS) continue;
    std::vector<BackendDescriptor> configs =
        heuristics.get_descriptors(CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    for (BackendDescriptor& config : configs) {
      BackendDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
      config.get_descriptor(CUDNN_ATTR_ENGINECFG_ENGINE, engine);
      const std::vector<cudnnBackendNumericalNote_t> notes = engine.get_numerical_notes(CUDNN_ATTR_ENGINE_NUMERICAL_NOTE);
      const std::int64_t engine_index = engine.get_int64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX);
      std::string note_list;
      for (cudnnBackendNumericalNote_t note : notes) note_list += std::string(note_list.empty() ? "" : ", ") + note_name(note);
      if (!allowed(notes, math)) {
        rejected += " " + std::to_string(engine_index) + "(" + note_list + ")";
        continue;
      }
      BackendDescriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, handle.get()).set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config);
      if (plan.try_finalize() != CUDNN_STATUS_SUCCESS) {
        rejected += " " + std::to_string(engine_index) + "(does not build)";
        continue;
      }
      workspace_bytes_ = static_cast<std::size_t>(plan.get_int64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE));
      engine_description_ = "engine " + std::to_string(engine_index) + " (" +
                            (note_list.empty() ? std::string("no numerical notes") : note_list) +
                            ") from heuristics mode " + (mode == CUDNN_HEUR_MODE_A ? "A" : "fallback");
      plan_ = std::move(plan);
      keep_alive_.push_back(std::move(x));
      keep_alive_.push_back(std::move(w));
      keep_alive_.push_back(std::move(y));
      keep_alive_.push_back(std::move(convolution));
      keep_alive_.push_back(std::move(operation));
      keep_alive_.push_back(std::move(graph));
      keep_alive_.push_back(std::move(engine));
      keep_alive_.push_back(std::move(config));  // the plan was built from it
      return;
    }
  }
  throw Error("cuDNN has no " + std::string(math_name(math)) + " engine for convolution " + shape.key() +
              (rejected.empty() ? std::string() : "; engines rejected:" + rejected));
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
