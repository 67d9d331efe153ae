// SPDX-License-Identifier: GPL-2.0-or-later
// Small self-contained SVG charts (lines and scatter), for `tune report`:
// no scripts, no fonts or files from the network, so a page opens offline.
#pragma once

#include <string>
#include <vector>

namespace tune {

struct ChartSeries {
  std::string label;  // legend text; empty: not in the legend
  std::vector<double> x, y;
  bool line = true;  // polyline (else markers only)
  bool markers = false;
  std::string color = "#1f77b4";
  bool end_cross = false;  // an x at the last point (a pruned trial)
};

struct Chart {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  std::vector<std::string> x_categories;  // category names at x = 0, 1, ... (choice parameters)
  std::vector<ChartSeries> series;
};

// The chart as an <svg> element. Non-finite points (and non-positive ones on a
// log axis) are left out; a chart with no drawable point says so.
std::string render_svg(const Chart& chart, int width = 560, int height = 340);

// Parallel coordinates: one vertical axis per column, one line per row.
struct ParallelAxis {
  std::string name;
  bool log = false;
  std::vector<std::string> categories;  // a choice: rows hold the index
};
struct ParallelChart {
  std::string title;
  std::vector<ParallelAxis> axes;
  std::vector<std::vector<double>> rows;  // a value per axis
  std::vector<double> shade;              // per row: 0 (best, dark) .. 1 (worst, light)
};
std::string render_parallel(const ParallelChart& chart, int width = 760, int height = 340);

// A filled map of z over a grid of x and y (cell centres), with points on top.
struct HeatMap {
  std::string title, x_label, y_label, z_label;
  bool log_x = false, log_y = false;
  std::vector<double> x, y;    // grid centres, increasing
  std::vector<double> z;       // z[i * y.size() + j] at (x[i], y[j])
  std::vector<double> px, py;  // points (trials)
};
std::string render_heatmap(const HeatMap& map, int width = 560, int height = 400);

// Text made safe for XML/HTML.
std::string xml_escape(const std::string& s);

}  // namespace tune
