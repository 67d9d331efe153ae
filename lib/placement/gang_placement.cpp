#include "placement/gang_placement.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>

#include "placement/fill.hpp"

namespace tune {
namespace {

using namespace placement_detail;

// GPUs to prefer on a node: the socket with the most free GPUs first.
void choose_gpus(const NodeCell& n, NodeGrant& g) {
  std::map<int, std::vector<int>> by_socket;
  for (int i = 0; i < n.gpus(); ++i)
    if (n.gpu_free[i]) by_socket[n.gpu_socket[i]].push_back(i);
  std::vector<std::vector<int>> sockets;
  for (auto& [s, v] : by_socket) sockets.push_back(v);
  // A socket that alone holds the grant, the tightest such; else the fullest first.
  std::stable_sort(sockets.begin(), sockets.end(), [&](const auto& a, const auto& b) {
    const bool fa = static_cast<int>(a.size()) >= g.gpus, fb = static_cast<int>(b.size()) >= g.gpus;
    if (fa != fb) return fa;
    return fa ? a.size() < b.size() : a.size() > b.size();
  });
  g.gpu_indices.clear();
  for (const auto& s : sockets)
    for (int i : s)
      if (static_cast<int>(g.gpu_indices.size()) < g.gpus) g.gpu_indices.push_back(i);
  std::sort(g.gpu_indices.begin(), g.gpu_indices.end());
}

}  // namespace

std::optional<Placement> FirstFitPlacement::place(const Topology& t, const JobShape& j) const {
  std::vector<int> order(t.nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  auto p = fill(t, j, order);
  if (p) lowest_free_gpus(t, *p);
  return p;
}

std::optional<Placement> GangPlacement::place(const Topology& t, const JobShape& j) const {
  const bool gpu_job = j.wants_gpus();
  // Per node: can it hold the whole job alone, and the best-fit key.
  struct Cand {
    int node;
    Capacity cap;
    std::tuple<int, int, int, int, int> key;  // smaller is better
  };
  std::vector<Cand> cands;
  for (int i = 0; i < static_cast<int>(t.nodes.size()); ++i) {
    const NodeCell& n = t.nodes[i];
    const Capacity c = capacity(n, j);
    if (c.tasks == 0) continue;
    const int cpus = cpus_for(j, c.tasks, c.gpus);
    int strands = 0, has_gpus = 0;
    if (!gpu_job && n.free_gpus() > 0) {
      has_gpus = 1;
      // Taking these cores would leave free GPUs without cores to drive them.
      strands = n.free_cores - cpus < n.free_gpus() * o_.cores_per_free_gpu;
    }
    const int left_gpus = n.free_gpus() - (gpu_job ? c.gpus : 0);
    cands.push_back({i, c, {strands, has_gpus, n.fully_free() ? 1 : 0, left_gpus, n.free_cores - cpus}});
  }

  // One node, if any holds the job: the best fit.
  if (need_of(j).min_nodes <= 1) {
    std::optional<Placement> best;
    std::tuple<int, int, int, int, int> best_key;
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
    std::tuple<int, int, int, int, int> best_key{1 << 30, 0, 0, 0, 0};
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

std::unique_ptr<PlacementPolicy> make_placement(const std::string& name) {
  if (name == "gang") return std::make_unique<GangPlacement>();
  if (name == "first-fit") return std::make_unique<FirstFitPlacement>();
  if (name == "cons_tres") return std::make_unique<ConsTresPlacement>();
  throw std::invalid_argument("unknown placement policy '" + name + "': use gang, cons_tres or first-fit");
}

void apply(Topology& t, const Placement& p, const JobShape& /*job*/) {
  for (const auto& g : p.nodes) {
    NodeCell& n = t.nodes[g.node];
    n.free_cores -= g.cpus;
    n.free_mem_mb -= g.mem_mb;
    for (int i : g.gpu_indices) {
      if (!n.gpu_free[i]) throw std::logic_error("GPU " + std::to_string(i) + " of " + n.name + " is not free");
      n.gpu_free[i] = false;
    }
  }
}

void release(Topology& t, const Placement& p) {
  for (const auto& g : p.nodes) {
    NodeCell& n = t.nodes[g.node];
    n.free_cores += g.cpus;
    n.free_mem_mb += g.mem_mb;
    for (int i : g.gpu_indices) n.gpu_free[i] = true;
  }
}

}  // namespace tune
