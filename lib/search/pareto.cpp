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
    for (std::size_t j = 0; j < points.size() && !dominated; ++j) dominated = j != i && dominates(points[j], points[i]);
    if (!dominated) out.push_back(i);
  }
  return out;
}

namespace {

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
