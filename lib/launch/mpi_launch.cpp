// SPDX-License-Identifier: GPL-2.0-or-later
#include "launch/mpi_launch.hpp"

#include <regex>
#include <sstream>
#include <stdexcept>

namespace tune {

std::string tasks_per_node_with_appcore(const std::string& slurm) {
  static const std::regex kFirst(R"(^([0-9]+)(\(x([0-9]+)\))?((,[0-9]+(\(x[0-9]+\))?)*)$)");
  std::smatch m;
  if (!std::regex_match(slurm, m, kFirst))
    throw std::invalid_argument("SLURM_TASKS_PER_NODE='" + slurm +
                                "' is not Slurm's list of tasks per node (e.g. 2(x3),1)");
  const long first = std::stol(m[1]);
  const long repeat = m[3].matched ? std::stol(m[3]) : 1;
  std::string out = std::to_string(first + 1);
  if (repeat == 2) out += "," + m[1].str();
  if (repeat > 2) out += "," + m[1].str() + "(x" + std::to_string(repeat - 1) + ")";
  return out + m[4].str();
}

namespace {

// "1", "gpu:1", "gres/gpu=2", "gres/gpu:a100=2": the count after the last ':' or '='.
long count_of(const std::string& spec) {
  const auto colon = spec.find_last_of(":=");
  const std::string n = colon == std::string::npos ? spec : spec.substr(colon + 1);
  if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::stol(n);
}

std::vector<std::string> entries(const std::string& list) {
  std::vector<std::string> out;
  std::istringstream in(list);
  for (std::string e; std::getline(in, e, ',');)
    if (!e.empty()) out.push_back(e);
  return out;
}

bool is_gpu_entry(const std::string& e) {
  return e.rfind("gres/gpu", 0) == 0 || e.rfind("gres:gpu", 0) == 0 || e.rfind("gpu:", 0) == 0;
}

}  // namespace

std::vector<EnvChange> mpi_study_env(const std::function<const char*(const char*)>& get) {
  const char* tpn = get("SLURM_TASKS_PER_NODE");
  if (!tpn || !*tpn)
    throw std::invalid_argument(
        "SLURM_TASKS_PER_NODE is not set: tune wrap --mpi runs inside the batch job tune submit writes");
  std::vector<EnvChange> out{{"SLURM_TASKS_PER_NODE", tasks_per_node_with_appcore(tpn)}};
  // The GPUs of the job: per task (22.05's SLURM_GPUS_PER_TASK) or among the
  // per-task TRES (SLURM_TRES_PER_TASK, read by srun since 23.11).
  long per_task = 0;
  if (const char* g = get("SLURM_GPUS_PER_TASK"); g && *g) {
    per_task = count_of(g);
    out.push_back({"SLURM_GPUS_PER_TASK", std::nullopt});
  }
  if (const char* t = get("SLURM_TRES_PER_TASK"); t && *t) {
    std::string kept;
    for (const auto& e : entries(t)) {
      if (is_gpu_entry(e)) {
        if (per_task == 0) per_task = count_of(e);
        continue;
      }
      kept += (kept.empty() ? "" : ",") + e;
    }
    if (kept != t) out.push_back({"SLURM_TRES_PER_TASK", kept.empty() ? std::nullopt : std::optional(kept)});
  }
  if (per_task > 0) {
    const char* n = get("SLURM_NTASKS");
    const long tasks = n && *n ? count_of(n) : 0;
    if (tasks <= 0)
      throw std::invalid_argument("SLURM_NTASKS is not set: the job's task count is needed for its GPUs");
    out.push_back({"SLURM_GPUS", std::to_string(per_task * tasks)});
  }
  return out;
}

}  // namespace tune
