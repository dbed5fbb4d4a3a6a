// The registry of candidates linked into this binary (KG_REGISTER_CANDIDATE).
#include <utility>

#include "kernelgate/candidate.hpp"
#include "kernelgate/error.hpp"

namespace kg {

std::vector<Candidate>& candidate_registry() {
  static std::vector<Candidate> registry;  // function-local: safe in static init
  return registry;
}

CandidateRegistrar::CandidateRegistrar(Candidate candidate) {
  candidate_registry().push_back(std::move(candidate));
}

const float* LaunchArgs::in(std::string_view name) const {
  for (const auto& tensor : inputs)
    if (tensor.name == name) return tensor.data;
  throw Error("candidate asked for unknown tensor '" + std::string(name) + "'");
}

std::int64_t LaunchArgs::axis(std::string_view name) const {
  auto it = axes.find(std::string(name));
  if (it == axes.end()) throw Error("candidate asked for unknown axis '" + std::string(name) + "'");
  return it->second;
}

}  // namespace kg
