// The registry of strict-FP32 GPU references (kernelgate/strict_reference.hpp).
// Built in both builds so the runner can ask uniformly; only the gpu build's
// cudnn_eager candidates register into it.
#include <utility>

#include "kernelgate/error.hpp"
#include "kernelgate/strict_reference.hpp"

namespace kg {

std::vector<StrictReference>& strict_reference_registry() {
  static std::vector<StrictReference> registry;  // function-local: safe in static init
  return registry;
}

const StrictReference* find_strict_reference(std::string_view workload) {
  for (const StrictReference& reference : strict_reference_registry())
    if (reference.workload == workload) return &reference;
  return nullptr;
}

StrictReferenceRegistrar::StrictReferenceRegistrar(StrictReference reference) {
  if (find_strict_reference(reference.workload) != nullptr)
    throw Error("two strict-FP32 references registered for workload '" + reference.workload + "'");
  strict_reference_registry().push_back(std::move(reference));
}

}  // namespace kg
