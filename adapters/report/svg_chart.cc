// Line charts as SVG: a plot area with "nice" ticks (1, 2 or 5 times a power of ten; powers
// of ten on a log axis), the lines clipped to it, and a legend below.
#include "svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace allocore::adapters::internal {
namespace {

constexpr std::string_view kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                         "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
constexpr int kLeft = 64;
constexpr int kRight = 16;
constexpr int kTop = 28;
constexpr int kBottom = 40;
constexpr int kLegendRow = 16;
constexpr int kLegendGap = 10;  // below the x axis label

std::string Num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f", v);
  return buffer;
}

// 1.5k, 20M, 3G: compact tick labels.
std::string Compact(double v) {
  const double abs = std::fabs(v);
  const char* suffix = "";
  double scaled = v;
  if (abs >= 1e12) {
    scaled = v / 1e12;
    suffix = "T";
  } else if (abs >= 1e9) {
    scaled = v / 1e9;
    suffix = "G";
  } else if (abs >= 1e6) {
    scaled = v / 1e6;
    suffix = "M";
  } else if (abs >= 1e4) {
    scaled = v / 1e3;
    suffix = "k";
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4g%s", scaled, suffix);
  return buffer;
}

std::vector<double> LinearTicks(double lo, double hi) {
  std::vector<double> ticks;
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / 5.0;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw) break;
  }
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

}  // namespace

std::string_view ChartColor(size_t index) { return kPalette[index % std::size(kPalette)]; }

void AppendEscaped(std::string_view text, std::string* out) {
  for (char c : text) {
    switch (c) {
      case '&':
        out->append("&amp;");
        break;
      case '<':
        out->append("&lt;");
        break;
      case '>':
        out->append("&gt;");
        break;
      case '"':
        out->append("&quot;");
        break;
      default:
        out->push_back(c);
    }
  }
}

void AppendSvgLineChart(const ChartSpec& spec, const std::vector<ChartLine>& lines,
                        std::string* out) {
  // Data ranges.
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo;
  double y_lo = x_lo, y_hi = -x_lo;
  double smallest_positive_x = x_lo;
  for (const ChartLine& line : lines) {
    for (auto [x, y] : line.points) {
      if (!std::isfinite(x)) continue;
      if (x > 0) smallest_positive_x = std::min(smallest_positive_x, x);
      x_lo = std::min(x_lo, x);
      x_hi = std::max(x_hi, x);
      if (!std::isfinite(y)) continue;
      y_lo = std::min(y_lo, y);
      y_hi = std::max(y_hi, y);
    }
  }
  if (!std::isfinite(x_lo)) x_lo = 0, x_hi = 1;
  if (!std::isfinite(y_lo)) y_lo = 0, y_hi = 1;
  y_lo = spec.y_min.value_or(std::min(y_lo, 0.0));
  y_hi = spec.y_max.value_or(y_hi);
  if (!(y_hi > y_lo)) y_hi = y_lo + 1;
  if (!spec.y_max) y_hi += (y_hi - y_lo) * 0.05;
  if (spec.log_x) {
    if (!std::isfinite(smallest_positive_x)) smallest_positive_x = 1;
    x_lo = std::pow(10.0, std::floor(std::log10(smallest_positive_x)));
    x_hi = std::pow(10.0, std::ceil(std::log10(std::max(x_hi, x_lo * 10))));
  } else if (!(x_hi > x_lo)) {
    x_hi = x_lo + 1;
  }
  auto tx = [&](double x) { return spec.log_x ? std::log10(std::max(x, smallest_positive_x)) : x; };
  const double fx_lo = tx(x_lo), fx_hi = tx(x_hi);
  const int plot_w = spec.width - kLeft - kRight;
  const int plot_h = spec.height - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (tx(x) - fx_lo) / (fx_hi - fx_lo) * plot_w; };
  auto py = [&](double y) {
    const double clamped = std::clamp(y, y_lo, y_hi);
    return kTop + plot_h - (clamped - y_lo) / (y_hi - y_lo) * plot_h;
  };
  size_t legend_items = 0;
  for (const ChartLine& line : lines) legend_items += line.label.empty() ? 0 : 1;
  const int legend_rows = static_cast<int>((legend_items + 2) / 3);
  const int total_h = spec.height + kLegendGap + legend_rows * kLegendRow + 4;

  out->append("<svg class=\"chart\" width=\"" + std::to_string(spec.width) + "\" height=\"" +
              std::to_string(total_h) + "\" viewBox=\"0 0 " + std::to_string(spec.width) + " " +
              std::to_string(total_h) + "\" role=\"img\"><title>");
  AppendEscaped(spec.title, out);
  out->append("</title><rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>");
  out->append("<text x=\"" + std::to_string(kLeft) +
              "\" y=\"16\" font-size=\"13\" font-weight=\"bold\">");
  AppendEscaped(spec.title, out);
  out->append("</text>");
  // Grid and ticks.
  std::vector<double> yticks = LinearTicks(y_lo, y_hi);
  for (double t : yticks) {
    if (t < y_lo || t > y_hi) continue;
    const std::string y = Num(py(t));
    out->append("<line x1=\"" + std::to_string(kLeft) + "\" x2=\"" +
                std::to_string(kLeft + plot_w) + "\" y1=\"" + y + "\" y2=\"" + y +
                "\" stroke=\"#e0e0e0\"/>");
    char label[32];
    if (spec.percent_y) {
      std::snprintf(label, sizeof(label), "%.3g%%", t * 100.0);
    } else {
      std::snprintf(label, sizeof(label), "%s", Compact(t).c_str());
    }
    out->append("<text x=\"" + std::to_string(kLeft - 4) + "\" y=\"" + Num(py(t) + 4) +
                "\" font-size=\"10\" text-anchor=\"end\">" + label + "</text>");
  }
  std::vector<double> xticks;
  if (spec.log_x) {
    for (double t = x_lo; t <= x_hi * 1.0001; t *= 10) xticks.push_back(t);
  } else {
    xticks = LinearTicks(x_lo, x_hi);
  }
  for (double t : xticks) {
    if (t < x_lo || t > x_hi * 1.0001) continue;
    const std::string x = Num(px(t));
    out->append("<line x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + std::to_string(kTop) +
                "\" y2=\"" + std::to_string(kTop + plot_h) + "\" stroke=\"#f0f0f0\"/>");
    out->append("<text x=\"" + x + "\" y=\"" + std::to_string(kTop + plot_h + 14) +
                "\" font-size=\"10\" text-anchor=\"middle\">" + Compact(t) + "</text>");
  }
  out->append("<rect x=\"" + std::to_string(kLeft) + "\" y=\"" + std::to_string(kTop) +
              "\" width=\"" + std::to_string(plot_w) + "\" height=\"" + std::to_string(plot_h) +
              "\" fill=\"none\" stroke=\"#888\"/>");
  out->append("<text x=\"" + std::to_string(kLeft + plot_w / 2) + "\" y=\"" +
              std::to_string(kTop + plot_h + 30) + "\" font-size=\"11\" text-anchor=\"middle\">");
  AppendEscaped(spec.x_label, out);
  out->append("</text><text transform=\"rotate(-90)\" x=\"" + std::to_string(-(kTop + plot_h / 2)) +
              "\" y=\"12\" font-size=\"11\" text-anchor=\"middle\">");
  AppendEscaped(spec.y_label, out);
  out->append("</text>");
  // Lines: one polyline per unbroken run of finite points.
  for (const ChartLine& line : lines) {
    std::string style = "fill=\"none\" stroke=\"" + line.color + "\" stroke-width=\"1.8\"";
    if (line.dashed) style += " stroke-dasharray=\"6 4\"";
    std::string points;
    double last_y = std::numeric_limits<double>::quiet_NaN();
    auto flush = [&] {
      if (!points.empty()) out->append("<polyline " + style + " points=\"" + points + "\"/>");
      points.clear();
    };
    for (auto [x, y] : line.points) {
      if (!std::isfinite(y) || !std::isfinite(x)) {
        flush();
        last_y = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      if (line.steps && std::isfinite(last_y)) {
        points += Num(px(x)) + "," + Num(py(last_y)) + " ";
      }
      points += Num(px(x)) + "," + Num(py(y)) + " ";
      last_y = y;
    }
    flush();
  }
  // Legend.
  size_t item = 0;
  for (const ChartLine& line : lines) {
    if (line.label.empty()) continue;
    const int col = static_cast<int>(item % 3);
    const int row = static_cast<int>(item / 3);
    const int x = kLeft + col * (plot_w / 3);
    const int y = spec.height + kLegendGap + row * kLegendRow;
    out->append("<line x1=\"" + std::to_string(x) + "\" x2=\"" + std::to_string(x + 18) +
                "\" y1=\"" + std::to_string(y - 4) + "\" y2=\"" + std::to_string(y - 4) +
                "\" stroke=\"" + line.color + "\" stroke-width=\"2.5\"" +
                (line.dashed ? " stroke-dasharray=\"6 4\"" : "") + "/>");
    out->append("<text x=\"" + std::to_string(x + 22) + "\" y=\"" + std::to_string(y) +
                "\" font-size=\"10\">");
    AppendEscaped(line.label, out);
    out->append("</text>");
    ++item;
  }
  out->append("</svg>");
}

}  // namespace allocore::adapters::internal
