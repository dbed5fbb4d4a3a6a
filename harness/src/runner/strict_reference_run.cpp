// Runs a workload's strict-FP32 GPU reference (kernelgate/strict_reference.hpp)
// on the inputs a candidate was given, into an output and a workspace of its
// own, so the candidate's buffers and contract checks are untouched.
#include "runner_internal.hpp"

namespace kg::detail {

StrictReferenceRun::StrictReferenceRun(const StrictReference& reference, Device& device,
                                       const LaunchArgs& candidate_args)
    : reference_(reference), device_(device), args_(candidate_args) {
  const auto output_bytes = static_cast<std::size_t>(element_count(args_.output_shape)) * sizeof(float);
  output_ = device_.allocate(output_bytes, "strict-FP32 reference output");
  args_.output = reinterpret_cast<float*>(output_.data);
  args_.workspace_bytes = reference_.workspace_bytes ? reference_.workspace_bytes(args_.axes) : 0;
  try {
    workspace_ = device_.allocate(args_.workspace_bytes, "strict-FP32 reference workspace");
  } catch (...) {
    device_.release(output_);  // the destructor does not run for a throwing constructor
    throw;
  }
  args_.workspace = args_.workspace_bytes ? workspace_.data : nullptr;
}

StrictReferenceRun::~StrictReferenceRun() {
  // Poisoned before they are freed: memory the allocator hands out again
  // holds no answer. Nothing here may throw (after a sticky error the fill
  // fails; the buffers are still released).
  for (DeviceBuffer* buffer : {&output_, &workspace_}) {
    try {
      if (buffer->bytes > 0) device_.fill_words(*buffer, kPoisonWord);
    } catch (...) {
    }
    device_.release(*buffer);
  }
}

std::vector<float> StrictReferenceRun::output() {
  device_.fill_words(output_, kPoisonWord);
  reference_.launch(args_);
  device_.synchronize();
  std::vector<float> values(output_.bytes / sizeof(float));
  device_.copy_to_host(values.data(), output_, output_.bytes);
  return values;
}

}  // namespace kg::detail
