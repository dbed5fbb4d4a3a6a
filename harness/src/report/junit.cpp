// The JUnit XML report: one <testsuite> per workload and hardware key, one
// <testcase> per candidate and check. The junit-10 XSD (what Jenkins' xUnit
// and the GitHub Actions JUnit reporters read) allows <properties> only on the
// testsuite, so each candidate's figures are properties named
// "<candidate>.<figure>"; the testcase's <system-out> repeats them in words.
#include <cmath>
#include <cstdio>
#include <utility>

#include <tinyxml2.h>

#include "kernelgate/detail/report.hpp"

namespace kg {

namespace {

std::string number(double value) {
  if (!std::isfinite(value)) return "nan";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

std::string seconds(double ms) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6f", std::isfinite(ms) && ms > 0 ? ms / 1000.0 : 0.0);
  return buffer;
}

const CheckResult* find_check(const CandidateResult& candidate, const std::string& name) {
  for (const auto& check : candidate.checks)
    if (check.name == name) return &check;
  return nullptr;
}

// crashed and timed_out are errors (the test could not finish); the other
// failures are failures (it finished and the answer was wrong).
bool is_error(Outcome outcome) { return outcome == Outcome::crashed || outcome == Outcome::timed_out; }

struct Counts {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
};

void add_property(tinyxml2::XMLElement* properties, const std::string& name, const std::string& value) {
  auto* property = properties->InsertNewChildElement("property");
  property->SetAttribute("name", name.c_str());
  property->SetAttribute("value", value.c_str());
}

// The document's <testsuites> and its one <testsuite> for a workload and key.
std::pair<tinyxml2::XMLElement*, tinyxml2::XMLElement*> start_document(tinyxml2::XMLDocument& document,
                                                                       const std::string& suite_name,
                                                                       const std::string& workload) {
  document.InsertEndChild(document.NewDeclaration());
  auto* suites = document.NewElement("testsuites");
  document.InsertEndChild(suites);
  suites->SetAttribute("name", "kernelgate");
  auto* suite = suites->InsertNewChildElement("testsuite");
  suite->SetAttribute("name", suite_name.c_str());
  suite->SetAttribute("package", workload.c_str());
  return {suites, suite};
}

// The suite's properties: the run's identity, then each candidate's figures
// as "<candidate>.<figure>".
void add_suite_properties(tinyxml2::XMLElement* suite, const ReportInput& input) {
  const RunResult& run = *input.run;
  auto* properties = suite->InsertNewChildElement("properties");
  add_property(properties, "workload", run.workload);
  add_property(properties, "workload_identity", run.identity);
  add_property(properties, "hardware", run.hardware);
  add_property(properties, "device", run.device);
  add_property(properties, "preset", run.preset.empty() ? "default" : run.preset);
  if (run.environment.is_object() && run.environment.contains("gpu") && run.environment["gpu"].is_string())
    add_property(properties, "gpu", run.environment["gpu"].get<std::string>());
  add_property(properties, "baseline_file", input.baseline_file);
  for (const auto& candidate : run.candidates) {
    const std::string prefix = candidate.id + ".";
    const CandidateGate* gate = input.verdict ? input.verdict->find(candidate.id) : nullptr;
    add_property(properties, prefix + "outcome", std::string(to_string(candidate.outcome)));
    add_property(properties, prefix + "precision", candidate.precision);
    if (candidate.latency) {
      add_property(properties, prefix + "latency_ms", number(candidate.latency->mean_ms));
      add_property(properties, prefix + "latency_std_ms", number(candidate.latency->std_ms));
    }
    if (gate && gate->baseline_mean_ms) add_property(properties, prefix + "baseline_ms", number(*gate->baseline_mean_ms));
    if (gate && gate->ratio_to_eager) add_property(properties, prefix + "ratio_to_eager", number(*gate->ratio_to_eager));
    if (gate && gate->stored_ratio_to_eager)
      add_property(properties, prefix + "baseline_ratio_to_eager", number(*gate->stored_ratio_to_eager));
    if (candidate.error) {
      add_property(properties, prefix + "max_abs_error", number(candidate.error->max_abs));
      add_property(properties, prefix + "rel_l2_error", number(candidate.error->rel_l2));
      add_property(properties, prefix + "tolerance_headroom", number(candidate.error->headroom()));
    }
  }
}

// A candidate's figures in words, for the <system-out> of its cases.
std::string candidate_details(const CandidateResult& candidate) {
  std::string details = "outcome: " + std::string(to_string(candidate.outcome)) + "\nprecision: " +
                        candidate.precision + "\n";
  if (candidate.latency)
    details += "latency: " + number(candidate.latency->mean_ms) + " ms (std " + number(candidate.latency->std_ms) +
               ", n " + std::to_string(candidate.latency->n) + ", " + candidate.latency->clock + ")\n";
  if (candidate.error)
    details += "error: max abs " + number(candidate.error->max_abs) + ", rel L2 " + number(candidate.error->rel_l2) +
               ", mismatches " + std::to_string(candidate.error->mismatches) + "\n";
  return details;
}

// Writes the testcases of one suite and counts them.
struct CaseWriter {
  tinyxml2::XMLElement* suite;
  std::string classname;
  std::string hardware;
  Counts counts;

  // One testcase "<candidate>.<check>"; true when it reports a failure or error.
  bool add(const std::string& candidate_id, const std::string& check_name, double time_ms, Outcome outcome,
           const std::string& message, const std::string& details) {
    auto* testcase = suite->InsertNewChildElement("testcase");
    const std::string name = candidate_id + "." + check_name;
    testcase->SetAttribute("name", name.c_str());
    testcase->SetAttribute("classname", classname.c_str());
    testcase->SetAttribute("time", seconds(time_ms).c_str());
    ++counts.tests;
    const std::string outcome_text(to_string(outcome));
    if (is_failure(outcome)) {
      auto* element = testcase->InsertNewChildElement(is_error(outcome) ? "error" : "failure");
      element->SetAttribute("type", outcome_text.c_str());
      element->SetAttribute("message", (outcome_text + ": " + message).c_str());
      element->SetText((name + " on " + hardware + ": " + outcome_text + "\n" + message).c_str());
      ++(is_error(outcome) ? counts.errors : counts.failures);
    } else if (outcome == Outcome::skipped || outcome == Outcome::not_supported) {
      auto* element = testcase->InsertNewChildElement("skipped");
      element->SetAttribute("type", outcome_text.c_str());
      element->SetAttribute("message", message.c_str());
      ++counts.skipped;
    }
    if (!details.empty()) testcase->InsertNewChildElement("system-out")->SetText(details.c_str());
    return is_failure(outcome);
  }

  // A case per check of the four, "not run" for a check the candidate never
  // reached; and a failure outside them (a crash before any check, a
  // watchdog kill) as a case of its own, so that it still fails the suite.
  void add_candidate(const CandidateResult& candidate) {
    const double latency_ms = candidate.latency ? candidate.latency->mean_ms : 0;
    const std::string details = candidate_details(candidate);
    bool failure_reported = false;
    for (const char* check_name : {kEquivalenceCheck, kContractCheck, kLatencyCheck, kStalenessCheck}) {
      const double time_ms = check_name == std::string(kLatencyCheck) ? latency_ms : 0;
      if (const CheckResult* check = find_check(candidate, check_name)) {
        const bool with_details =
            check_name == std::string(kEquivalenceCheck) || check_name == std::string(kLatencyCheck);
        failure_reported |= add(candidate.id, check_name, time_ms, check->outcome,
                                check->rule.empty() ? check->message : "[" + check->rule + "] " + check->message,
                                with_details ? details : check->message);
      } else {
        const std::string why =
            candidate.message.empty() ? std::string(to_string(candidate.outcome)) : candidate.message;
        add(candidate.id, check_name, time_ms,
            candidate.outcome == Outcome::not_supported ? Outcome::not_supported : Outcome::skipped,
            "not run: " + why, "");
      }
    }
    if (is_failure(candidate.outcome) && !failure_reported)
      add(candidate.id, "run", 0, candidate.outcome, candidate.message, details);
  }
};

}  // namespace

std::string junit_xml(const ReportInput& input) {
  const RunResult& run = *input.run;
  tinyxml2::XMLDocument document;
  const std::string suite_name = report_stem(run);
  auto [suites, suite] = start_document(document, suite_name, run.workload);
  if (!run.started_at.empty()) suite->SetAttribute("timestamp", run.started_at.c_str());
  add_suite_properties(suite, input);

  CaseWriter writer{suite, suite_name, run.hardware, {}};
  double total_ms = 0;
  for (const auto& candidate : run.candidates) {
    writer.add_candidate(candidate);
    total_ms += candidate.latency ? candidate.latency->mean_ms : 0;
  }
  const Counts& counts = writer.counts;
  suite->SetAttribute("tests", counts.tests);
  suite->SetAttribute("failures", counts.failures);
  suite->SetAttribute("errors", counts.errors);
  suite->SetAttribute("skipped", counts.skipped);
  suite->SetAttribute("time", seconds(total_ms).c_str());
  suites->SetAttribute("tests", counts.tests);
  suites->SetAttribute("failures", counts.failures);
  suites->SetAttribute("errors", counts.errors);
  suites->SetAttribute("time", seconds(total_ms).c_str());

  tinyxml2::XMLPrinter printer;
  document.Print(&printer);
  return printer.CStr();
}

std::string junit_setup_error_xml(const std::string& workload, const std::string& hardware,
                                  const std::string& message) {
  tinyxml2::XMLDocument document;
  const std::string suite_name = workload + "." + hardware;
  auto [suites, suite] = start_document(document, suite_name, workload);
  auto* testcase = suite->InsertNewChildElement("testcase");
  testcase->SetAttribute("name", "setup");
  testcase->SetAttribute("classname", suite_name.c_str());
  testcase->SetAttribute("time", "0.000000");
  auto* error = testcase->InsertNewChildElement("error");
  error->SetAttribute("type", "setup");
  error->SetAttribute("message", message.c_str());
  error->SetText(("the run stopped before any candidate ran: " + message).c_str());
  for (tinyxml2::XMLElement* element : {suite, suites}) {
    element->SetAttribute("tests", 1);
    element->SetAttribute("failures", 0);
    element->SetAttribute("errors", 1);
    element->SetAttribute("time", "0.000000");
  }
  suite->SetAttribute("skipped", 0);
  tinyxml2::XMLPrinter printer;
  document.Print(&printer);
  return printer.CStr();
}

}  // namespace kg
