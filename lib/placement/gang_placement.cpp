// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/gang_placement.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>

#include "placement/fill.hpp"

namespace tune {
using namespace placement_detail;

std::optional<Placement> GangPlacement::place(const Topology& t, const JobShape& j) const {
  const bool gpu_job = j.wants_gpus();
  // Per node: can it hold the whole job alone, and the best-fit key.
  struct Cand {
    int node;
    Capacity cap;
    FitKey key;  // smaller is better
  };
  std::vector<Cand> cands;
  for (int i = 0; i < static_cast<int>(t.nodes.size()); ++i) {
    const Capacity c = capacity(t.nodes[i], j);
    if (c.tasks > 0) cands.push_back({i, c, fit_key(t.nodes[i], j, c, options_)});
  }

  // One node, if any holds the job: the best fit.
  if (need_of(j).min_nodes <= 1) {
    std::optional<Placement> best;
    FitKey best_key;
    for (const auto& c : cands) {
      auto p = fill(t, j, {c.node});
      if (p && (!best || c.key < best_key)) best = p, best_key = c.key;
    }
    if (best) {
      for (auto& g : best->nodes) choose_gpus(t.nodes[g.node], g);
      return best;
    }
  }

  // Several nodes: within one switch if possible (fewest nodes there), else
  // across the fewest switches. Largest capacity first gives the fewest
  // nodes; the last node is then the best fit for what remains.
  auto order_for = [&](const std::vector<const Cand*>& pool) {
    std::vector<const Cand*> v = pool;
    std::stable_sort(v.begin(), v.end(), [&](const Cand* a, const Cand* b) {
      const int ca = gpu_job ? a->cap.gpus : a->cap.tasks, cb = gpu_job ? b->cap.gpus : b->cap.tasks;
      if (ca != cb) return ca > cb;
      return a->key < b->key;
    });
    return v;
  };
  auto best_in = [&](const std::vector<const Cand*>& pool) -> std::optional<Placement> {
    const auto v = order_for(pool);
    std::vector<int> order;
    for (const auto* c : v) order.push_back(c->node);
    auto p = fill(t, j, order);
    if (!p || p->nodes.size() < 2) return p;
    // Best fit for the last node: the candidate, not yet used, that holds the
    // remainder and leaves the least.
    const std::size_t k = p->nodes.size();
    std::vector<int> head;
    for (std::size_t i = 0; i + 1 < k; ++i) head.push_back(p->nodes[i].node);
    std::optional<Placement> best = p;
    FitKey best_key{1 << 30, 0, 0, 0, 0};
    for (const auto* c : pool) {
      if (std::find(head.begin(), head.end(), c->node) != head.end()) continue;
      auto order2 = head;
      order2.push_back(c->node);
      auto q = fill(t, j, order2);
      if (q && q->nodes.size() == k && c->key < best_key) best = q, best_key = c->key;
    }
    return best;
  };

  std::map<int, std::vector<const Cand*>> by_switch;
  for (const auto& c : cands) by_switch[t.nodes[c.node].switch_id].push_back(&c);
  std::optional<Placement> best;
  for (const auto& [sw, pool] : by_switch) {
    auto p = best_in(pool);
    if (p && (!best || p->nodes.size() < best->nodes.size())) best = p;
  }
  if (!best) {
    // Across switches: the switches with the most to give first.
    std::vector<std::pair<int, int>> order;  // (-capacity, switch)
    for (const auto& [sw, pool] : by_switch) {
      int cap = 0;
      for (const auto* c : pool) cap += gpu_job ? c->cap.gpus : c->cap.tasks;
      order.emplace_back(-cap, sw);
    }
    std::sort(order.begin(), order.end());
    std::vector<const Cand*> pool;
    for (const auto& [cap, sw] : order) {
      pool.insert(pool.end(), by_switch[sw].begin(), by_switch[sw].end());
      if ((best = best_in(pool))) break;
    }
  }
  if (best)
    for (auto& g : best->nodes) choose_gpus(t.nodes[g.node], g);
  return best;
}

}  // namespace tune
