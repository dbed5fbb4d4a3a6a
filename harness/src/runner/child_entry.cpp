// The child process's side: the request it is given (JSON written by the
// parent) and its entry point, which checks one candidate and writes the
// result. Every failure it can see becomes a result; only a signal or a hang
// has to be read by the parent.
#include <cstring>
#include <exception>
#include <fstream>

#include "kernelgate/error.hpp"
#include "runner_internal.hpp"

namespace kg {
namespace detail {

nlohmann::ordered_json make_child_request(const Suite& suite, const Candidate& candidate,
                                          const Device& device, const Axes& axes,
                                          const RunOptions& options) {
  nlohmann::ordered_json request;
  request["workload"] = suite.id;
  request["suite_file"] = suite.file.string();
  request["candidate"] = candidate.id;
  request["device"] = device.name();
  request["axes"] = nlohmann::ordered_json::object();
  for (const auto& [name, value] : axes) request["axes"][name] = value;
  request["seed"] = options.seed;
  request["full_reference_max_elements"] = options.full_reference_max_elements;
  request["sample_points"] = options.sample_points;
  const TimingOptions& timing = options.timing;
  request["timing"] = {{"protocol", timing.protocol},     {"warmups", timing.warmups},
                       {"trials", timing.trials},         {"target_rse", timing.target_rse},
                       {"budget_s", timing.budget_s},     {"min_samples", timing.min_samples},
                       {"max_samples", timing.max_samples}};
  return request;
}

}  // namespace detail

namespace {

const Candidate& find_candidate(const std::string& workload, const std::string& id) {
  for (const Candidate* candidate : candidates_for(workload))
    if (candidate->id == id) return *candidate;
  throw Error("workload " + workload + " has no candidate '" + id + "' in this binary");
}

CandidateResult check_from_request(const nlohmann::ordered_json& request, CandidateResult& failed) {
  const Suite suite = load_suite(request.at("suite_file").get<std::string>());
  const Candidate& candidate = find_candidate(request.at("workload").get<std::string>(),
                                              request.at("candidate").get<std::string>());
  failed.precision = candidate.precision;
  Axes axes;
  for (const auto& [name, value] : request.at("axes").items()) axes[name] = value.get<std::int64_t>();
  RunOptions options;
  options.seed = request.at("seed").get<std::uint64_t>();
  options.full_reference_max_elements = request.at("full_reference_max_elements").get<std::int64_t>();
  options.sample_points = request.at("sample_points").get<std::int64_t>();
  const auto& timing = request.at("timing");
  options.timing.protocol = timing.at("protocol").get<std::string>();
  options.timing.warmups = timing.at("warmups").get<int>();
  options.timing.trials = timing.at("trials").get<int>();
  options.timing.target_rse = timing.at("target_rse").get<double>();
  options.timing.budget_s = timing.at("budget_s").get<double>();
  options.timing.min_samples = timing.at("min_samples").get<int>();
  options.timing.max_samples = timing.at("max_samples").get<int>();
  auto device = open_device(request.at("device").get<std::string>());
  return check_candidate(suite, candidate, *device, axes, options);
}

}  // namespace

int run_child(const std::filesystem::path& request_file, const std::filesystem::path& result_file) {
  CandidateResult result;
  try {
    std::ifstream in(request_file);
    if (!in) throw Error("cannot read the child request " + request_file.string());
    const auto request = nlohmann::ordered_json::parse(in);
    result.id = request.at("candidate").get<std::string>();
    CandidateResult failed = result;
    try {
      result = check_from_request(request, failed);
    } catch (...) {
      result = failed;
      throw;
    }
  } catch (const DeviceFault& e) {
    result.outcome = Outcome::crashed;
    result.message = std::string("device fault: ") + e.what();
  } catch (const std::exception& e) {
    // A candidate throwing (a failed launch, a bad argument) crashes only itself.
    result.outcome = Outcome::crashed;
    result.message = std::string("exception: ") + e.what();
  }
  if (result.outcome == Outcome::crashed && result.checks.empty())
    result.checks.push_back(detail::make_check("isolation", Outcome::crashed, result.message));
  std::ofstream out(result_file);
  out << nlohmann::ordered_json(result).dump(2);
  out.close();
  return out ? 0 : 1;
}

std::optional<int> run_child_if_requested(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], kChildSubcommand) != 0) return std::nullopt;
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s %s <request.json> <result.json>\n", argv[0], kChildSubcommand);
    return 2;
  }
  return run_child(argv[2], argv[3]);
}

}  // namespace kg
