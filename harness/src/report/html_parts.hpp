#pragma once
// Pieces of the HTML leaderboard (html_report.cpp): the rows of one hardware
// key's table, and the text helpers shared by the page and its chart.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernelgate/detail/history.hpp"

namespace kg::html {

// One implementation on one hardware key, as the page shows it.
struct Row {
  int rank = 0;
  std::string implementation;
  std::string precision;
  std::string trust;  // measured | reported
  double mean_ms = 0;
  double std_ms = 0;
  double vs_first = 1;
  std::optional<double> speedup_over_eager;
  std::string observed;  // date
  bool stale = false;
  std::optional<double> above_floor;
  std::string outcome;  // this run's outcome, or "reported" / "stored"
};

// `text` with & < > " ' escaped, for element content and attribute values.
std::string escape(std::string_view text);
// A latency or ratio with four significant digits ("1.580", "0.2213", "12.40").
std::string format_number(double value);
// Every digit, for the data- attributes that tests and scripts read back.
std::string exact_number(double value);

// A horizontal bar chart (inline SVG) of the rows' mean latencies, with the
// floor drawn as a vertical line when floor_ms > 0.
std::string latency_chart_svg(const std::vector<Row>& rows, double floor_ms, const std::string& floor_label);

// A line chart (inline SVG) of each implementation's published records over
// time (by the time observed: records of one day apart), change points circled. Empty when no record
// has a date.
std::string history_chart_svg(const std::vector<ImplementationHistory>& histories);

}  // namespace kg::html
