// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/pareto.hpp"

#include <algorithm>
#include <cmath>

namespace tune {

bool dominates(const ObjectivePoint& a, const ObjectivePoint& b) {
  bool better = false;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] > b[i]) return false;
    if (a[i] < b[i]) better = true;
  }
  return better;
}

std::vector<std::size_t> pareto_front(const std::vector<ObjectivePoint>& points) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    bool dominated = false;
    for (std::size_t j = 0; j < points.size() && !dominated; ++j)
      dominated = j != i && dominates(points[j], points[i]);
    if (!dominated) out.push_back(i);
  }
  return out;
}

namespace {

std::vector<std::size_t> peeled_ranks(const std::vector<ObjectivePoint>& points) {
  std::vector<std::size_t> rank(points.size(), 0), left(points.size());
  for (std::size_t i = 0; i < left.size(); ++i) left[i] = i;
  for (std::size_t r = 0; !left.empty(); ++r) {
    std::vector<ObjectivePoint> pts;
    for (auto i : left) pts.push_back(points[i]);
    std::vector<bool> on(left.size(), false);
    for (auto k : pareto_front(pts)) on[k] = true;
    std::vector<std::size_t> rest;
    for (std::size_t k = 0; k < left.size(); ++k) {
      if (on[k])
        rank[left[k]] = r;
      else
        rest.push_back(left[k]);
    }
    left = std::move(rest);
  }
  return rank;
}

// Two objectives. In the order of (f1, f2), every point that dominates p
// comes before p, and p's rank is the first front none of whose members so
// far dominates it. Of front r's members so far, the one with the least f2
// (the first such, so the least f1 among them) decides: it dominates p when
// its f2 is less, or equal with a smaller f1 (an identical point does not).
std::vector<std::size_t> sweep_ranks(const std::vector<ObjectivePoint>& points) {
  std::vector<std::size_t> order(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return points[a] < points[b]; });
  struct Front {
    double f2, f1;  // its member with the least f2, the first one found
  };
  std::vector<Front> fronts;
  std::vector<std::size_t> rank(points.size(), 0);
  for (auto i : order) {
    const double f1 = points[i][0], f2 = points[i][1];
    std::size_t r = 0;
    while (r < fronts.size() && (fronts[r].f2 < f2 || (fronts[r].f2 == f2 && fronts[r].f1 < f1))) ++r;
    rank[i] = r;
    if (r == fronts.size())
      fronts.push_back({f2, f1});
    else if (f2 < fronts[r].f2)
      fronts[r] = {f2, f1};
  }
  return rank;
}

double hv2(std::vector<ObjectivePoint> pts, const ObjectivePoint& ref) {
  std::sort(pts.begin(), pts.end());  // by the first objective, then the second
  double volume = 0, best_y = ref[1];
  for (const auto& p : pts) {
    if (p[1] >= best_y) continue;  // dominated by an earlier point
    volume += (ref[0] - p[0]) * (best_y - p[1]);
    best_y = p[1];
  }
  return volume;
}

double hv(std::vector<ObjectivePoint> pts, const ObjectivePoint& ref) {
  if (pts.empty()) return 0;
  const std::size_t d = ref.size();
  if (d == 1) {
    double lo = ref[0];
    for (const auto& p : pts) lo = std::min(lo, p[0]);
    return ref[0] - lo;
  }
  if (d == 2) return hv2(std::move(pts), ref);
  // Slices between consecutive values of the last objective: each slab's
  // cross-section is the (d-1)-dimensional volume of the points below it.
  std::sort(pts.begin(), pts.end(), [&](const auto& a, const auto& b) { return a[d - 1] < b[d - 1]; });
  const ObjectivePoint sub_ref(ref.begin(), ref.end() - 1);
  double volume = 0;
  std::vector<ObjectivePoint> below;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    below.emplace_back(pts[i].begin(), pts[i].end() - 1);
    const double top = i + 1 < pts.size() ? pts[i + 1][d - 1] : ref[d - 1];
    const double depth = top - pts[i][d - 1];
    if (depth <= 0) continue;
    std::vector<ObjectivePoint> front;
    for (auto k : pareto_front(below)) front.push_back(below[k]);
    below = front;  // dominated points never count again
    volume += depth * hv(front, sub_ref);
  }
  return volume;
}

}  // namespace

std::vector<std::size_t> pareto_ranks(const std::vector<ObjectivePoint>& points) {
  for (const auto& p : points)
    if (p.size() != 2 || std::isnan(p[0]) || std::isnan(p[1])) return peeled_ranks(points);
  return sweep_ranks(points);
}

double hypervolume(std::vector<ObjectivePoint> points, const ObjectivePoint& reference) {
  std::vector<ObjectivePoint> inside;
  for (auto& p : points) {
    bool ok = p.size() == reference.size();
    for (std::size_t i = 0; ok && i < p.size(); ++i) ok = std::isfinite(p[i]) && p[i] < reference[i];
    if (ok) inside.push_back(std::move(p));
  }
  return hv(std::move(inside), reference);
}

}  // namespace tune
