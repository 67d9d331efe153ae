// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/experiment.hpp"

#include <cstdio>

#include "placement/gang_config.hpp"
#include "priority/policy_config.hpp"
#include "simulation/ordering.hpp"

namespace tune::sim {

Experiment plan_experiment(const ExperimentSpec& o) {
  Experiment e;
  e.cluster = read_cluster(o.cluster);
  if (o.cluster_share < 1) e.cluster = scale_cluster(e.cluster, o.cluster_share);
  if (!o.associations.empty()) e.cluster.associations = read_associations(o.associations);
  if (o.jobs.empty() && o.studies.empty())
    throw WorkloadError("nothing to replay: give --jobs WORKLOAD, --study HISTORY.h5, or both");
  if (o.jobs.empty() && !o.utilisations.empty())
    throw WorkloadError(
        "--utilisation scales a workload's arrivals: give --jobs, or --load to compress the studies' "
        "submissions");
  if (!o.jobs.empty())
    e.base = read_workload(o.jobs, o.format);
  else
    e.base.source = "studies";
  for (const auto& spec : o.studies) e.base.studies.push_back(read_study(spec));
  if (!e.base.timed) {
    if (o.times_from.empty())
      throw WorkloadError(o.jobs +
                          ": gives job sizes but no submission or run times; add --times-from WORKLOAD (e.g. "
                          "openb_pod_list_default.csv) to draw them by GPU count");
    borrow_times(e.base, read_workload(o.times_from), o.seed);
  }
  if (o.limit > 0 && static_cast<long>(e.base.jobs.size()) > o.limit) e.base.jobs.resize(o.limit);

  // Each tune plugin's configuration: the file given for it, or its defaults.
  std::map<std::string, PolicyConfig> conf;
  for (const auto& p : priority_policies().entries()) conf.try_emplace(p.name);
  for (const auto& [plugin, file] : o.plugin_conf)
    if (!file.empty())
      conf.at(priority_policy(plugin).name) = load_policy_config(file, priority_policy(plugin).rules);
  PlacementOptions placement_options;
  std::vector<std::string> placements = o.placements;
  if (!o.select_conf.empty()) {  // a site's settings for the policies the plugin runs
    const GangConfig g = load_gang_config(o.select_conf);
    placement_options = g.options;
    if (placements.empty()) placements = {g.placement};
  }
  if (placements.empty()) placements = {"cons_tres"};

  apply_time_limits(e.base, o.time_limit_factor);
  const int gpus = e.cluster.gpus(), cpus = e.cluster.cpus();
  e.native_load = e.base.jobs.empty() ? 0 : offered_load(e.base, gpus, cpus);
  e.factors = o.loads;
  for (double u : o.utilisations) e.factors.push_back(factor_for_load(e.base, u, gpus, cpus));
  if (e.factors.empty()) e.factors.push_back(1);

  const std::vector<std::string> modes =
      e.base.studies.empty() ? std::vector<std::string>{"trials"} : o.study_modes;
  e.several_modes = modes.size() > 1;
  for (const auto& mode : modes)
    for (const auto& prio : o.priorities)
      for (const auto& place : placements) {
        PlannedRun r;
        // "tune:tail": the policy, and the estimator instead of the file's.
        const auto colon = prio.find(':');
        r.options.priority = prio.substr(0, colon), r.options.placement = place;
        r.options.tune = conf.at(tune_plugin_for(ordering_policy(r.options.priority).priority_type));
        if (colon != std::string::npos) r.options.tune.adaptive.use(prio.substr(colon + 1));
        r.options.placement_options = placement_options;
        r.options.cpus_per_gpu = o.cpus_per_gpu, r.options.study_mode = mode, r.options.drain = o.drain;
        r.options.timer_phase = o.timer_phase;
        r.priority = prio;
        r.label = prio + "+" + place + (e.several_modes ? "/" + mode : "");
        e.runs.push_back(std::move(r));
      }
  return e;
}

std::string run_file_name(const std::string& dir, double factor, const PlannedRun& run, bool with_mode,
                          const char* ext) {
  char name[512];
  std::snprintf(name, sizeof name, "%s/x%g-%s-%s%s.%s", dir.c_str(), factor, run.priority.c_str(),
                run.options.placement.c_str(), with_mode ? ("-" + run.options.study_mode).c_str() : "", ext);
  return name;
}

}  // namespace tune::sim
