// The static HTML leaderboard: a page per workload (one section per hardware
// key) and an index. A hardware key with a JSON report shows that report's
// ranking (this run's candidates beside the stored reported records); a key
// with only a baseline file shows the stored records.
#include "kernelgate/detail/html_report.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "html_parts.hpp"
#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/hardware.hpp"
#include "kernelgate/detail/json_reader.hpp"
#include "kernelgate/detail/report.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using html::escape;
using html::format_number;
using html::Row;

// What one hardware key of one workload shows.
struct ModelledCell {
  double time_ms = 0;
  std::string bound;
  std::optional<double> above_floor;
  std::string not_modelled;  // why the key has no time (docs/roofline.md)
};

struct Section {
  std::string hardware;
  std::vector<Row> rows;
  double floor_ms = 0;
  std::string floor_label;
  std::string source;     // "report" | "baselines"
  std::string json_link;  // the copied JSON the section was made from
  std::string environment;
  // The published records over time, from the key's baseline file (even
  // when the table shows a report).
  std::vector<ImplementationHistory> history;
  // A counted report's roofline per candidate (docs/roofline.md): key ->
  // {time_ms, bound, above_floor}, in a table apart from the measured rows.
  // Per candidate id, its modelled time on each hardware key (in the report's order).
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, ModelledCell>>>> modelled;
};

std::string environment_line(const ordered_json& environment) {
  std::string line;
  for (const char* key : {"gpu", "gpu_name", "name", "cpu", "driver", "cuda", "cuda_runtime", "cudnn", "pytorch"}) {
    if (!environment.contains(key) || !environment[key].is_string()) continue;
    if (!line.empty()) line += " · ";
    line += std::string(key) + " " + environment[key].get<std::string>();
  }
  return line;
}

// The floor of the fastest precision on this hardware: the line no candidate
// can cross (memory, or TF32 tensor-core compute, whichever is higher).
void set_floor(Section& section, const Suite& suite, const Axes& axes) {
  if (section.hardware == "cpu") return;
  try {
    const Floors floor = floors(suite, axes, section.hardware);
    section.floor_ms = floor.bound_ms("tf32");
    section.floor_label = "floor " + format_number(section.floor_ms) + " ms (" +
                          (floor.memory_ms >= floor.tf32_ms ? "memory" : "tf32 compute") + ")";
  } catch (const Error&) {
    // A hardware key without published peaks has no floor.
  }
}

Section section_from_report(const JsonReader& report, const Suite& suite, const std::string& json_link) {
  Section section;
  section.hardware = report.at("hardware").as_string();
  section.source = "report";
  section.json_link = json_link;
  section.environment = environment_line(report.has("environment") ? report.at("environment").expect_object().json()
                                                                   : ordered_json::object());
  const JsonReader ranking = report.at("ranking");
  ranking.expect_array();
  for (std::size_t i = 0; i < ranking.size(); ++i) {
    const JsonReader entry = ranking.at(i);
    Row row;
    row.rank = int(entry.at("rank").as_integer_in(1, 1 << 30));
    row.implementation = entry.at("implementation").as_string();
    row.precision = entry.string_or("precision", "");
    row.trust = entry.at("trust").as_string();
    row.mean_ms = entry.at("mean_ms").as_number();
    row.std_ms = entry.optional_number("std_ms").value_or(0.0);
    row.vs_first = entry.optional_number("vs_first").value_or(1.0);
    row.speedup_over_eager = entry.optional_number("speedup_over_eager");
    row.observed = entry.string_or("observed", "");
    row.stale = entry.has("stale") && entry.at("stale").as_bool();
    row.above_floor = entry.optional_number("above_floor");
    row.outcome = entry.string_or("outcome", "");
    section.rows.push_back(std::move(row));
  }
  const JsonReader candidates = report.at("candidates");
  candidates.expect_array();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const JsonReader candidate = candidates.at(i);
    if (!candidate.has("model") || !candidate.at("model").expect_object().has("hardware")) continue;
    const JsonReader by_key = candidate.at("model").at("hardware").expect_object();
    std::vector<std::pair<std::string, ModelledCell>> times;
    for (const auto& [key, unused] : by_key.json().items()) {
      const JsonReader model = by_key.at(key).expect_object();
      ModelledCell time;
      if (model.has("not_modelled")) {
        time.not_modelled = model.at("not_modelled").as_string();
      } else {
        time.time_ms = model.at("time_ms").as_number();
        time.bound = model.at("bound").as_string();
        time.above_floor = model.optional_number("above_floor");
      }
      times.emplace_back(key, std::move(time));
    }
    section.modelled.emplace_back(candidate.at("id").as_string(), std::move(times));
  }
  const Axes axes = report.at("workload").at("axes").as_integer_map();
  set_floor(section, suite, axes);
  if (section.hardware == "cpu")
    section.floor_label = "no floor: interpret mode on the CPU is a correctness run, not a speed run";
  return section;
}

Section section_from_baseline(const BaselineFile& file, const Suite& suite, const std::string& json_link,
                              long today_days) {
  Section section;
  section.hardware = file.hardware;
  section.source = "baselines";
  section.json_link = json_link;
  std::vector<BaselineRecord> records = file.records;
  std::stable_sort(records.begin(), records.end(),
                   [](const BaselineRecord& a, const BaselineRecord& b) { return a.latency.mean_ms < b.latency.mean_ms; });
  const Axes axes = suite.default_axes();
  set_floor(section, suite, axes);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const BaselineRecord& record = records[i];
    Row row;
    row.rank = static_cast<int>(i) + 1;
    row.implementation = record.implementation;
    row.precision = record.precision;
    row.trust = std::string(to_string(record.trust));
    row.mean_ms = record.latency.mean_ms;
    row.std_ms = record.latency.std_ms;
    row.vs_first = record.latency.mean_ms / records.front().latency.mean_ms;
    // Eager of the same trust and source: a reported figure is compared with
    // the eager figure of the same publication.
    for (const auto& other : records)
      if ((other.implementation == "torch_eager" || other.implementation == kEagerBaselineId) &&
          other.trust == record.trust && other.source == record.source)
        row.speedup_over_eager = other.latency.mean_ms / record.latency.mean_ms;
    row.observed = record.observed.substr(0, 10);
    const auto observed = iso_date_days(record.observed);
    row.stale = observed && today_days - *observed > suite.gate.max_age_days;
    if (section.floor_ms > 0) row.above_floor = record.latency.mean_ms / section.floor_ms;
    row.outcome = "stored";
    section.rows.push_back(std::move(row));
  }
  if (!records.empty()) section.environment = environment_line(records.front().environment);
  return section;
}

const char* kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:66rem;padding:0 1rem;color:#1d2330;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #d8dce4;padding-bottom:.2rem}
h3{font-size:1.05rem;margin-top:1.4rem}.origin,.muted{color:#5a6475;font-size:.9rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.9rem}th,td{padding:.28rem .6rem;border-bottom:1px solid #e4e7ed;text-align:left;vertical-align:top}
th{background:#f3f5f9}td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:0 .4rem;border-radius:.6rem;font-size:.75rem;font-weight:600}
.stale{background:#fde2cf;color:#8a3b00}.fresh{background:#dcf2e3;color:#1d6b39}.reported{background:#e4e9f7;color:#2f4a8a}.measured{background:#e9f4ec;color:#1d6b39}.modelled{background:#efe6f7;color:#5b2a86}.simulated{background:#f6eedb;color:#7a5a12}
.failed{background:#fbd9d9;color:#8c1d1d}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem;word-break:break-all}td code{white-space:nowrap;word-break:normal}
svg.chart{display:block;margin:.6rem 0 1rem;font-size:12px;font-family:inherit}
svg .bar.measured{fill:#3a7d5c}svg .bar.reported{fill:#7f95c9}svg .bar.simulated{fill:#b8934a}svg .grid{stroke:#eceef3}svg .axis{stroke:#5a6475}
svg .error-bar{stroke:#1d2330;stroke-width:1.5}svg .floor{stroke:#c0392b;stroke-width:2;stroke-dasharray:6 4}
svg .floor-label{fill:#c0392b;font-weight:600}svg .tick,svg .axis-label,svg .chart-title{fill:#5a6475}
svg .history-line{fill:none;stroke:currentColor;stroke-width:2}svg .history-point,svg .history-label{fill:currentColor}
svg .history-point.change-point{stroke:#c0392b;stroke-width:2.5}
svg .series-0{color:#3a7d5c}svg .series-1{color:#2f4a8a}svg .series-2{color:#b5651d}
svg .series-3{color:#7b3f9e}svg .series-4{color:#1f8a99}svg .series-5{color:#8a6d1d}
)";

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + escape(title) +
         "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
}

// A run outcome the gate fails on; rows of stored records carry "reported" or
// "stored" instead, which are not run outcomes.
bool failing_outcome(const std::string& outcome) {
  try {
    return is_failure(outcome_from_string(outcome));
  } catch (const Error&) {
    return false;
  }
}

// The modelled times of a counted run, labelled as such: never mixed into
// the measured rows or their chart.
void write_modelled_table(std::ostringstream& out, const Section& section) {
  if (section.modelled.empty()) return;
  std::vector<std::string> keys;
  for (const auto& [key, unused] : section.modelled.front().second) keys.push_back(key);
  out << "<p>Modelled from interpret mode's counters at this run's axes (trust <span class=\"badge modelled\">"
         "modelled</span>: a roofline, not a measurement): time, bound, and ratio to the workload's floor.</p>\n"
         "<table><thead><tr><th>implementation</th>";
  for (const auto& key : keys) out << "<th>" << escape(key) << "</th>";
  out << "</tr></thead>\n<tbody>\n";
  for (const auto& [id, by_key] : section.modelled) {
    out << "<tr><td><code>" << escape(id) << "</code></td>";
    for (const auto& key : keys) {
      out << "<td class=\"num\">";
      const auto m = std::find_if(by_key.begin(), by_key.end(), [&](const auto& entry) { return entry.first == key; });
      if (m != by_key.end() && !m->second.not_modelled.empty()) {
        out << "not modelled: " << escape(m->second.not_modelled);
      } else if (m != by_key.end()) {
        out << format_number(m->second.time_ms) << " ms, " << escape(m->second.bound);
        if (m->second.above_floor) out << " (" << format_number(*m->second.above_floor) << "× floor)";
      } else {
        out << "–";
      }
      out << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

void write_rows_table(std::ostringstream& out, const Section& section) {
  out << "<table class=\"implementations\" data-hardware=\"" << escape(section.hardware) << "\">\n"
      << "<thead><tr><th>rank</th><th>implementation</th><th>latency (ms) ± std</th><th>vs #1</th>"
         "<th>speedup over eager</th><th>precision</th><th>trust</th><th>observed</th><th>status</th>"
         "<th>× above floor</th></tr></thead>\n<tbody>\n";
  for (const Row& row : section.rows) {
    out << "<tr data-implementation=\"" << escape(row.implementation) << "\" data-trust=\"" << escape(row.trust)
        << "\">"
        << "<td class=\"num\">" << row.rank << "</td>"
        << "<td><code>" << escape(row.implementation) << "</code></td>"
        << "<td class=\"num mean\" data-value=\"" << html::exact_number(row.mean_ms) << "\">" << format_number(row.mean_ms) << " ± "
        << format_number(row.std_ms) << "</td>"
        << "<td class=\"num\">" << format_number(row.vs_first) << "×</td>"
        << "<td class=\"num\">" << (row.speedup_over_eager ? format_number(*row.speedup_over_eager) + "×" : "–")
        << "</td>"
        << "<td>" << escape(row.precision) << "</td>"
        << "<td><span class=\"badge " << escape(row.trust) << "\">" << escape(row.trust) << "</span></td>"
        << "<td>" << escape(row.observed) << "</td><td>";
    if (row.stale) out << "<span class=\"badge stale\">stale</span> ";
    if (failing_outcome(row.outcome) && row.outcome != "stale")
      out << "<span class=\"badge failed\">" << escape(row.outcome) << "</span>";
    else if (!row.stale)
      out << "<span class=\"badge fresh\">" << escape(row.outcome.empty() ? "ok" : row.outcome) << "</span>";
    out << "</td><td class=\"num\">" << (row.above_floor ? format_number(*row.above_floor) + "×" : "–")
        << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

// The history chart and, in words, every change point in it.
void write_history(std::ostringstream& out, const Section& section) {
  const std::string chart = html::history_chart_svg(section.history);
  if (chart.empty()) return;
  out << "<h3>History of the published records</h3>\n<div class=\"history\" data-hardware=\""
      << escape(section.hardware) << "\">\n" << chart << "</div>\n";
  std::ostringstream changes;
  for (const auto& history : section.history)
    for (const auto& point : history.points)
      if (point.change)
        changes << "<li><code>" << escape(history.implementation) << "</code> from " << escape(point.record.observed)
                << ": " << (point.change->ratio > 1 ? "slower" : "faster") << ", "
                << format_number(point.change->ratio) << "× the level before</li>\n";
  out << (changes.str().empty() ? "<p class=\"muted\">No change point: every series holds its level.</p>\n"
                                : "<ul class=\"change-points\">\n" + changes.str() + "</ul>\n");
}

void write_semantics(std::ostringstream& out, const Suite& suite) {
  const Axes defaults = suite.default_axes();
  out << "<h2>Semantics</h2>\n";
  if (suite.origin.contains("module"))
    out << "<p><code>" << escape(suite.origin["module"].get<std::string>()) << "</code></p>\n";
  out << "<h3>Tensors</h3>\n<table class=\"tensors\"><thead><tr><th>name</th><th>role</th><th>dtype</th>"
         "<th>shape</th><th>at the defaults</th></tr></thead><tbody>\n";
  for (const auto& tensor : suite.tensors) {
    std::string shape, concrete;
    for (const auto& dim : tensor.shape) shape += (shape.empty() ? "" : ", ") + dim;
    shape = tensor.shape.empty() ? "from the forward pass" : "<code>[" + escape(shape) + "]</code>";
    for (auto extent : suite.shape(tensor.name, defaults))
      concrete += (concrete.empty() ? "" : " × ") + std::to_string(extent);
    out << "<tr><td><code>" << escape(tensor.name) << "</code></td><td>" << to_string(tensor.role) << "</td><td>"
        << to_string(tensor.dtype) << "</td><td>" << shape << "</td><td class=\"num\">"
        << concrete << "</td></tr>\n";
  }
  out << "</tbody></table>\n<h3>Axes</h3>\n<table class=\"axes\"><thead><tr><th>axis</th><th>default</th>";
  for (const auto& [preset, _] : suite.presets) out << "<th>preset <code>" << escape(preset) << "</code></th>";
  out << "<th>range</th><th>meaning</th></tr></thead><tbody>\n";
  for (const auto& axis : suite.axes) {
    out << "<tr><td><code>" << escape(axis.name) << "</code></td><td class=\"num\">" << axis.default_value << "</td>";
    for (const auto& [preset, _] : suite.presets)
      out << "<td class=\"num\">" << suite.resolve_axes(preset).at(axis.name) << "</td>";
    out << "<td class=\"num\">" << axis.min << "–" << axis.max << "</td><td>" << escape(axis.description)
        << "</td></tr>\n";
  }
  out << "</tbody></table>\n<h3>Constraints</h3>\n<ul class=\"constraints\">\n";
  for (const auto& rule : suite.rules)
    out << "<li><code>" << escape(rule.check) << "</code>: " << escape(rule.message) << "</li>\n";
  if (suite.contract.no_mutation) out << "<li>contract: inputs and parameters are never modified</li>\n";
  if (suite.contract.no_aliasing) out << "<li>contract: the output overlaps no input</li>\n";
  out << "</ul>\n";
}

std::string workload_page(const Suite& suite, const std::vector<Section>& sections) {
  std::ostringstream out;
  out << page_head(suite.id + " · kernelgate");
  out << "<p class=\"muted\"><a href=\"index.html\">all workloads</a></p>\n";
  out << "<h1>" << escape(suite.title) << "</h1>\n<p class=\"origin\"><code>" << escape(suite.id) << "</code>";
  if (!suite.origin.is_null()) {
    const auto& origin = suite.origin;
    out << " · " << escape(origin.value("benchmark", "")) << " level " << origin.value("level", 0) << ", problem "
        << origin.value("problem", 0) << " · <code>" << escape(origin.value("file", "")) << "</code>";
  }
  out << "</p>\n";

  const Axes defaults = suite.default_axes();
  out << "<p class=\"muted\">At the default axes: " << format_number(suite.flops(defaults) / 1e9) << " GFLOP, "
      << format_number(suite.bytes(defaults) / 1e9) << " GB.</p>\n";

  out << "<h2>Current record per hardware key</h2>\n<table class=\"records\"><thead><tr><th>hardware</th>"
         "<th>fastest</th><th>latency (ms)</th><th>trust</th><th>observed</th><th>from</th></tr></thead><tbody>\n";
  for (const auto& section : sections) {
    if (section.rows.empty()) continue;
    const Row& best = section.rows.front();
    out << "<tr><td><a href=\"#" << escape(section.hardware) << "\">" << escape(section.hardware)
        << "</a></td><td><code>" << escape(best.implementation) << "</code></td><td class=\"num\">"
        << format_number(best.mean_ms) << "</td><td><span class=\"badge " << escape(best.trust) << "\">"
        << escape(best.trust) << "</span></td><td>" << escape(best.observed) << "</td><td>"
        << (section.source == "report" ? "this run's report" : "stored baselines") << "</td></tr>\n";
  }
  out << "</tbody></table>\n";
  if (sections.empty()) out << "<p>No report and no stored baseline for this workload yet.</p>\n";

  for (const auto& section : sections) {
    out << "<h2 id=\"" << escape(section.hardware) << "\">" << escape(section.hardware) << "</h2>\n";
    if (!section.environment.empty()) out << "<p class=\"muted\">" << escape(section.environment) << "</p>\n";
    out << "<p class=\"muted\">" << (section.source == "report" ? "From the run's report" : "From the stored baselines")
        << ": <a href=\"" << escape(section.json_link) << "\">" << escape(section.json_link) << "</a>. "
        << escape(section.floor_label) << "</p>\n";
    write_rows_table(out, section);
    out << html::latency_chart_svg(section.rows, section.floor_ms, section.floor_label);
    write_modelled_table(out, section);
    write_history(out, section);
  }

  write_semantics(out, suite);
  out << "<h2>Identity</h2>\n<p>sha256 of the suite's canonical JSON: <code class=\"identity\">"
      << escape(suite.identity) << "</code></p>\n</body>\n</html>\n";
  return out.str();
}

std::string index_page(const std::vector<Suite>& suites, const std::map<std::string, std::vector<Section>>& sections) {
  std::ostringstream out;
  out << page_head("kernelgate leaderboard");
  out << "<h1>kernelgate leaderboard</h1>\n<table class=\"workloads\"><thead><tr><th>workload</th><th>title</th>"
         "<th>hardware keys</th></tr></thead><tbody>\n";
  for (const auto& suite : suites) {
    std::string keys;
    for (const auto& section : sections.at(suite.id)) keys += (keys.empty() ? "" : ", ") + section.hardware;
    out << "<tr><td><a href=\"" << escape(suite.id) << ".html\"><code>" << escape(suite.id) << "</code></a></td><td>"
        << escape(suite.title) << "</td><td>" << escape(keys.empty() ? "none yet" : keys) << "</td></tr>\n";
  }
  out << "</tbody></table>\n</body>\n</html>\n";
  return out.str();
}

// Copies a JSON file the pages were made from into out_dir/data/ and returns
// the relative link to it.
std::string copy_linked_json(const fs::path& file, const fs::path& out_dir, const std::string& name) {
  fs::create_directories(out_dir / "data");
  fs::copy_file(file, out_dir / "data" / name, fs::copy_options::overwrite_existing);
  return "data/" + name;
}

}  // namespace

std::vector<fs::path> write_html_report(const HtmlReportOptions& options) {
  // A misspelt folder would give pages with nothing in them and exit 0.
  if (!options.reports_dir.empty() && !fs::is_directory(options.reports_dir))
    throw Error("--reports " + options.reports_dir.string() + ": no such folder");
  check_baselines_dir(options.baselines_dir, false);
  std::error_code error;
  fs::create_directories(options.out_dir, error);
  if (error || !fs::is_directory(options.out_dir))
    throw Error(options.out_dir.string() + ": cannot create the HTML folder: " + error.message());

  const std::vector<Suite> suites = load_suites(options.suites_dir);
  std::map<std::string, std::vector<Section>> sections;  // by workload
  std::map<std::string, const Suite*> by_id;
  for (const auto& suite : suites) {
    by_id[suite.id] = &suite;
    sections[suite.id];
  }

  // Reports first: a key with a report shows this run's figures.
  std::set<std::pair<std::string, std::string>> reported_keys;
  if (!options.reports_dir.empty()) {
    for (const auto& file : report_files(options.reports_dir)) {
      const ordered_json json = load_report(file);
      const JsonReader report(json, file.string());
      const std::string workload = report.at("workload").at("id").as_string();
      auto suite = by_id.find(workload);
      if (suite == by_id.end()) continue;  // a workload of another suites folder
      const std::string link = copy_linked_json(file, options.out_dir, file.filename().string());
      sections[workload].push_back(section_from_report(report, *suite->second, link));
      reported_keys.insert({workload, report.at("hardware").as_string()});
    }
  }
  // Then every baseline file, read once: its history goes to the key's
  // section, the report's where there is one, else a section of its own.
  for (const auto& suite : suites) {
    for (const auto& file : workload_baseline_files(options.baselines_dir, suite.id)) {
      const BaselineFile baseline = load_baseline_file(file);
      std::vector<ImplementationHistory> history = published_history(baseline, change_point_policy(suite.gate));
      auto& list = sections[suite.id];
      if (reported_keys.count({suite.id, baseline.hardware})) {
        for (Section& section : list)
          if (section.hardware == baseline.hardware) section.history = std::move(history);
        continue;
      }
      const std::string link = copy_linked_json(file, options.out_dir, suite.id + "." + file.filename().string());
      list.push_back(section_from_baseline(baseline, suite, link, today_utc_days()));
      list.back().history = std::move(history);
    }
  }

  std::vector<fs::path> pages;
  for (const auto& suite : suites) {
    auto& list = sections[suite.id];
    std::stable_sort(list.begin(), list.end(),
                     [](const Section& a, const Section& b) { return a.hardware < b.hardware; });
    pages.push_back(options.out_dir / (suite.id + ".html"));
    write_file_atomically(pages.back(), workload_page(suite, list));
  }
  pages.push_back(options.out_dir / "index.html");
  write_file_atomically(pages.back(), index_page(suites, sections));
  return pages;
}

}  // namespace kg
