// adapters/report/svg_chart.h — internal: line charts as inline SVG for the report's HTML page
// (no script, no external font or style: the page stays self-contained).
#ifndef ALLOCORE_ADAPTERS_REPORT_SVG_CHART_H_
#define ALLOCORE_ADAPTERS_REPORT_SVG_CHART_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace allocore::adapters::internal {

struct ChartLine {
  std::string label;                              // in the legend; empty: not listed
  std::vector<std::pair<double, double>> points;  // x ascending; NaN y breaks the line
  std::string color;                              // CSS colour
  bool dashed = false;
  bool steps = false;  // a step function (CDFs): horizontal, then vertical
};

struct ChartSpec {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;  // x > 0 only; points at x <= 0 are drawn at the smallest positive x
  std::optional<double> y_min;
  std::optional<double> y_max;
  bool percent_y = false;  // y tick labels as percentages of 1
  int width = 520;
  int height = 240;
};

// The i-th colour of a qualitative palette (cycles).
std::string_view ChartColor(size_t index);

// Appends one <svg> element: axes with ticks, the lines, a legend under the plot.
void AppendSvgLineChart(const ChartSpec& spec, const std::vector<ChartLine>& lines,
                        std::string* out);

// `text` with &, <, > and " escaped for HTML and SVG.
void AppendEscaped(std::string_view text, std::string* out);

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_REPORT_SVG_CHART_H_
