// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Gang GPU placement: the node set that holds the whole job at once and, in
// order, spans the fewest switches, then the fewest nodes, then leaves the
// least fragmentation (best fit: prefer nodes whose free GPUs match the need;
// do not break a fully free node for a job a partly used one can hold). A
// CPU-only job does not take the cores a node's free GPUs need. Ties break by
// node order. Also: which GPU indices to prefer on each node (same socket
// first). No Slurm here.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "placement/topology.hpp"
#include "registry/registry.hpp"

namespace tune {

struct NodeGrant {
  int node = -1;  // index into Topology::nodes
  int tasks = 0, cpus = 0, gpus = 0;
  double mem_mb = 0;
  std::vector<int> gpu_indices;  // preferred GPUs on the node
};

struct Placement {
  std::vector<NodeGrant> nodes;
  int switches = 0;
};

struct PlacementOptions {
  // Cores per free GPU that a CPU-only job must leave on a node.
  int cores_per_free_gpu = 1;
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::optional<Placement> place(const Topology& t, const JobShape& job) const = 0;
  // Tells the policy a job was submitted (policies that learn the workload's mix).
  virtual void observe(const JobShape& /*job*/) {}
  virtual std::string name() const = 0;
};

// The policy described above.
class GangPlacement : public PlacementPolicy {
 public:
  explicit GangPlacement(PlacementOptions o = {}) : options_(o) {}
  std::optional<Placement> place(const Topology& t, const JobShape& job) const override;
  std::string name() const override { return "gang"; }

 private:
  PlacementOptions options_;
};

// What select/cons_tres does without weights: the first nodes in node order
// that can hold the job.
class FirstFitPlacement : public PlacementPolicy {
 public:
  std::optional<Placement> place(const Topology& t, const JobShape& job) const override;
  std::string name() const override { return "first-fit"; }
};

// select/cons_tres's own choice (see cons_tres_placement.cpp): the tightest
// run of consecutive usable nodes, and in it, for a one-node job, the node
// with the fewest available CPUs. What the simulator compares gang against.
class ConsTresPlacement : public PlacementPolicy {
 public:
  std::optional<Placement> place(const Topology& t, const JobShape& job) const override;
  std::string name() const override { return "cons_tres"; }
};

// The placement policies, in one list: what tune place, tune simulate and
// select_gang.conf's `placement` accept (the plugin runs those marked
// in_plugin; cons_tres and first-fit are what the plugin falls back on).
struct PlacementEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  std::function<std::unique_ptr<PlacementPolicy>(const PlacementOptions&)> make;
  bool in_plugin = false;
};
const Registry<PlacementEntry>& placements();
// The names the plugin runs (in_plugin).
std::vector<std::string> plugin_placement_names();
// The policy by name; UnknownName naming the known ones otherwise.
std::unique_ptr<PlacementPolicy> make_placement(std::string_view name, PlacementOptions options = {});

// Marks the placement's cores, memory and GPUs used (or free again).
void apply(Topology& t, const Placement& p, const JobShape& job);
void release(Topology& t, const Placement& p);

}  // namespace tune
