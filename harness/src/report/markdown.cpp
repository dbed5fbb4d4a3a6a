// The Markdown summary ($GITHUB_STEP_SUMMARY), made from the JSON report
// only, so that `kernelgate summarize` rebuilds it from the files: a table per
// workload and hardware, ranked, with the floors (like the KernelIndex pages).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/gpu_identity.hpp"
#include "kernelgate/detail/report.hpp"

namespace kg {

using nlohmann::ordered_json;

namespace {

std::string fixed(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

std::string ms_text(const ordered_json& value) {
  return value.is_number() ? fixed("%.4g", value.get<double>()) : "—";
}
std::string times_text(const ordered_json& value) {
  return value.is_number() ? fixed("%.2f×", value.get<double>()) : "—";
}

// An outcome named in a report that fails the gate; a name this version
// does not know is shown as a problem too.
bool is_failure_name(const std::string& name) {
  try {
    return is_failure(outcome_from_string(name));
  } catch (const Error&) {
    return true;
  }
}

std::string string_of(const ordered_json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// Where a ranked figure comes from: a publication (with its source), or this
// run, measured or on the simulated GPU. The row's own trust is shown, so a
// simulated figure never reads as a measurement.
std::string trust_cell(const ordered_json& row) {
  const std::string trust = string_of(row, "trust");
  if (trust == "reported") return "reported: " + markdown_cell(string_of(row, "origin"), 80);
  return markdown_cell(trust) + " (this run)";
}

}  // namespace

// Table cells must not break the table: no pipes, no newlines; long messages cut.
std::string markdown_cell(std::string text, std::size_t limit) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  std::string escaped;
  for (char c : text) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
  if (escaped.size() > limit) escaped = escaped.substr(0, limit) + "…";
  return escaped;
}

namespace {

// Interpret mode's counters of each candidate (docs/interpret-mode.md,
// "Counters"), with the ratios a reviewer reads: sectors per load request
// (4 is a coalesced float per lane), coalescing efficiency, shared wavefronts
// over the conflict-free number. Empty when no candidate was counted.
std::string counters_table(const ordered_json& candidates) {
  std::string rows, unavailable;
  auto ratio = [](std::uint64_t a, std::uint64_t b) { return b ? fixed("%.2f", double(a) / double(b)) : std::string("—"); };
  for (const auto& candidate : candidates) {
    const auto model = candidate.find("model");
    if (model == candidate.end() || !model->is_object()) continue;
    const std::string id = "`" + markdown_cell(string_of(candidate, "id")) + "`";
    if (model->contains("unavailable")) {
      unavailable += "- " + id + ": " + markdown_cell(string_of(*model, "unavailable"), 300) + "\n";
      continue;
    }
    const ordered_json& c = model->at("counters");
    auto n = [&](const char* name) { return c.value(name, std::uint64_t{0}); };
    const std::uint64_t sectors = n("global_load_sectors") + n("global_store_sectors");
    rows += "| " + id + " | " + std::to_string(n("global_requests")) + " | " +
            ratio(n("global_load_sectors"), n("global_load_requests")) + " | " +
            ratio(n("global_store_sectors"), n("global_store_requests")) + " | " +
            (sectors ? fixed("%.0f%%", 100.0 * double(n("global_bytes_requested")) / (32.0 * double(sectors))) : "—") +
            " | " + std::to_string(n("dram_bytes")) + " | " + std::to_string(n("shared_requests")) + " | " +
            ratio(n("shared_wavefronts"), n("shared_wavefronts_ideal")) + " | " + std::to_string(n("tensor_flops")) +
            " | " + std::to_string(n("barriers")) + " |\n";
  }
  if (rows.empty() && unavailable.empty()) return "";
  std::string md = "Counted in interpret mode (requests, not times; the first checked run):\n\n";
  if (!rows.empty()) {
    md += "| implementation | global requests | sectors / load | sectors / store | coalescing | footprint (bytes) | "
          "shared requests | wavefronts / ideal | tensor FLOPs | barriers |\n";
    md += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n" + rows + "\n";
  }
  if (!unavailable.empty()) md += "Not counted:\n\n" + unavailable + "\n";
  return md;
}

// The roofline of each counted candidate on each GPU key (docs/roofline.md):
// modelled time, its bound and the ratio to the workload's floor there, in a
// table of its own so that no modelled figure sits among measured ones.
std::string modelled_table(const ordered_json& candidates) {
  std::vector<std::string> keys;
  std::string rows;
  for (const auto& candidate : candidates) {
    const auto model = candidate.find("model");
    if (model == candidate.end() || !model->is_object() || !model->contains("hardware")) continue;
    const ordered_json& by_key = model->at("hardware");
    if (keys.empty())
      for (const auto& [key, value] : by_key.items()) keys.push_back(key);
    rows += "| `" + markdown_cell(string_of(candidate, "id")) + "` |";
    for (const auto& key : keys) {
      if (!by_key.contains(key)) {
        rows += " — |";
        continue;
      }
      const ordered_json& m = by_key.at(key);
      if (m.contains("not_modelled")) {
        rows += " not modelled: " + markdown_cell(string_of(m, "not_modelled")) + " |";
        continue;
      }
      rows += " " + ms_text(m.at("time_ms")) + " ms, " + markdown_cell(string_of(m, "bound"));
      if (m.at("above_floor").is_number()) rows += " (" + times_text(m.at("above_floor")) + " floor)";
      rows += " |";
    }
    rows += "\n";
  }
  if (rows.empty()) return "";
  std::string md = "Modelled from the counters (trust `modelled`: a roofline at this run's axes, not a measurement; "
                   "docs/roofline.md), with the bound and the ratio to the workload's floor:\n\n| implementation |";
  std::string rule = "|---|";
  for (const auto& key : keys) {
    md += " " + key + " |";
    rule += "---|";
  }
  return md + "\n" + rule + "\n" + rows + "\n";
}

// Times that a reviewer should look at although every check passed (the
// ranking's `review`: far faster than the library in the same run).
std::string review_list(const ordered_json& ranking) {
  std::string list;
  for (const auto& row : ranking)
    if (row.contains("review") && row["review"].is_string())
      list += "- `" + string_of(row, "implementation") + "`: " + markdown_cell(row["review"].get<std::string>(), 300) +
              "\n";
  return list.empty() ? "" : "For review (not failures):\n\n" + list + "\n";
}

// `kernelgate lint`'s findings in the candidates' files, for the reviewer
// (docs/lint.md); a failure of its own only where the run was told so.
std::string source_lint_list(const ordered_json& candidates) {
  std::string list;
  for (const auto& candidate : candidates) {
    if (!candidate.contains("source_lint")) continue;
    for (const auto& finding : candidate["source_lint"])
      list += "- `" + string_of(candidate, "id") + "`: " + markdown_cell(finding.get<std::string>(), 300) + "\n";
  }
  if (list.empty()) return "";
  return "Source lint findings, for review (docs/lint.md):\n\n" + list + "\n";
}

// The heading, the run's device and identity, and the floors.
std::string summary_heading(const ordered_json& report) {
  const ordered_json& workload = report.at("workload");
  const std::string hardware = string_of(report, "hardware");
  const bool passed = string_of(report, "outcome") == "passed";
  std::string md;
  md += "### " + std::string(passed ? "✅ " : "❌ ") + string_of(workload, "id") + " on " + hardware + "\n\n";
  if (!string_of(workload, "title").empty()) md += markdown_cell(string_of(workload, "title")) + ". ";
  const ordered_json& environment = report.at("environment");
  md += "Device `" + string_of(report, "device") + "`";
  if (environment.is_object() && environment.contains("gpu") && environment["gpu"].is_string())
    md += " (" + environment["gpu"].get<std::string>() + ")";
  md += ", preset `" + (string_of(workload, "preset").empty() ? std::string("default") : string_of(workload, "preset")) +
        "`, workload identity `" + string_of(workload, "identity").substr(0, 12) + "`, run " +
        string_of(report, "started_at") + ".\n\n";
  if (is_simulated_hardware(hardware))
    md += "A run on the simulated GPU: its latencies are interpret mode's, not measurements, and it is never "
          "published.\n\n";
  const ordered_json& floors = report.at("floors");
  if (floors.is_object()) {
    md += "Estimated floors on " + hardware + ": memory " + ms_text(floors.at("memory_ms")) + " ms";
    for (const auto& [precision, value] : floors.at("compute_ms").items())
      md += ", " + precision + " compute " + ms_text(value) + " ms";
    md += "; a candidate's floor is the larger of memory and its precision's compute.\n\n";
  }
  return md;
}

// The ranking: every timed implementation, fastest first.
std::string ranking_table(const ordered_json& ranking) {
  if (ranking.empty()) return "No implementation was timed.\n\n";
  std::string md = "| # | implementation | precision | latency (ms) | vs #1 | speedup over eager | trust | speed judged | "
                   "observed | stale | floor (ms) | × above floor |\n";
  md += "|---:|---|---|---:|---:|---:|---|---|---|---|---:|---:|\n";
  for (const auto& row : ranking) {
    const std::string trust = string_of(row, "trust");
    const std::string outcome = string_of(row, "outcome");
    // Appended piecewise: GCC 12 warns falsely on "literal" + std::string temporaries.
    std::string name = "`";
    name += markdown_cell(string_of(row, "implementation"));
    name += "`";
    if (outcome == "new") name += " (new)";
    if (outcome == "regressed" || outcome == "inconclusive" || outcome == "unreliable") {
      name += " ❌ ";
      name += outcome;
    }
    md += "| " + std::to_string(row.at("rank").get<int>()) + " | " + name + " | " + markdown_cell(string_of(row, "precision")) +
          " | " + ms_text(row.at("mean_ms")) + " | " + times_text(row.at("vs_first")) + " | " +
          times_text(row.at("speedup_over_eager")) + " | " +
          trust_cell(row) + " | " + markdown_cell(string_of(row, "judged")) + " | " + string_of(row, "observed") + " | " +
          (row.at("stale").get<bool>() ? (trust == "reported" ? "old (not gated)" : "⚠️ stale") : "") + " | " +
          ms_text(row.at("floor_ms")) + " | " + times_text(row.at("above_floor")) + " |\n";
  }
  return md + "\n";
}

// What a reviewer must act on, and what was not ranked.
std::string problems_and_unranked(const ordered_json& candidates) {
  std::string problems, unranked;
  for (const auto& candidate : candidates) {
    const std::string id = string_of(candidate, "id");
    const std::string outcome = string_of(candidate, "outcome");
    for (const auto& check : candidate.at("checks")) {
      const std::string check_outcome = string_of(check, "outcome");
      if (is_failure_name(check_outcome))
        problems += "- `" + id + "` " + string_of(check, "name") + ": **" + check_outcome + "**: " +
                    markdown_cell(string_of(check, "message"), 1000) + "\n";
    }
    const bool ranked = candidate.contains("gate") && candidate["gate"].is_object() &&
                        candidate["gate"].value("gated", false);
    if (!ranked)
      unranked += "- `" + id + "`: " + outcome +
                  (string_of(candidate, "message").empty() ? "" : ": " + markdown_cell(string_of(candidate, "message"), 300)) +
                  "\n";
  }
  std::string md;
  if (!problems.empty()) md += "**To fix or publish:**\n\n" + problems + "\n";
  if (!unranked.empty()) md += "Not ranked:\n\n" + unranked + "\n";
  return md;
}

}  // namespace

std::string markdown_summary(const ordered_json& report) {
  std::string md = summary_heading(report);
  md += ranking_table(report.at("ranking"));
  md += counters_table(report.at("candidates"));
  md += modelled_table(report.at("candidates"));
  md += problems_and_unranked(report.at("candidates"));
  md += source_lint_list(report.at("candidates"));
  md += review_list(report.at("ranking"));
  return md;
}

// The same-job A/B (ab_comparison.hpp): a table per workload.
std::string ab_markdown(const std::vector<RunAB>& comparisons) {
  std::string text;
  for (const RunAB& run : comparisons) {
    text += "### " + std::string(ab_exit_code({run}) == 0 ? "✅" : "❌") + " " + run.workload + " on " +
            run.hardware + ": head against base\n\n";
    text += "| implementation | verdict | head / base | 99% interval | detail |\n|---|---|---:|---|---|\n";
    for (const CandidateAB& c : run.candidates) {
      char ratio[32] = "—", interval[64] = "—";
      if (c.comparison) {
        std::snprintf(ratio, sizeof ratio, "%.3fx", c.comparison->ratio);
        std::snprintf(interval, sizeof interval, "%.3fx to %.3fx", c.comparison->ratio_low, c.comparison->ratio_high);
      }
      text += "| `" + markdown_cell(c.implementation, 80) + "` | " + std::string(to_string(c.outcome)) + " | " +
              ratio + " | " + interval + " | " + markdown_cell(c.message) + " |\n";
    }
    text += "\n";
  }
  return text;
}

}  // namespace kg
