// SPDX-License-Identifier: GPL-2.0-or-later
// Pareto dominance, fronts and hypervolume for studies with several
// objectives. Every function here takes points in minimisation form: the
// caller negates objectives that are maximised.
#pragma once

#include <cstddef>
#include <vector>

namespace tune {

using ObjectivePoint = std::vector<double>;

// a is no worse than b in every objective and better in one.
bool dominates(const ObjectivePoint& a, const ObjectivePoint& b);

// Indices of the points no other point dominates (duplicates all kept), in
// their original order.
std::vector<std::size_t> pareto_front(const std::vector<ObjectivePoint>& points);

// Each point's Pareto rank: 0 on the front, 1 on the front of the rest, and
// so on (non-dominated sorting). Two objectives: one sort and a sweep over
// the fronts, O(n log n + n fronts); more: fronts peeled off one by one.
std::vector<std::size_t> pareto_ranks(const std::vector<ObjectivePoint>& points);

// The volume dominated by the points and bounded by `reference` (points
// that do not dominate it add nothing). Exact: a sweep for two objectives,
// slicing along the last objective above that (HSO; fine for the few
// hundred front points of a study, up to 4-5 objectives).
double hypervolume(std::vector<ObjectivePoint> points, const ObjectivePoint& reference);

}  // namespace tune
