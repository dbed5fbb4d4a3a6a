#pragma once
// cuDNN's backend (graph) API descriptors as move-only RAII objects, with
// typed setters and getters that throw kg::CudaError naming the attribute.
// Our own small wrapper: NVIDIA's cudnn-frontend is not packaged for Debian.
// docs/gpu-runner.md ("cuDNN graphs") says how the convolution graphs use it.
#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kg::cudnn {

// The attribute type cuDNN gives one value of each plain C++ type the typed
// setter takes; a type without one is refused at compile time.
template <typename T>
struct AttributeType;
template <> struct AttributeType<float> { static constexpr auto value = CUDNN_TYPE_FLOAT; };
template <> struct AttributeType<bool> { static constexpr auto value = CUDNN_TYPE_BOOLEAN; };
template <> struct AttributeType<cudnnDataType_t> { static constexpr auto value = CUDNN_TYPE_DATA_TYPE; };
template <> struct AttributeType<cudnnConvolutionMode_t> { static constexpr auto value = CUDNN_TYPE_CONVOLUTION_MODE; };
template <> struct AttributeType<cudnnBackendHeurMode_t> { static constexpr auto value = CUDNN_TYPE_HEUR_MODE; };
template <> struct AttributeType<cudnnHandle_t> { static constexpr auto value = CUDNN_TYPE_HANDLE; };
template <typename T>
concept PlainAttribute = requires { AttributeType<T>::value; };

class BackendDescriptor {
 public:
  BackendDescriptor() = default;  // empty; get() is null
  explicit BackendDescriptor(cudnnBackendDescriptorType_t type);

  cudnnBackendDescriptor_t get() const { return descriptor_.get(); }
  explicit operator bool() const { return descriptor_ != nullptr; }

  // The raw setter; the typed ones below are what callers use.
  BackendDescriptor& set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                         std::int64_t count, const void* values);
  BackendDescriptor& set(cudnnBackendAttributeName_t name, std::int64_t value);
  BackendDescriptor& set(cudnnBackendAttributeName_t name, const std::vector<std::int64_t>& values);
  template <PlainAttribute T>
  BackendDescriptor& set(cudnnBackendAttributeName_t name, T value) {
    return set(name, AttributeType<T>::value, 1, &value);
  }
  BackendDescriptor& set(cudnnBackendAttributeName_t name, const BackendDescriptor& value);
  BackendDescriptor& set(cudnnBackendAttributeName_t name, const std::vector<const BackendDescriptor*>& values);
  BackendDescriptor& set(cudnnBackendAttributeName_t name, const std::vector<void*>& pointers);
  BackendDescriptor& set_pointer(cudnnBackendAttributeName_t name, void* pointer);

  // Throws kg::CudaError when cuDNN rejects the descriptor.
  BackendDescriptor& finalize();
  // For descriptors that may legitimately be unsupported (an engine config
  // that does not fit the problem): the status instead of an exception.
  cudnnStatus_t try_finalize();

  std::int64_t get_int64(cudnnBackendAttributeName_t name) const;
  // Fills `into` (already created, of the right type) from a descriptor-valued attribute.
  void get_descriptor(cudnnBackendAttributeName_t name, BackendDescriptor& into) const;
  // Every element of a descriptor-valued array attribute, created as `element_type`.
  std::vector<BackendDescriptor> get_descriptors(cudnnBackendAttributeName_t name,
                                                 cudnnBackendDescriptorType_t element_type) const;
  std::vector<cudnnBackendNumericalNote_t> get_numerical_notes(cudnnBackendAttributeName_t name) const;

 private:
  struct Destroy {
    void operator()(cudnnBackendDescriptor_t descriptor) const;  // never throws
  };
  std::unique_ptr<void, Destroy> descriptor_;  // moves with its owner, never copied
  cudnnBackendDescriptorType_t type_{};
};

// "CUDNN_ATTR_TENSOR_STRIDES (903)" style names for messages.
std::string attribute_name(cudnnBackendAttributeName_t name);

}  // namespace kg::cudnn
