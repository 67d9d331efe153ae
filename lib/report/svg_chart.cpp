// SPDX-License-Identifier: GPL-2.0-or-later
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
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
    out.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
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

bool drawable(double v, bool log) {
  return std::isfinite(v) && (!log || v > 0);
}

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
    << "<text x=\"" << width / 2
    << "\" y=\"18\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">" << xml_escape(chart.title)
    << "</text>\n";
  if (xs.empty()) {
    o << "<text x=\"" << width / 2 << "\" y=\"" << height / 2
      << "\" text-anchor=\"middle\" fill=\"#777\">no data yet</text>\n</svg>\n";
    return o.str();
  }
  Axis ax = make_axis(xs, chart.log_x), ay = make_axis(ys, chart.log_y);
  if (!chart.x_categories.empty()) {
    ax.lo = -0.5;
    ax.hi = static_cast<double>(chart.x_categories.size()) - 0.5;
  }
  o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << right - left << "\" height=\""
    << bottom - top << "\" fill=\"none\" stroke=\"#999\"/>\n";
  // Ticks: nice values, or decades on a log axis, or category names.
  auto axis_ticks = [](const Axis& a) {
    std::vector<double> out;
    if (a.log) {
      for (double e = std::ceil(a.lo); e <= a.hi; ++e) out.push_back(std::pow(10, e));
      if (out.size() < 2)
        out = {std::pow(10, a.lo + (a.hi - a.lo) * 0.25), std::pow(10, a.lo + (a.hi - a.lo) * 0.75)};
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
        << "\" stroke=\"#eee\"/><text x=\"" << px << "\" y=\"" << bottom + 14 << "\" text-anchor=\"middle\">"
        << fmt(t) << "</text>\n";
    }
  }
  for (double t : axis_ticks(ay)) {
    const double py = ay.map(t, bottom, top);
    o << "<line x1=\"" << left << "\" y1=\"" << py << "\" x2=\"" << right << "\" y2=\"" << py
      << "\" stroke=\"#eee\"/><text x=\"" << left - 4 << "\" y=\"" << py + 4 << "\" text-anchor=\"end\">"
      << fmt(t) << "</text>\n";
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
      o << "<path class=\"pruned\" d=\"M" << px - 4 << " " << py - 4 << "L" << px + 4 << " " << py + 4 << "M"
        << px - 4 << " " << py + 4 << "L" << px + 4 << " " << py - 4 << "\" stroke=\"" << s.color
        << "\" stroke-width=\"2\"/>\n";
    }
    if (!s.label.empty()) {
      const double ly = top + 14 + 14 * legend++;
      o << "<rect x=\"" << right - 120 << "\" y=\"" << ly - 8 << "\" width=\"10\" height=\"10\" fill=\""
        << s.color << "\"/><text x=\"" << right - 105 << "\" y=\"" << ly + 1 << "\">" << xml_escape(s.label)
        << "</text>\n";
    }
  }
  o << "</svg>\n";
  return o.str();
}

namespace {

// A colour from dark blue (0) through teal to pale yellow (1).
std::string ramp(double t) {
  t = std::clamp(std::isfinite(t) ? t : 1.0, 0.0, 1.0);
  const double stops[3][3] = {{33, 49, 140}, {29, 145, 192}, {255, 255, 204}};
  const double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
  const auto& a = stops[t < 0.5 ? 0 : 1];
  const auto& b = stops[t < 0.5 ? 1 : 2];
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(a[0] + u * (b[0] - a[0])),
                static_cast<int>(a[1] + u * (b[1] - a[1])), static_cast<int>(a[2] + u * (b[2] - a[2])));
  return buf;
}

std::string svg_head(const std::string& title, int width, int height) {
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
    << "<title>" << xml_escape(title) << "</title>\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << width / 2
    << "\" y=\"18\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">" << xml_escape(title)
    << "</text>\n";
  return o.str();
}

}  // namespace

std::string render_parallel(const ParallelChart& chart, int width, int height) {
  std::ostringstream o;
  o << svg_head(chart.title, width, height);
  const std::size_t n = chart.axes.size();
  if (n < 2 || chart.rows.empty()) {
    o << "<text x=\"" << width / 2 << "\" y=\"" << height / 2
      << "\" text-anchor=\"middle\" fill=\"#777\">no data yet</text>\n</svg>\n";
    return o.str();
  }
  const double left = 50, right = width - 50.0, top = 40, bottom = height - 40.0;
  std::vector<Axis> axes(n);
  for (std::size_t a = 0; a < n; ++a) {
    std::vector<double> col;
    for (const auto& r : chart.rows)
      if (a < r.size() && drawable(r[a], chart.axes[a].log)) col.push_back(r[a]);
    axes[a] = make_axis(col, chart.axes[a].log);
    if (!col.empty()) {  // the data's own range, unpadded: the labels at the ends are its extremes
      const auto [mn, mx] = std::minmax_element(col.begin(), col.end());
      const double lo = chart.axes[a].log ? std::log10(*mn) : *mn,
                   hi = chart.axes[a].log ? std::log10(*mx) : *mx;
      if (hi > lo) axes[a].lo = lo, axes[a].hi = hi;
    }
    if (!chart.axes[a].categories.empty()) {
      axes[a].lo = -0.5;
      axes[a].hi = static_cast<double>(chart.axes[a].categories.size()) - 0.5;
    }
  }
  const auto ax_x = [&](std::size_t a) {
    return left + (right - left) * static_cast<double>(a) / static_cast<double>(n - 1);
  };
  // Worst rows first, so the best are drawn on top.
  std::vector<std::size_t> order(chart.rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto shade = [&](std::size_t i) { return i < chart.shade.size() ? chart.shade[i] : 0.5; };
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return shade(a) > shade(b); });
  for (auto i : order) {
    const auto& r = chart.rows[i];
    // The best tenth in colour (darkest best), the rest faint grey behind them.
    const bool top_tenth = shade(i) <= 0.1;
    o << "<polyline fill=\"none\" stroke=\"" << (top_tenth ? ramp(6 * shade(i)) : std::string("#bbbbbb"))
      << "\" stroke-opacity=\"" << (top_tenth ? "0.9" : "0.25") << "\" points=\"";
    for (std::size_t a = 0; a < n && a < r.size(); ++a)
      if (drawable(r[a], chart.axes[a].log))
        o << fmt(ax_x(a)) << "," << fmt(axes[a].map(r[a], bottom, top)) << " ";
    o << "\"/>\n";
  }
  for (std::size_t a = 0; a < n; ++a) {
    const double x = ax_x(a);
    o << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\"" << bottom
      << "\" stroke=\"#333\"/>\n"
      << "<text x=\"" << x << "\" y=\"" << top - 8 << "\" text-anchor=\"middle\" font-weight=\"bold\">"
      << xml_escape(chart.axes[a].name) << "</text>\n";
    const auto& cats = chart.axes[a].categories;
    if (!cats.empty()) {
      for (std::size_t c = 0; c < cats.size(); ++c)
        o << "<text x=\"" << x + 4 << "\" y=\"" << axes[a].map(static_cast<double>(c), bottom, top) + 4
          << "\">" << xml_escape(cats[c]) << "</text>\n";
      continue;
    }
    const double lo = axes[a].log ? std::pow(10, axes[a].lo) : axes[a].lo,
                 hi = axes[a].log ? std::pow(10, axes[a].hi) : axes[a].hi;
    o << "<text x=\"" << x + 4 << "\" y=\"" << bottom + 14 << "\">" << fmt(lo) << "</text>\n"
      << "<text x=\"" << x + 4 << "\" y=\"" << top + 10 << "\">" << fmt(hi) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

std::string render_heatmap(const HeatMap& map, int width, int height) {
  std::ostringstream o;
  o << svg_head(map.title, width, height);
  const std::size_t nx = map.x.size(), ny = map.y.size();
  if (nx < 2 || ny < 2 || map.z.size() != nx * ny) {
    o << "<text x=\"" << width / 2 << "\" y=\"" << height / 2
      << "\" text-anchor=\"middle\" fill=\"#777\">no data yet</text>\n</svg>\n";
    return o.str();
  }
  const double left = 70, right = width - 80.0, top = 30, bottom = height - 45.0;
  // Cells span half-way to their neighbours (in the axis's own scale).
  const auto edges = [](const std::vector<double>& c, bool log) {
    std::vector<double> t(c.size());
    for (std::size_t i = 0; i < c.size(); ++i) t[i] = log ? std::log10(c[i]) : c[i];
    std::vector<double> e{t[0] - (t[1] - t[0]) / 2};
    for (std::size_t i = 0; i + 1 < t.size(); ++i) e.push_back((t[i] + t[i + 1]) / 2);
    e.push_back(t.back() + (t.back() - t[t.size() - 2]) / 2);
    return e;
  };
  const auto ex = edges(map.x, map.log_x), ey = edges(map.y, map.log_y);
  Axis ax, ay;
  ax.log = map.log_x, ay.log = map.log_y;
  ax.lo = ex.front(), ax.hi = ex.back(), ay.lo = ey.front(), ay.hi = ey.back();
  const auto px_of = [&](double t, const Axis& a, double from, double to) {
    return from + (t - a.lo) / (a.hi - a.lo) * (to - from);
  };
  const auto [zlo_it, zhi_it] = std::minmax_element(map.z.begin(), map.z.end());
  const double zlo = *zlo_it, zhi = *zhi_it, zspan = zhi > zlo ? zhi - zlo : 1;
  for (std::size_t i = 0; i < nx; ++i)
    for (std::size_t j = 0; j < ny; ++j) {
      const double x0 = px_of(ex[i], ax, left, right), x1 = px_of(ex[i + 1], ax, left, right);
      const double y0 = px_of(ey[j + 1], ay, bottom, top), y1 = px_of(ey[j], ay, bottom, top);
      o << "<rect x=\"" << fmt(x0) << "\" y=\"" << fmt(y0) << "\" width=\"" << fmt(x1 - x0 + 0.5)
        << "\" height=\"" << fmt(y1 - y0 + 0.5) << "\" fill=\"" << ramp((map.z[i * ny + j] - zlo) / zspan)
        << "\"/>\n";
    }
  for (std::size_t k = 0; k < map.px.size() && k < map.py.size(); ++k) {
    if (!drawable(map.px[k], map.log_x) || !drawable(map.py[k], map.log_y)) continue;
    o << "<circle cx=\"" << fmt(ax.map(map.px[k], left, right)) << "\" cy=\""
      << fmt(ay.map(map.py[k], bottom, top)) << "\" r=\"2.5\" fill=\"none\" stroke=\"#c00\"/>\n";
  }
  o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << right - left << "\" height=\""
    << bottom - top << "\" fill=\"none\" stroke=\"#999\"/>\n";
  for (int k = 0; k <= 4; ++k) {  // axis values at five places
    double tx = ax.lo + (ax.hi - ax.lo) * k / 4, ty = ay.lo + (ay.hi - ay.lo) * k / 4;
    if (std::abs(tx) < 1e-9 * (ax.hi - ax.lo)) tx = 0;  // not -3.5e-18
    if (std::abs(ty) < 1e-9 * (ay.hi - ay.lo)) ty = 0;
    o << "<text x=\"" << px_of(tx, ax, left, right) << "\" y=\"" << bottom + 14
      << "\" text-anchor=\"middle\">" << fmt(map.log_x ? std::pow(10, tx) : tx) << "</text>\n"
      << "<text x=\"" << left - 4 << "\" y=\"" << px_of(ty, ay, bottom, top) + 4 << "\" text-anchor=\"end\">"
      << fmt(map.log_y ? std::pow(10, ty) : ty) << "</text>\n";
  }
  // The colour scale.
  for (int k = 0; k < 20; ++k)
    o << "<rect x=\"" << right + 15 << "\" y=\"" << top + (bottom - top) * k / 20
      << "\" width=\"14\" height=\"" << (bottom - top) / 20 + 0.5 << "\" fill=\"" << ramp(k / 19.0)
      << "\"/>\n";
  o << "<text x=\"" << right + 32 << "\" y=\"" << top + 8 << "\">" << fmt(zlo) << "</text>\n"
    << "<text x=\"" << right + 32 << "\" y=\"" << bottom << "\">" << fmt(zhi) << "</text>\n"
    << "<text transform=\"translate(" << width - 8 << " " << (top + bottom) / 2
    << ") rotate(-90)\" text-anchor=\"middle\">" << xml_escape(map.z_label) << "</text>\n"
    << "<text x=\"" << (left + right) / 2 << "\" y=\"" << height - 8 << "\" text-anchor=\"middle\">"
    << xml_escape(map.x_label) << "</text>\n"
    << "<text transform=\"translate(14 " << (top + bottom) / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
    << xml_escape(map.y_label) << "</text>\n</svg>\n";
  return o.str();
}

}  // namespace tune
