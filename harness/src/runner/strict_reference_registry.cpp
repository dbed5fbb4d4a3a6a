// The registry of strict-FP32 GPU references (kernelgate/strict_reference.hpp).
// Built in both builds so the runner can ask uniformly; only the gpu build's
// cudnn_eager candidates register into it.
#include <utility>

#include "kernelgate/error.hpp"
#include "kernelgate/strict_reference.hpp"
#include "runner_internal.hpp"

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

StrictReferenceRegistrar::StrictReferenceRegistrar(StrictReference reference, RegistrationSite site) {
  // The workload as a candidate's: from the path where the registration
  // leaves it out.
  try {
    reference.workload = detail::name_by_site(std::move(reference.workload), site.workload, "workload", site);
  } catch (const Error& e) {
    detail::refuse_registration(e.what());
    return;
  }
  if (find_strict_reference(reference.workload) != nullptr) {
    detail::refuse_registration(std::string(site.file ? site.file : "(registered without a file name)") +
                                ": a second strict-FP32 reference for workload '" + reference.workload + "'");
    return;
  }
  strict_reference_registry().push_back(std::move(reference));
}

}  // namespace kg
