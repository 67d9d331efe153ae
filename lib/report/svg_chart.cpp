#include "report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace tune {
namespace {

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// "Nice" tick values covering [lo, hi].
std::vector<double> ticks(double lo, double hi, int want = 5) {
  const double span = hi - lo;
  const double raw = span / want;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> out;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  return out;
}

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double map(double v, double a, double b) const {
    const double t = log ? (std::log10(v) - lo) / (hi - lo) : (v - lo) / (hi - lo);
    return a + t * (b - a);
  }
};

bool drawable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

Axis make_axis(const std::vector<double>& values, bool log) {
  Axis a;
  a.log = log;
  if (values.empty()) return a;
  auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  a.lo = log ? std::log10(*mn) : *mn;
  a.hi = log ? std::log10(*mx) : *mx;
  if (a.hi - a.lo < 1e-12 * std::max(1.0, std::abs(a.hi))) {
    a.lo -= 0.5;
    a.hi += 0.5;
  } else {
    const double pad = (a.hi - a.lo) * 0.04;
    a.lo -= pad;
    a.hi += pad;
  }
  return a;
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  for (const unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += (c < 0x20 && c != '\n' && c != '\t') ? '?' : static_cast<char>(c);
    }
  }
  return out;
}

std::string render_svg(const Chart& chart, int width, int height) {
  const double left = 70, right = width - 15.0, top = 30, bottom = height - 45.0;
  std::vector<double> xs, ys;
  for (const auto& s : chart.series)
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (drawable(s.x[i], chart.log_x) && drawable(s.y[i], chart.log_y)) {
        xs.push_back(s.x[i]);
        ys.push_back(s.y[i]);
      }
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
    << "<title>" << xml_escape(chart.title) << "</title>\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << width / 2 << "\" y=\"18\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">"
    << xml_escape(chart.title) << "</text>\n";
  if (xs.empty()) {
    o << "<text x=\"" << width / 2 << "\" y=\"" << height / 2 << "\" text-anchor=\"middle\" fill=\"#777\">no data yet</text>\n</svg>\n";
    return o.str();
  }
  Axis ax = make_axis(xs, chart.log_x), ay = make_axis(ys, chart.log_y);
  if (!chart.x_categories.empty()) {
    ax.lo = -0.5;
    ax.hi = static_cast<double>(chart.x_categories.size()) - 0.5;
  }
  o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << right - left << "\" height=\"" << bottom - top
    << "\" fill=\"none\" stroke=\"#999\"/>\n";
  // Ticks: nice values, or decades on a log axis, or category names.
  auto axis_ticks = [](const Axis& a) {
    std::vector<double> out;
    if (a.log) {
      for (double e = std::ceil(a.lo); e <= a.hi; ++e) out.push_back(std::pow(10, e));
      if (out.size() < 2) out = {std::pow(10, a.lo + (a.hi - a.lo) * 0.25), std::pow(10, a.lo + (a.hi - a.lo) * 0.75)};
      return out;
    }
    return ticks(a.lo, a.hi);
  };
  if (!chart.x_categories.empty()) {
    for (std::size_t i = 0; i < chart.x_categories.size(); ++i) {
      const double px = ax.map(static_cast<double>(i), left, right);
      o << "<text x=\"" << px << "\" y=\"" << bottom + 14 << "\" text-anchor=\"middle\">"
        << xml_escape(chart.x_categories[i]) << "</text>\n";
    }
  } else {
    for (double t : axis_ticks(ax)) {
      const double px = ax.map(t, left, right);
      o << "<line x1=\"" << px << "\" y1=\"" << top << "\" x2=\"" << px << "\" y2=\"" << bottom
        << "\" stroke=\"#eee\"/><text x=\"" << px << "\" y=\"" << bottom + 14 << "\" text-anchor=\"middle\">" << fmt(t)
        << "</text>\n";
    }
  }
  for (double t : axis_ticks(ay)) {
    const double py = ay.map(t, bottom, top);
    o << "<line x1=\"" << left << "\" y1=\"" << py << "\" x2=\"" << right << "\" y2=\"" << py
      << "\" stroke=\"#eee\"/><text x=\"" << left - 4 << "\" y=\"" << py + 4 << "\" text-anchor=\"end\">" << fmt(t)
      << "</text>\n";
  }
  o << "<text x=\"" << (left + right) / 2 << "\" y=\"" << height - 8 << "\" text-anchor=\"middle\">"
    << xml_escape(chart.x_label) << "</text>\n"
    << "<text transform=\"translate(14 " << (top + bottom) / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
    << xml_escape(chart.y_label) << "</text>\n";
  int legend = 0;
  for (const auto& s : chart.series) {
    std::vector<std::pair<double, double>> pts;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (drawable(s.x[i], chart.log_x) && drawable(s.y[i], chart.log_y))
        pts.emplace_back(ax.map(s.x[i], left, right), ay.map(s.y[i], bottom, top));
    if (pts.empty()) continue;
    if (s.line && pts.size() > 1) {
      o << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"1.5\" points=\"";
      for (const auto& [px, py] : pts) o << fmt(px) << "," << fmt(py) << " ";
      o << "\"/>\n";
    }
    if (s.markers || pts.size() == 1)
      for (const auto& [px, py] : pts)
        o << "<circle cx=\"" << fmt(px) << "\" cy=\"" << fmt(py) << "\" r=\"3\" fill=\"" << s.color
          << "\" fill-opacity=\"0.7\"/>\n";
    if (s.end_cross) {
      const auto [px, py] = pts.back();
      o << "<path class=\"pruned\" d=\"M" << px - 4 << " " << py - 4 << "L" << px + 4 << " " << py + 4 << "M" << px - 4
        << " " << py + 4 << "L" << px + 4 << " " << py - 4 << "\" stroke=\"" << s.color << "\" stroke-width=\"2\"/>\n";
    }
    if (!s.label.empty()) {
      const double ly = top + 14 + 14 * legend++;
      o << "<rect x=\"" << right - 120 << "\" y=\"" << ly - 8 << "\" width=\"10\" height=\"10\" fill=\"" << s.color
        << "\"/><text x=\"" << right - 105 << "\" y=\"" << ly + 1 << "\">" << xml_escape(s.label) << "</text>\n";
    }
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace tune
