#include "placement/gang_placement.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>

namespace tune {
namespace {

// What one node can give this job: tasks, and GPUs for a per-job GPU count.
struct Capacity {
  int tasks = 0;
  int gpus = 0;  // GPUs the node would give (per node / per task), or can give (per job)
};

double mem_for(const JobShape& j, int cpus, int gpus) {
  if (j.mem_per_node_mb > 0) return j.mem_per_node_mb;
  return cpus * j.mem_per_cpu_mb + gpus * j.mem_per_gpu_mb;
}

int cpus_for(const JobShape& j, int tasks, int gpus) {
  return std::max(tasks * j.cpus_per_task, gpus * j.cpus_per_gpu);
}

Capacity capacity(const NodeCell& n, const JobShape& j) {
  Capacity c;
  if (!n.available || (j.exclusive && !n.fully_free())) return c;
  const int free_gpus = n.free_gpus();
  auto fits = [&](int tasks, int gpus) {
    const int cpus = cpus_for(j, tasks, gpus);
    return cpus <= n.free_cores && gpus <= free_gpus && mem_for(j, cpus, gpus) <= n.free_mem_mb + 1e-9;
  };
  if (j.gpus_per_task > 0) {
    int k = 0;
    while (k < j.tasks && fits(k + 1, (k + 1) * j.gpus_per_task)) ++k;
    return {k, k * j.gpus_per_task};
  }
  if (j.gpus_per_node > 0) {
    int k = 0;
    while (k < j.tasks && fits(k + 1, j.gpus_per_node)) ++k;
    return {k, k ? j.gpus_per_node : 0};
  }
  if (j.gpus_per_job > 0) {  // at least one task; as many GPUs as fit
    if (!fits(1, 1)) return c;
    int g = 1;
    while (g < std::min(free_gpus, j.gpus_per_job) && fits(1, g + 1)) ++g;
    int k = 1;
    while (k < j.tasks && fits(k + 1, g)) ++k;
    return {k, g};
  }
  int k = 0;
  while (k < j.tasks && fits(k + 1, 0)) ++k;
  return {k, 0};
}

// Done when the chosen nodes hold every task and every GPU.
struct Need {
  int tasks, gpus, min_nodes, max_nodes;
};

Need need_of(const JobShape& j) {
  return {j.tasks, j.gpus_per_job, std::max(1, j.min_nodes), j.max_nodes > 0 ? j.max_nodes : 1 << 30};
}

// Assign tasks and GPUs to an ordered node list; nullopt if they do not hold the job.
std::optional<Placement> fill(const Topology& t, const JobShape& j, const std::vector<int>& order) {
  Need need = need_of(j);
  Placement p;
  int tasks_left = need.tasks, gpus_left = need.gpus;
  for (int i : order) {
    if (static_cast<int>(p.nodes.size()) >= need.max_nodes) break;
    if (tasks_left <= 0 && gpus_left <= 0 && static_cast<int>(p.nodes.size()) >= need.min_nodes) break;
    const Capacity c = capacity(t.nodes[i], j);
    if (c.tasks == 0) continue;
    NodeGrant g;
    g.node = i;
    // Keep one task for each node still needed to reach min_nodes.
    const int reserve = std::max(0, need.min_nodes - static_cast<int>(p.nodes.size()) - 1);
    g.tasks = std::max(1, std::min(c.tasks, tasks_left - reserve));
    if (j.gpus_per_task) g.gpus = g.tasks * j.gpus_per_task;
    else if (j.gpus_per_node) g.gpus = j.gpus_per_node;
    else if (j.gpus_per_job) g.gpus = std::max(0, std::min(c.gpus, gpus_left));
    if (j.gpus_per_job && g.gpus == 0 && tasks_left <= 0) continue;
    g.cpus = cpus_for(j, g.tasks, g.gpus);
    g.mem_mb = mem_for(j, g.cpus, g.gpus);
    tasks_left -= g.tasks;
    gpus_left -= g.gpus;
    p.nodes.push_back(g);
  }
  if (tasks_left > 0 || gpus_left > 0 || static_cast<int>(p.nodes.size()) < need.min_nodes) return std::nullopt;
  std::vector<int> sw;
  for (const auto& g : p.nodes) sw.push_back(t.nodes[g.node].switch_id);
  std::sort(sw.begin(), sw.end());
  p.switches = static_cast<int>(std::unique(sw.begin(), sw.end()) - sw.begin());
  return p;
}

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
  if (p)
    for (auto& g : p->nodes) {
      // Lowest free indices, as cons_tres picks them.
      for (int i = 0; i < t.nodes[g.node].gpus() && static_cast<int>(g.gpu_indices.size()) < g.gpus; ++i)
        if (t.nodes[g.node].gpu_free[i]) g.gpu_indices.push_back(i);
    }
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
  throw std::invalid_argument("unknown placement policy '" + name + "': use gang or first-fit");
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
