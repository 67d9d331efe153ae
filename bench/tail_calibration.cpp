// SPDX-License-Identifier: GPL-2.0-or-later
// How often an estimator lowers a study that goes on to improve, and how soon
// it lowers one at a ceiling: lib/estimators's YieldLevel (the same class the
// plugins and the simulator drive) judging random-search studies drawn from
// smooth distributions, on a grid of metric resolutions, with the tail
// estimator at several spacings beside Algorithm 1 (the baseline, as
// Table 4's benchmark configures it and with its defaults).
//
// Per case: 300 studies of 50 results, judged after each of results 5..40
// with the trials left (50 - n). "Free" studies draw freely; a lowering is
// false when the next 10 results beat the best so far by more than 1%.
// "Capped" studies are the same draws capped at their 85th percentile (a
// ceiling 15% of the results hit): how many are lowered within 30 results,
// and the median result at which that happens.
//   bench/tail_calibration
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "estimators/yield_level.hpp"

using namespace tune;

namespace {

struct Outcome {
  int lowered = 0, false_lowered = 0, found = 0;
  int median_first = 0;
};

ProgressRecord record(const std::vector<double>& v, int n) {
  ProgressRecord r;
  r.study = "s", r.trials = n, r.minimize = false;
  r.top.assign(v.begin(), v.begin() + n);
  std::sort(r.top.rbegin(), r.top.rend());
  r.top.resize(std::min<std::size_t>(r.top.size(), 10));
  r.left = 50 - n;
  return r;
}

Outcome run(const std::function<double(std::mt19937_64&)>& draw, double grid, const AdaptiveOptions& o) {
  std::mt19937_64 rng(7);
  Outcome out;
  std::vector<int> firsts;
  for (int study = 0; study < 300; ++study) {
    std::vector<double> free(50), capped(50);
    for (auto& x : free) {
      x = std::round(draw(rng) * 1e5) / 1e5;  // 5 decimals, as bench/programs/curve.py prints
      if (grid > 0) x = std::round(x / grid) * grid;
    }
    std::vector<double> sorted = free;
    std::sort(sorted.begin(), sorted.end());
    const double ceiling = sorted[static_cast<std::size_t>(0.85 * 50)];
    for (int i = 0; i < 50; ++i) capped[i] = std::min(free[i], ceiling);
    YieldLevel y, z;
    int first = 99;
    for (int n = 1; n <= 40; ++n) {
      const std::int64_t was = y.trials_judged();
      y.observe(record(free, n), o);
      if (y.trials_judged() != was && y.level() > 0) {
        ++out.lowered;
        const double best = *std::max_element(free.begin(), free.begin() + n);
        if (*std::max_element(free.begin() + n, free.begin() + n + 10) > best + 0.01 * std::fabs(best))
          ++out.false_lowered;
      }
      z.observe(record(capped, n), o);
      if (first == 99 && z.level() > 0) first = n;
    }
    out.found += first <= 30;
    firsts.push_back(first);
  }
  std::sort(firsts.begin(), firsts.end());
  out.median_first = firsts[firsts.size() / 2];
  return out;
}

}  // namespace

int main() {
  std::gamma_distribution<double> g(2.0, 1.0);
  std::normal_distribution<double> normal(0.7, 0.05);
  std::uniform_real_distribution<double> unit(0, 1);
  const std::vector<std::pair<std::string, std::function<double(std::mt19937_64&)>>> dists = {
      {"beta(2,2)",
       [&](std::mt19937_64& r) {
         const double a = g(r), b = g(r);
         return 0.5 + 0.47 * a / (a + b);
       }},
      {"normal", [&](std::mt19937_64& r) { return normal(r); }},
      {"curve.py",
       [&](std::mt19937_64& r) {
         const double l = -4 + 4 * unit(r), m = 0.5 + 0.49 * unit(r);
         const double q = std::exp(-std::pow(l + 2, 2) / 2 - std::pow(m - 0.9, 2) / 0.08);
         return 0.5 + 0.49 * q * (1 - std::exp(-5 / 1.5));
       }},
  };
  struct Variant {
    std::string name;
    AdaptiveOptions o;
  };
  std::vector<Variant> variants;
  AdaptiveOptions a1;  // Table 4's configuration of Algorithm 1
  a1.use("algorithm1");
  a1.set("k", 1), a1.set("m", 3), a1.thresholds = {0.01};
  variants.push_back({"algorithm1 (k=1 m=3)", a1});
  AdaptiveOptions defaults;
  defaults.use("algorithm1");
  variants.push_back({"algorithm1 (defaults)", defaults});
  for (int spacings : {2, 3, 4}) {
    AdaptiveOptions t;
    t.use("tail");
    t.thresholds = {0.01};
    t.set("tail.spacings", spacings);
    variants.push_back(
        {"tail spacings=" + std::to_string(spacings) + (spacings == 4 ? " (default)" : ""), t});
  }
  AdaptiveOptions before;  // the tail estimator before coarse ties counted
  before.use("tail");
  before.thresholds = {0.01};
  before.set("tail.coarse_ties", 0);
  variants.push_back({"tail coarse_ties=0", before});
  std::printf("%-10s %-6s %-24s %22s %22s\n", "draws", "grid", "estimator", "false/lowered (free)",
              "capped: found<=30 (median)");
  for (const auto& [dname, draw] : dists)
    for (double grid : {0.0, 0.001, 0.005})
      for (const auto& v : variants) {
        const Outcome r = run(draw, grid, v.o);
        char rate[64];
        std::snprintf(
            rate, sizeof rate, "%d/%d %s", r.false_lowered, r.lowered,
            r.lowered
                ? (std::to_string(static_cast<int>(std::lround(100.0 * r.false_lowered / r.lowered))) + "%")
                      .c_str()
                : "-");
        std::printf("%-10s %-6s %-24s %22s %15d/300 (%2d)\n", dname.c_str(),
                    grid > 0 ? std::to_string(grid).substr(0, 5).c_str() : "-", v.name.c_str(), rate, r.found,
                    r.median_first);
      }
  return 0;
}
