// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/status_view.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "history/direction.hpp"
#include "report/strf.hpp"
#include "report/study_report.hpp"
#include "study/front.hpp"
#include "study/storage_wait.hpp"
#include "trial_jobs/trial_jobs_controller.hpp"

namespace tune {
namespace {

// The study's trial jobs, as its AppCore last wrote them (tune run --trial-jobs),
// and the limit that holds it, if one does.
std::string trial_jobs_text(const JobsFile& file, double now) {
  std::string out;
  const double age = std::max(0.0, now - file.updated);
  std::vector<std::string> reasons;
  for (const auto& e : file.jobs)
    if (e.pending) reasons.push_back(e.reason);
  const std::string limits = limit_reasons(reasons);
  if (!file.held.empty())
    out +=
        strf("held:      by a limit: no more trial jobs are taken now (%s); the study waits for it to pass\n",
             file.held.c_str());
  if (!limits.empty())
    out += strf("held:      by a limit: trial jobs wait on %s (scontrol show job; sacctmgr show qos)\n",
                limits.c_str());
  if (file.jobs.empty()) return out;
  int pending = 0, running = 0;
  for (const auto& e : file.jobs) (e.pending ? pending : running)++;
  out += strf("trial jobs: %d pending, %d running (as of %.0f s ago)\n", pending, running, age);
  out += strf("  %-10s %-8s %-6s %-16s %s\n", "job", "state", "trial", "node", "reason");
  for (const auto& e : file.jobs)
    out += strf("  %-10lu %-8s %-6s %-16s %s\n", static_cast<unsigned long>(e.id),
                e.pending ? "PENDING" : "RUNNING", e.trial ? std::to_string(*e.trial).c_str() : "-",
                e.node.empty() ? "-" : e.node.c_str(), e.reason.c_str());
  return out;
}

// A multi-objective study's answer: its Pareto front.
std::string front_text(const HistorySnapshot& h, int top) {
  const auto front = pareto_trials(h.study, h.trials);
  if (front.empty()) return "front:     none yet\n";
  std::string out = "front:     " + std::to_string(front.size()) +
                    " trial(s) no other trial beats in every objective (Pareto front)\n\n";
  const auto& ps = h.study.space.parameters();
  out += strf("  %-6s", "trial");
  for (const auto& o : h.study.objectives) out += strf(" %-12s", o.name.c_str());
  for (const auto& p : ps) out += strf(" %-12s", p.name.c_str());
  out += strf(" %8s  %s\n", "wall_s", "host");
  // Sorted by the first objective, best first: a front reads as a trade-off.
  std::vector<const Trial*> order;
  for (const auto& t : front) order.push_back(&t);
  const bool min0 = h.study.objectives[0].minimize;
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return better(min0, a->values[0], b->values[0]); });
  const std::size_t shown = std::max<std::size_t>(static_cast<std::size_t>(top), 20);
  for (std::size_t i = 0; i < order.size() && i < shown; ++i) {
    const Trial& t = *order[i];
    out += strf("  %-6llu", static_cast<unsigned long long>(t.id));
    for (double v : t.values) out += strf(" %-12s", brief(v).c_str());
    for (const auto& v : t.params) out += strf(" %-12s", brief(v).c_str());
    out += strf(" %8.1f  %s\n", t.wall_time(), t.host.c_str());
  }
  if (order.size() > shown) out += strf("  ... %zu more (tune export, tune report)\n", order.size() - shown);
  return out;
}

}  // namespace

// A trial's lineage (--algo pbt): the trials whose checkpoints it goes on
// from, oldest first, each with the steps it trained and its parameters, so
// the best member's parameter schedule reads top to bottom.
std::string lineage_text(const HistorySnapshot& h, const Trial& best) {
  const auto chain = lineage_of(h, best);
  if (chain.size() < 2) return {};
  constexpr std::size_t kShown = 12;
  std::string out = "\nlineage of trial " + std::to_string(best.id) + " (its parameters as it trained" +
                    (chain.size() > kShown ? ", the last " + std::to_string(kShown) + " trials" : "") +
                    "):\n";
  const auto row = [&out](std::string line) {  // columns padded, no trailing blanks
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  };
  std::string head = strf("  %-11s %-6s %-7s", "steps", "trial", "member");
  for (const auto& p : h.study.space.parameters()) head += strf(" %-12s", p.name.c_str());
  row(head);
  for (std::size_t k = chain.size() - std::min(chain.size(), kShown); k < chain.size(); ++k) {
    const Trial& t = *chain[k];
    const std::int64_t first = first_step(h, t);
    const std::string steps =
        t.last_step >= first ? std::to_string(first) + "-" + std::to_string(t.last_step) : "-";
    std::string line = strf("  %-11s %-6llu %-7s", steps.c_str(), static_cast<unsigned long long>(t.id),
                            t.member ? std::to_string(*t.member).c_str() : "-");
    for (const auto& v : t.params) line += strf(" %-12s", brief(v).c_str());
    row(line);
  }
  return out;
}

std::string status_text(const HistorySnapshot& h, int top, const std::optional<JobsFile>& jobs, double now) {
  const auto& s = h.study;
  std::string out;
  std::string aim;
  if (s.objectives.empty()) aim = std::string(s.minimize ? "minimize" : "maximize") + " the objective";
  for (const auto& o : s.objectives)
    aim += (aim.empty() ? "" : ", ") + std::string(o.minimize ? "minimize " : "maximize ") + o.name;
  out += "study:     " + s.name + " (" + s.sampler + " search, " + aim + ", seed " + std::to_string(s.seed) +
         ")\n";
  out += "command:   " + s.command + "\n";
  out += "created:   " + s.created + " by tune " + s.tune_version + "\n";
  out += "trials:    " + std::to_string(h.trials.size());
  int counts[kTrialStates] = {};
  for (const auto& t : h.trials) ++counts[static_cast<int>(t.state)];
  std::string sep = " (";
  for (int st = 0; st < kTrialStates; ++st)
    if (counts[st]) {
      out += sep + std::to_string(counts[st]) + " " + std::string(state_name(static_cast<TrialState>(st)));
      sep = ", ";
    }
  out += h.trials.empty() ? "" : ")";
  if (s.trials > 0)
    out +=
        ", " + std::to_string(s.trials + s.imported) + " planned (--trials " + std::to_string(s.trials) + ")";
  out += "\n";
  if (const auto kept = storage_kept(h.trials); kept.trials > 0)
    out += "storage:   " + std::to_string(kept.trials) +
           " trial(s) kept from running (--resume runs them): " + kept.message + "\n";
  if (s.imported > 0)
    out += "imported:  trials 0-" + std::to_string(s.imported - 1) + " from " + s.imported_from +
           " (not run here)\n";
  if (!s.enqueued.empty()) {
    const auto n = nlohmann::json::parse(s.enqueued).size();
    out += "enqueued:  trials " + std::to_string(s.imported) + "-" + std::to_string(s.imported + n - 1) +
           " (--enqueue)\n";
  }
  if (!s.ended.empty()) out += "ended:     " + s.ended + "\n";
  if (jobs) out += trial_jobs_text(*jobs, now);
  if (s.multi_objective()) return out + front_text(h, top);
  const auto best = ranked_trials(h);
  if (best.empty()) return out + "best:      none yet\n";
  const auto& ps = s.space.parameters();
  out +=
      "best:      trial " + std::to_string(best[0]->id) + " objective=" + brief(*best[0]->objective) + "\n";
  out += "\ntop " + std::to_string(std::min<std::size_t>(static_cast<std::size_t>(top), best.size())) + ":\n";
  out += strf("  %-6s %-12s", "trial", "objective");
  for (const auto& p : ps) out += strf(" %-12s", p.name.c_str());
  out += strf(" %8s  %s\n", "wall_s", "host");
  for (std::size_t i = 0; i < best.size() && i < static_cast<std::size_t>(top); ++i) {
    const Trial& t = *best[i];
    out += strf("  %-6llu %-12s", static_cast<unsigned long long>(t.id), brief(*t.objective).c_str());
    for (const auto& v : t.params) out += strf(" %-12s", brief(v).c_str());
    out += strf(" %8.1f  %s\n", t.wall_time(), t.host.c_str());
  }
  return out + lineage_text(h, *best[0]);
}

}  // namespace tune
