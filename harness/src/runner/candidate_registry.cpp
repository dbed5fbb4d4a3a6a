// The registry of candidates linked into this binary (KG_REGISTER_CANDIDATE),
// and of the register tables of their kernels (KernelResourcesRegistrar).
#include <algorithm>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "kernelgate/candidate.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/json_reader.hpp"
#include "runner_internal.hpp"

namespace kg {

namespace {

// The file each registration came from, in registration order (for messages).
std::vector<std::string>& source_files() {
  static std::vector<std::string> files;
  return files;
}

// Why a registration was refused, for check_candidate_registry to report.
std::vector<std::string>& refused_registrations() {
  static std::vector<std::string> refused;
  return refused;
}

std::string file_or_unknown(const char* file) { return file ? file : "(registered without a file name)"; }

// The resources.json texts compiled in, with their files.
std::vector<std::pair<std::string, std::string>>& resource_tables() {
  static std::vector<std::pair<std::string, std::string>> tables;
  return tables;
}

}  // namespace

void detail::refuse_registration(std::string why) { refused_registrations().push_back(std::move(why)); }

std::string detail::name_by_site(std::string name, const char* from_path, const char* what,
                                 const RegistrationSite& site) {
  const std::string path_name = from_path ? from_path : "";
  if (name.empty()) name = path_name;
  if (name.empty())
    throw Error(file_or_unknown(site.file) + ": the registration gives no " + what +
                " and the file is not <folder>/<workload>/<id>.cu of a candidate library");
  if (!path_name.empty() && name != path_name)
    throw Error(file_or_unknown(site.file) + ": the registration names the " + what + " '" + name +
                "' but the file's path names '" + path_name + "' (leave ." + what +
                " out: the path gives it)");
  // As a suite id: the name becomes file names, test names and baseline keys.
  const bool lowercase_identifier =
      (name[0] < '0' || name[0] > '9') && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      });
  if (!lowercase_identifier)
    throw Error(file_or_unknown(site.file) + ": the " + what + " '" + name +
                "' is not lowercase letters, digits and '_' (not starting with a digit): rename the " +
                (path_name.empty() ? "registration's ." + std::string(what) : std::string("file or its folder")));
  return name;
}

std::vector<Candidate>& candidate_registry() {
  static std::vector<Candidate> registry;  // function-local: safe in static init
  return registry;
}

Candidate named_by_site(Candidate candidate, const RegistrationSite& site) {
  candidate.workload = detail::name_by_site(std::move(candidate.workload), site.workload, "workload", site);
  candidate.id = detail::name_by_site(std::move(candidate.id), site.id, "id", site);
  return candidate;
}

CandidateRegistrar::CandidateRegistrar(Candidate candidate, RegistrationSite site) {
  try {
    candidate_registry().push_back(named_by_site(std::move(candidate), site));
  } catch (const Error& e) {
    detail::refuse_registration(e.what());
    return;
  }
  source_files().resize(candidate_registry().size() - 1);
  source_files().push_back(file_or_unknown(site.file));
}

void check_candidate_registry() {
  if (!refused_registrations().empty()) throw Error(refused_registrations().front());
  const auto& all = candidate_registry();
  auto file_of = [](std::size_t i) {
    return i < source_files().size() ? source_files()[i] : file_or_unknown(nullptr);
  };
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = i + 1; j < all.size(); ++j)
      if (all[i].workload == all[j].workload && all[i].id == all[j].id)
        throw Error("two candidates of workload " + all[i].workload + " have the id '" + all[i].id +
                    "': " + file_of(i) + " and " + file_of(j) +
                    " (each candidate needs an id of its own)");
}

std::string candidate_source_file(const Candidate& candidate) {
  const auto& all = candidate_registry();
  for (std::size_t i = 0; i < all.size() && i < source_files().size(); ++i)
    if (&all[i] == &candidate && source_files()[i] != file_or_unknown(nullptr)) return source_files()[i];
  return "";
}

KernelResourcesRegistrar::KernelResourcesRegistrar(const char* json_text, const char* source_file) {
  resource_tables().emplace_back(json_text, source_file);
}

std::map<std::string, KernelResources> registered_kernel_resources() {
  std::map<std::string, KernelResources> merged;
  for (const auto& [text, file] : resource_tables()) {
    nlohmann::ordered_json table;
    try {
      table = nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw Error(file + ": not valid JSON: " + e.what());
    }
    const JsonReader root(table, file);
    read_file_kind(root, {.kind = "kernelgate-kernel-resources", .oldest_version = 1, .version = 1});
    root.expect_keys({"kind", "schema_version", "kernels"}, {"arch", "compiler", "revision"});
    const JsonReader kernels = root.at("kernels").expect_object();
    for (const auto& [symbol, unused] : kernels.json().items()) {
      const JsonReader figures = kernels.at(symbol).expect_keys(
          {"registers", "static_shared_bytes"}, {"source", "stack_bytes", "spill_store_bytes", "spill_load_bytes"});
      const KernelResources entry{int(figures.at("registers").as_integer_in(0, 255)),
                                  std::size_t(figures.at("static_shared_bytes").as_integer_in(0, 1 << 30))};
      const auto [at, inserted] = merged.emplace(symbol, entry);
      if (!inserted && (at->second.registers_per_thread != entry.registers_per_thread ||
                        at->second.static_smem_bytes != entry.static_smem_bytes))
        kernels.fail_at(symbol, "other figures than in another resources.json");
    }
  }
  return merged;
}

const void* LaunchArgs::input_of(std::string_view name, DType dtype) const {
  for (const auto& tensor : inputs) {
    if (tensor.name != name) continue;
    if (tensor.dtype != dtype)
      throw Error("candidate asked for tensor '" + std::string(name) + "' as " + std::string(to_string(dtype)) +
                  ", it holds " + std::string(to_string(tensor.dtype)));
    return tensor.data;
  }
  throw Error("candidate asked for unknown tensor '" + std::string(name) + "'");
}

const float* LaunchArgs::in(std::string_view name) const {
  return static_cast<const float*>(input_of(name, DType::float32));
}

const std::int64_t* LaunchArgs::in_int64(std::string_view name) const {
  return static_cast<const std::int64_t*>(input_of(name, DType::int64));
}

const bool* LaunchArgs::in_bool(std::string_view name) const {
  return static_cast<const bool*>(input_of(name, DType::boolean));
}

std::int64_t LaunchArgs::axis(std::string_view name) const {
  auto it = axes.find(std::string(name));
  if (it == axes.end()) throw Error("candidate asked for unknown axis '" + std::string(name) + "'");
  return it->second;
}

float* LaunchArgs::workspace_floats(std::int64_t count, std::string_view what) const {
  const std::size_t needed = static_cast<std::size_t>(count) * sizeof(float);
  if (count < 0 || workspace_bytes < needed)
    throw Error("the candidate's workspace holds " + std::to_string(workspace_bytes) + " bytes, the " +
                std::to_string(count) + " " + std::string(what) + " need " + std::to_string(needed));
  return static_cast<float*>(workspace);
}

namespace {
std::string sm_name(int compute_capability) { return "sm_" + std::to_string(compute_capability); }
}  // namespace

std::string architecture_problem(const ArchitectureNeed& need, int compute_capability) {
  // Architecture-specific code ("a") runs on its own capability alone: sm_90a
  // neither on 8.9 nor on 10.0.
  if (need.compute_capability == 0 || compute_capability == 0 || need.compute_capability == compute_capability)
    return "";
  std::string reason = "needs " + sm_name(need.compute_capability) + "a";
  if (!need.feature.empty()) reason += " (" + need.feature + ")";
  return reason + "; this GPU is " + sm_name(compute_capability);
}

}  // namespace kg
