// kg::cudnn::BackendDescriptor: the backend API's create/set/finalize/get with
// every status checked, the attribute named in the error.
#include "kernelgate/cudnn/backend_descriptor.hpp"

#include <source_location>

#include "kernelgate/cuda_check.hpp"

namespace kg::cudnn {
namespace {

// The line of the failing call inside this file, not of this helper.
void check(cudnnStatus_t status, const std::string& call,
           std::source_location where = std::source_location::current()) {
  ::kg::detail::check_cudnn(status, call.c_str(), where.file_name(), static_cast<int>(where.line()));
}

}  // namespace

std::string attribute_name(cudnnBackendAttributeName_t name) {
  return "attribute " + std::to_string(static_cast<int>(name)) + " (cudnn_graph.h)";
}

BackendDescriptor::BackendDescriptor(cudnnBackendDescriptorType_t type) : type_(type) {
  cudnnBackendDescriptor_t descriptor = nullptr;
  check(cudnnBackendCreateDescriptor(type, &descriptor),
        "cudnnBackendCreateDescriptor(type " + std::to_string(static_cast<int>(type)) + ")");
  descriptor_.reset(descriptor);
}

// Destructors must not throw; a failing destroy changes nothing.
void BackendDescriptor::Destroy::operator()(cudnnBackendDescriptor_t descriptor) const {
  cudnnBackendDestroyDescriptor(descriptor);
}

BackendDescriptor& BackendDescriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                                          std::int64_t count, const void* values) {
  check(cudnnBackendSetAttribute(descriptor_.get(), name, type, count, values),
        "cudnnBackendSetAttribute(descriptor type " + std::to_string(static_cast<int>(type_)) + ", " +
            attribute_name(name) + ")");
  return *this;
}

BackendDescriptor& BackendDescriptor::set(cudnnBackendAttributeName_t name, std::int64_t value) {
  return set(name, CUDNN_TYPE_INT64, 1, &value);
}

BackendDescriptor& BackendDescriptor::set(cudnnBackendAttributeName_t name, const std::vector<std::int64_t>& values) {
  return set(name, CUDNN_TYPE_INT64, static_cast<std::int64_t>(values.size()), values.data());
}

BackendDescriptor& BackendDescriptor::set(cudnnBackendAttributeName_t name, const BackendDescriptor& value) {
  cudnnBackendDescriptor_t raw = value.get();
  return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw);
}

BackendDescriptor& BackendDescriptor::set(cudnnBackendAttributeName_t name,
                                          const std::vector<const BackendDescriptor*>& values) {
  std::vector<cudnnBackendDescriptor_t> raw;
  raw.reserve(values.size());
  for (const BackendDescriptor* value : values) raw.push_back(value->get());
  return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<std::int64_t>(raw.size()), raw.data());
}

BackendDescriptor& BackendDescriptor::set(cudnnBackendAttributeName_t name, const std::vector<void*>& pointers) {
  return set(name, CUDNN_TYPE_VOID_PTR, static_cast<std::int64_t>(pointers.size()), pointers.data());
}

BackendDescriptor& BackendDescriptor::set_pointer(cudnnBackendAttributeName_t name, void* pointer) {
  return set(name, CUDNN_TYPE_VOID_PTR, 1, &pointer);
}

BackendDescriptor& BackendDescriptor::finalize() {
  check(cudnnBackendFinalize(descriptor_.get()),
        "cudnnBackendFinalize(descriptor type " + std::to_string(static_cast<int>(type_)) + ")");
  return *this;
}

cudnnStatus_t BackendDescriptor::try_finalize() { return cudnnBackendFinalize(descriptor_.get()); }

std::int64_t BackendDescriptor::get_int64(cudnnBackendAttributeName_t name) const {
  std::int64_t value = 0;
  std::int64_t count = 0;
  check(cudnnBackendGetAttribute(descriptor_.get(), name, CUDNN_TYPE_INT64, 1, &count, &value),
        "cudnnBackendGetAttribute(" + attribute_name(name) + ")");
  return value;
}

void BackendDescriptor::get_descriptor(cudnnBackendAttributeName_t name, BackendDescriptor& into) const {
  cudnnBackendDescriptor_t raw = into.get();
  std::int64_t count = 0;
  check(cudnnBackendGetAttribute(descriptor_.get(), name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &raw),
        "cudnnBackendGetAttribute(" + attribute_name(name) + ")");
}

std::vector<BackendDescriptor> BackendDescriptor::get_descriptors(cudnnBackendAttributeName_t name,
                                                                  cudnnBackendDescriptorType_t element_type) const {
  // First the count, then cuDNN fills descriptors we created (the backend API's protocol).
  std::int64_t available = 0;
  check(cudnnBackendGetAttribute(descriptor_.get(), name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &available, nullptr),
        "cudnnBackendGetAttribute(" + attribute_name(name) + ", count)");
  std::vector<BackendDescriptor> elements;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < available; ++i) {
    elements.emplace_back(element_type);
    raw.push_back(elements.back().get());
  }
  std::int64_t returned = 0;
  if (available > 0)
    check(cudnnBackendGetAttribute(descriptor_.get(), name, CUDNN_TYPE_BACKEND_DESCRIPTOR, available, &returned,
                                   raw.data()),
          "cudnnBackendGetAttribute(" + attribute_name(name) + ")");
  elements.resize(static_cast<std::size_t>(returned));
  return elements;
}

std::vector<cudnnBackendNumericalNote_t> BackendDescriptor::get_numerical_notes(
    cudnnBackendAttributeName_t name) const {
  std::vector<cudnnBackendNumericalNote_t> notes(CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
  std::int64_t count = 0;
  check(cudnnBackendGetAttribute(descriptor_.get(), name, CUDNN_TYPE_NUMERICAL_NOTE,
                                 static_cast<std::int64_t>(notes.size()), &count, notes.data()),
        "cudnnBackendGetAttribute(" + attribute_name(name) + ")");
  notes.resize(static_cast<std::size_t>(count));
  return notes;
}

}  // namespace kg::cudnn
