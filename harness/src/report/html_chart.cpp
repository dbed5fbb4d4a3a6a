// The charts of the HTML leaderboard, the latency bars and the history lines:
// inline SVG, no script, so they render from a local file in any browser.
// Every bar, point and floor line carries its figure in a data- attribute,
// which the browser test reads back.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>

#include "kernelgate/detail/baseline.hpp"

#include "html_parts.hpp"

namespace kg::html {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

std::string exact_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

namespace {

// A round step (1, 2 or 5 times a power of ten) giving about `target` ticks.
double tick_step(double max_value, int target) {
  const double raw = max_value / target;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double multiple : {1.0, 2.0, 5.0, 10.0})
    if (raw <= multiple * power) return multiple * power;
  return 10 * power;
}

}  // namespace

std::string latency_chart_svg(const std::vector<Row>& rows, double floor_ms, const std::string& floor_label) {
  constexpr int label_width = 210, plot_width = 520, right_margin = 70;
  constexpr int bar_height = 20, bar_gap = 8, top = 44, axis_height = 40;
  const int width = label_width + plot_width + right_margin;
  const int plot_height = static_cast<int>(rows.size()) * (bar_height + bar_gap);
  const int height = top + plot_height + axis_height;

  double max_value = floor_ms;
  for (const auto& row : rows) max_value = std::max(max_value, row.mean_ms + row.std_ms);
  if (max_value <= 0) max_value = 1;
  const double step = tick_step(max_value, 5);
  const double axis_max = std::ceil(max_value / step) * step;
  auto x_of = [&](double ms) { return label_width + plot_width * (ms / axis_max); };

  std::ostringstream svg;
  svg << "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height << "\" role=\"img\" aria-label=\"mean latency per implementation\">\n";
  svg << "<text x=\"" << label_width << "\" y=\"16\" class=\"chart-title\">mean latency (ms), error bar: one std</text>\n";

  // Axis with ticks and grid lines.
  const int axis_y = top + plot_height;
  svg << "<line class=\"axis\" x1=\"" << label_width << "\" y1=\"" << axis_y << "\" x2=\"" << label_width + plot_width
      << "\" y2=\"" << axis_y << "\"/>\n";
  for (double tick = 0; tick <= axis_max * (1 + 1e-9); tick += step) {
    const double x = x_of(tick);
    svg << "<line class=\"grid\" x1=\"" << x << "\" y1=\"" << top - 4 << "\" x2=\"" << x << "\" y2=\"" << axis_y << "\"/>"
        << "<text class=\"tick\" x=\"" << x << "\" y=\"" << axis_y + 16 << "\" text-anchor=\"middle\">"
        << format_number(tick) << "</text>\n";
  }
  svg << "<text class=\"axis-label\" x=\"" << label_width + plot_width / 2 << "\" y=\"" << axis_y + 34
      << "\" text-anchor=\"middle\">milliseconds</text>\n";

  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    const int y = top + static_cast<int>(i) * (bar_height + bar_gap);
    const double x_end = x_of(row.mean_ms);
    svg << "<text class=\"bar-label\" x=\"" << label_width - 8 << "\" y=\"" << y + bar_height - 5
        << "\" text-anchor=\"end\">" << escape(row.implementation) << "</text>";
    svg << "<rect class=\"bar " << escape(row.trust) << "\" data-implementation=\"" << escape(row.implementation)
        << "\" data-mean-ms=\"" << exact_number(row.mean_ms) << "\" x=\"" << label_width << "\" y=\"" << y << "\" width=\""
        << std::max(1.0, x_end - label_width) << "\" height=\"" << bar_height << "\"/>";
    if (row.std_ms > 0)
      svg << "<line class=\"error-bar\" x1=\"" << x_of(std::max(0.0, row.mean_ms - row.std_ms)) << "\" y1=\""
          << y + bar_height / 2 << "\" x2=\"" << x_of(row.mean_ms + row.std_ms) << "\" y2=\"" << y + bar_height / 2
          << "\"/>";
    svg << "<text class=\"bar-value\" x=\"" << x_of(row.mean_ms + row.std_ms) + 6 << "\" y=\"" << y + bar_height - 5
        << "\">" << format_number(row.mean_ms) << "</text>\n";
  }

  if (floor_ms > 0) {
    const double x = x_of(floor_ms);
    svg << "<line class=\"floor\" data-floor-ms=\"" << exact_number(floor_ms) << "\" x1=\"" << x << "\" y1=\"" << top - 6
        << "\" x2=\"" << x << "\" y2=\"" << axis_y << "\"/>"
        // The label sits above the bars, on the side of the line with more room.
        << "<text class=\"floor-label\" x=\"" << (x > label_width + plot_width / 2 ? x - 4 : x + 4) << "\" y=\""
        << top - 10 << "\" text-anchor=\"" << (x > label_width + plot_width / 2 ? "end" : "start") << "\">"
        << escape(floor_label)
        << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

namespace {

// When a record was observed, in days since the epoch with the time of day
// as a fraction, so that records of one day stand apart as the records they
// are; a date alone is its midnight.
std::optional<double> observed_days(const std::string& observed) {
  const auto day = iso_date_days(observed);
  if (!day) return std::nullopt;
  int hours = 0, minutes = 0, seconds = 0;
  if (observed.size() >= 19 && std::sscanf(observed.c_str() + 11, "%2d:%2d:%2d", &hours, &minutes, &seconds) == 3)
    return *day + (hours * 3600.0 + minutes * 60.0 + seconds) / 86400.0;
  return static_cast<double>(*day);
}

}  // namespace

std::string history_chart_svg(const std::vector<ImplementationHistory>& histories) {
  constexpr int left = 70, plot_width = 560, right_margin = 190, top = 34, plot_height = 220, axis_height = 44;
  const int width = left + plot_width + right_margin, height = top + plot_height + axis_height;
  // Every dated point, by its time; the value axis starts at 0 so that a
  // change looks as large as it is.
  double first_day = 0, last_day = 0;
  std::string first_date, last_date;
  double max_ms = 0;
  bool any = false;
  for (const auto& history : histories)
    for (const auto& point : history.points) {
      const auto day = observed_days(point.record.observed);
      if (!day) continue;
      if (!any || *day < first_day) first_day = *day, first_date = point.record.observed.substr(0, 10);
      if (!any || *day > last_day) last_day = *day, last_date = point.record.observed.substr(0, 10);
      max_ms = std::max(max_ms, point.value_ms);
      any = true;
    }
  if (!any) return "";
  if (max_ms <= 0) max_ms = 1;
  const double step = tick_step(max_ms, 4);
  const double axis_max = std::ceil(max_ms / step) * step;
  // One instant alone sits in the middle.
  auto x_of = [&](double day) {
    return last_day == first_day ? left + plot_width / 2.0 : left + plot_width * (day - first_day) / (last_day - first_day);
  };
  auto y_of = [&](double ms) { return top + plot_height * (1 - ms / axis_max); };

  std::ostringstream svg;
  svg << "<svg class=\"chart history\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\""
      << height << "\" viewBox=\"0 0 " << width << ' ' << height
      << "\" role=\"img\" aria-label=\"published latency per implementation over time\">\n";
  svg << "<text x=\"" << left << "\" y=\"16\" class=\"chart-title\">published latency over time (ms; circled: a "
         "change point)</text>\n";
  const int axis_y = top + plot_height;
  svg << "<line class=\"axis\" x1=\"" << left << "\" y1=\"" << axis_y << "\" x2=\"" << left + plot_width << "\" y2=\""
      << axis_y << "\"/>\n";
  for (double tick = 0; tick <= axis_max * (1 + 1e-9); tick += step) {
    const double y = y_of(tick);
    svg << "<line class=\"grid\" x1=\"" << left << "\" y1=\"" << y << "\" x2=\"" << left + plot_width << "\" y2=\"" << y
        << "\"/><text class=\"tick\" x=\"" << left - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">"
        << format_number(tick) << "</text>\n";
  }
  for (const auto& [day, label] : {std::pair{first_day, first_date}, std::pair{last_day, last_date}}) {
    svg << "<text class=\"tick\" x=\"" << x_of(day) << "\" y=\"" << axis_y + 16 << "\" text-anchor=\"middle\">"
        << escape(label) << "</text>\n";
    if (first_date == last_date) break;
  }
  svg << "<text class=\"axis-label\" x=\"" << left + plot_width / 2 << "\" y=\"" << axis_y + 36
      << "\" text-anchor=\"middle\">date observed</text>\n";

  for (std::size_t s = 0; s < histories.size(); ++s) {
    const auto& history = histories[s];
    const std::string series = "series-" + std::to_string(s % 6);
    std::ostringstream line, points;
    double last_x = 0, last_y = 0;
    std::size_t drawn = 0;
    for (const auto& point : history.points) {
      const auto day = observed_days(point.record.observed);
      if (!day) continue;
      last_x = x_of(*day), last_y = y_of(point.value_ms);
      line << (drawn++ ? " " : "") << last_x << ',' << last_y;
      points << "<circle class=\"history-point " << series << (point.change ? " change-point" : "")
             << "\" data-implementation=\"" << escape(history.implementation) << "\" data-trust=\""
             << to_string(history.trust) << "\" data-observed=\"" << escape(point.record.observed) << "\" data-ms=\""
             << exact_number(point.value_ms) << "\" cx=\"" << last_x << "\" cy=\"" << last_y << "\" r=\""
             << (point.change ? 6 : 3) << "\"><title>" << escape(history.implementation) << ' '
             << escape(point.record.observed) << ": " << format_number(point.value_ms) << " ms"
             << (point.change ? (point.change->ratio > 1 ? ", change point: slower" : ", change point: faster") : "")
             << "</title></circle>";
    }
    if (!drawn) continue;
    svg << "<polyline class=\"history-line " << series << "\" data-implementation=\"" << escape(history.implementation)
        << "\" data-trust=\"" << to_string(history.trust) << "\" points=\"" << line.str() << "\"/>" << points.str()
        << "<text class=\"history-label " << series << "\" x=\"" << last_x + 8 << "\" y=\"" << last_y + 4 << "\">"
        << escape(history.implementation) << (history.trust == Trust::reported ? " (reported)" : "") << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace kg::html
