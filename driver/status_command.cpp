// SPDX-License-Identifier: GPL-2.0-or-later
#include "status_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "history/direction.hpp"
#include "history/history.hpp"
#include "report/export.hpp"
#include "report/study_report.hpp"
#include "run_command.hpp"
#include "study/front.hpp"
#include "study/storage_wait.hpp"
#include "trial_jobs/jobs_file.hpp"
#include "trial_jobs/trial_jobs_controller.hpp"
#include "trial_jobs_loop.hpp"

namespace tune {
namespace {

// The study's trial jobs, as its AppCore last wrote them (tune run --trial-jobs),
// and the limit that holds it, if one does.
void show_trial_jobs(const std::string& history) {
  const auto file = read_jobs_file(jobs_file_of(history));
  if (!file) return;
  const double age = std::max(0.0, static_cast<double>(std::time(nullptr)) - file->updated);
  std::vector<std::string> reasons;
  for (const auto& e : file->jobs)
    if (e.pending) reasons.push_back(e.reason);
  const std::string limits = limit_reasons(reasons);
  if (!file->held.empty())
    std::printf(
        "held:      by a limit: no more trial jobs are taken now (%s); the study waits for it to pass\n",
        file->held.c_str());
  if (!limits.empty())
    std::printf("held:      by a limit: trial jobs wait on %s (scontrol show job; sacctmgr show qos)\n",
                limits.c_str());
  if (file->jobs.empty()) return;
  int pending = 0, running = 0;
  for (const auto& e : file->jobs) (e.pending ? pending : running)++;
  std::printf("trial jobs: %d pending, %d running (as of %.0f s ago)\n", pending, running, age);
  std::printf("  %-10s %-8s %-6s %-16s %s\n", "job", "state", "trial", "node", "reason");
  for (const auto& e : file->jobs)
    std::printf("  %-10lu %-8s %-6s %-16s %s\n", static_cast<unsigned long>(e.id),
                e.pending ? "PENDING" : "RUNNING", e.trial ? std::to_string(*e.trial).c_str() : "-",
                e.node.empty() ? "-" : e.node.c_str(), e.reason.c_str());
  std::fflush(stdout);
}

// A multi-objective study's answer: its Pareto front.
int show_front(const HistorySnapshot& h, int top) {
  const auto front = pareto_trials(h.study, h.trials);
  if (front.empty()) {
    std::cout << "front:     none yet\n";
    return 0;
  }
  std::cout << "front:     " << front.size()
            << " trial(s) no other trial beats in every objective (Pareto front)\n\n";
  std::cout.flush();
  const auto& ps = h.study.space.parameters();
  std::printf("  %-6s", "trial");
  for (const auto& o : h.study.objectives) std::printf(" %-12s", o.name.c_str());
  for (const auto& p : ps) std::printf(" %-12s", p.name.c_str());
  std::printf(" %8s  %s\n", "wall_s", "host");
  // Sorted by the first objective, best first: a front reads as a trade-off.
  std::vector<const Trial*> order;
  for (const auto& t : front) order.push_back(&t);
  const bool min0 = h.study.objectives[0].minimize;
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return better(min0, a->values[0], b->values[0]); });
  const std::size_t shown = std::max<std::size_t>(static_cast<std::size_t>(top), 20);
  for (std::size_t i = 0; i < order.size() && i < shown; ++i) {
    const Trial& t = *order[i];
    std::printf("  %-6llu", static_cast<unsigned long long>(t.id));
    for (double v : t.values) std::printf(" %-12s", brief(v).c_str());
    for (const auto& v : t.params) std::printf(" %-12s", brief(v).c_str());
    std::printf(" %8.1f  %s\n", t.wall_time(), t.host.c_str());
  }
  if (order.size() > shown) std::printf("  ... %zu more (tune export, tune report)\n", order.size() - shown);
  std::fflush(stdout);
  return 0;
}

}  // namespace

HistorySnapshot read_history_for(const std::string& command, const std::string& history, bool with_reports) {
  HistorySnapshot h = read_history(history, with_reports);
  if (!h.warning.empty())
    std::cerr << "tune " << command << ": warning: " << history << ": " << h.warning << std::endl;
  return h;
}

int show_status(const std::string& path, int top) {
  const HistorySnapshot h = read_history_for("status", path, false);
  const auto& s = h.study;
  std::string aim;
  if (s.objectives.empty()) aim = std::string(s.minimize ? "minimize" : "maximize") + " the objective";
  for (const auto& o : s.objectives)
    aim += (aim.empty() ? "" : ", ") + std::string(o.minimize ? "minimize " : "maximize ") + o.name;
  std::cout << "study:     " << s.name << " (" << s.sampler << " search, " << aim << ", seed " << s.seed
            << ")\n";
  std::cout << "command:   " << s.command << "\n";
  std::cout << "created:   " << s.created << " by tune " << s.tune_version << "\n";
  std::cout << "trials:    " << h.trials.size();
  int counts[kTrialStates] = {};
  for (const auto& t : h.trials) ++counts[static_cast<int>(t.state)];
  std::string sep = " (";
  for (int st = 0; st < kTrialStates; ++st)
    if (counts[st]) {
      std::cout << sep << counts[st] << " " << state_name(static_cast<TrialState>(st));
      sep = ", ";
    }
  std::cout << (h.trials.empty() ? "" : ")");
  if (s.trials > 0) std::cout << ", " << s.trials + s.imported << " planned (--trials " << s.trials << ")";
  std::cout << "\n";
  if (const auto kept = storage_kept(h.trials); kept.trials > 0)
    std::cout << "storage:   " << kept.trials
              << " trial(s) kept from running (--resume runs them): " << kept.message << "\n";
  if (s.imported > 0)
    std::cout << "imported:  trials 0-" << s.imported - 1 << " from " << s.imported_from
              << " (not run here)\n";
  if (!s.enqueued.empty()) {
    const auto n = nlohmann::json::parse(s.enqueued).size();
    std::cout << "enqueued:  trials " << s.imported << "-" << s.imported + n - 1 << " (--enqueue)\n";
  }
  std::cout.flush();
  show_trial_jobs(path);
  if (s.multi_objective()) return show_front(h, top);
  const auto best = ranked_trials(h);
  if (best.empty()) {
    std::cout << "best:      none yet\n";
    return 0;
  }
  const auto& ps = s.space.parameters();
  std::cout << "best:      trial " << best[0]->id << " objective=" << brief(*best[0]->objective) << "\n";
  std::cout << "\ntop " << std::min<std::size_t>(top, best.size()) << ":\n";
  std::fflush(stdout);
  std::cout.flush();
  std::printf("  %-6s %-12s", "trial", "objective");
  for (const auto& p : ps) std::printf(" %-12s", p.name.c_str());
  std::printf(" %8s  %s\n", "wall_s", "host");
  for (std::size_t i = 0; i < best.size() && i < static_cast<std::size_t>(top); ++i) {
    const Trial& t = *best[i];
    std::printf("  %-6llu %-12s", static_cast<unsigned long long>(t.id), brief(*t.objective).c_str());
    for (const auto& v : t.params) std::printf(" %-12s", brief(v).c_str());
    std::printf(" %8.1f  %s\n", t.wall_time(), t.host.c_str());
  }
  std::fflush(stdout);
  return 0;
}

int export_history(const std::string& path, const std::string& format, const std::string& output) {
  const HistorySnapshot h = read_history_for("export", path, format != "csv");
  if (format == "optuna" && !output.empty() && output != "-" && std::filesystem::exists(output)) {
    std::cerr << "tune export: error: " << output
              << " exists; an Optuna journal is appended to, not replaced: remove it or give another -o\n";
    return kExitUsage;
  }
  std::ofstream file;
  if (!output.empty() && output != "-") {
    file.open(output);
    if (!file) throw HistoryError(output + ": cannot write the export file");
  }
  std::ostream& out = file.is_open() ? file : std::cout;
  if (format == "csv")
    write_trials_csv(h, out);
  else if (format == "curves")
    write_curves_csv(h, out);
  else if (format == "optuna")
    write_optuna_journal(h, out);
  else
    write_study_json(h, out);
  out.flush();
  if (!out)
    throw HistoryError((output.empty() ? std::string("standard output") : output) +
                       ": the export could not be written");
  return 0;
}

}  // namespace tune
