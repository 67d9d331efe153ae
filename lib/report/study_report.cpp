// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/study_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "history/direction.hpp"
#include "report/importance.hpp"
#include "study/front.hpp"

namespace tune {
namespace {

double minutes_in(const HistorySnapshot& h, const Trial& t) {
  return t.id < h.study.imported ? 0.0 : (t.end_time - study_start(h)) / 60;
}

std::string left_out_text(const ForestModel& f) {
  std::string names;
  for (const auto& n : f.left_out()) names += (names.empty() ? "" : ", ") + n;
  return "left out: " + names +
         " (conditional: not in every ok trial; as in Optuna, importance covers the parameters every trial "
         "has)";
}

}  // namespace

std::string brief(const ParamValue& v) {
  if (is_absent(v)) return "-";  // an inactive conditional parameter
  if (const auto* d = std::get_if<double>(&v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", *d);
    return buf;
  }
  return to_string(v);
}

std::string objective_values(const StudyInfo& s, const Trial& t) {
  std::string out;
  for (std::size_t i = 0; i < s.objectives.size() && i < t.values.size(); ++i)
    out += " " + s.objectives[i].name + "=" + brief(t.values[i]);
  return out;
}

std::string parameter_values(const StudyInfo& s, const Trial& t) {
  std::string out;
  const auto& ps = s.space.parameters();
  for (std::size_t i = 0; i < ps.size() && i < t.params.size(); ++i)
    if (!is_absent(t.params[i])) out += " " + ps[i].name + "=" + brief(t.params[i]);
  return out;
}

std::vector<const Trial*> ranked_trials(const HistorySnapshot& h) {
  std::vector<const Trial*> ok;
  for (const auto& t : h.trials)
    if (t.state == TrialState::Ok && t.objective) ok.push_back(&t);
  std::stable_sort(ok.begin(), ok.end(), [&](const Trial* a, const Trial* b) {
    return better(h.study.minimize, *a->objective, *b->objective);
  });
  return ok;
}

std::vector<const Trial*> lineage_of(const HistorySnapshot& h, const Trial& t) {
  std::vector<const Trial*> chain{&t};
  // A history is written in proposal order (a source is older), but the walk
  // of a damaged one whose sources loop must still end.
  while (chain.back()->from && *chain.back()->from < h.trials.size() && chain.size() <= h.trials.size())
    chain.push_back(&h.trials[*chain.back()->from]);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

std::int64_t first_step(const HistorySnapshot& h, const Trial& t) {
  return t.from && *t.from < h.trials.size() ? h.trials[*t.from].last_step + 1 : 1;
}

std::string curve_metric(const HistorySnapshot& h) {
  if (h.study.pruner.rule != "none") return h.study.pruner.metric;
  std::map<std::string, std::size_t> seen;
  for (const auto& r : h.reports)
    if (r.step >= 0) ++seen[r.metric];
  std::string best;
  std::size_t most = 0;
  for (const auto& [m, n] : seen)
    if (n > most || (n == most && m == "objective")) {
      best = m;
      most = n;
    }
  return best;
}

std::string report_summary(const HistorySnapshot& h, const StudyModel& m) {
  std::ostringstream o;
  const auto& s = h.study;
  o << "study " << s.name << ": " << s.sampler << " search"
    << (s.pruner.rule != "none" ? " with " + s.pruner.rule + " pruning on " + s.pruner.metric : std::string())
    << ", "
    << (s.multi_objective()
            ? std::to_string(s.objectives.size()) + " objectives"
            : std::string(s.minimize ? "minimising" : "maximising") + " " +
                  (s.objectives.empty() ? std::string("the objective") : s.objectives[0].name))
    << "\n";
  int counts[kTrialStates] = {};
  for (const auto& t : h.trials) ++counts[static_cast<int>(t.state)];
  o << h.trials.size() << " trials:";
  for (int st = 0; st < kTrialStates; ++st)
    if (counts[st]) o << " " << counts[st] << " " << state_name(static_cast<TrialState>(st));
  o << "\n";
  const auto ranked = s.multi_objective() ? std::vector<const Trial*>{} : ranked_trials(h);
  if (s.multi_objective()) {
    const auto front = pareto_trials(s, h.trials);
    o << "objectives:";
    for (const auto& obj : s.objectives) o << " " << (obj.minimize ? "minimise " : "maximise ") << obj.name;
    o << "\nPareto front: " << front.size() << " trial(s) that no other trial beats in every objective";
    for (std::size_t k = 0; k < front.size() && k < 10; ++k) {
      o << (k ? "" : ":") << "\n  trial " << front[k].id << objective_values(s, front[k]);
    }
    if (front.size() > 10) o << "\n  ... " << front.size() - 10 << " more (tune status, tune export)";
    o << "\n";
  }
  if (!ranked.empty()) {
    const Trial* best = ranked.front();
    o << "best: trial " << best->id << " objective=" << brief(*best->objective) << " after "
      << brief(minutes_in(h, *best)) << " min" << (best->id < s.imported ? " (imported)" : "") << ";"
      << parameter_values(s, *best) << "\n";
  }
  // Steps run against the steps the same trials would have run to the end.
  std::int64_t full = 0;
  for (const auto& t : h.trials)
    if (t.state == TrialState::Ok) full = std::max(full, t.last_step);
  if (counts[static_cast<int>(TrialState::Pruned)] > 0 && full > 0) {
    std::int64_t run = 0, would = 0;
    std::vector<std::int64_t> stops;
    for (const auto& t : h.trials) {
      if (t.state != TrialState::Ok && t.state != TrialState::Pruned) continue;
      run += std::max<std::int64_t>(0, t.last_step);
      would += full;
      if (t.state == TrialState::Pruned) stops.push_back(t.last_step);
    }
    std::sort(stops.begin(), stops.end());
    o << "pruning: " << stops.size() << " trials stopped early (median step " << stops[stops.size() / 2]
      << " of " << full << "); " << run << " steps run instead of " << would << " ("
      << brief(100.0 * static_cast<double>(run) / static_cast<double>(would)) << "%)\n";
  }
  for (const auto& [name, imp] : m.by_objective) {
    if (imp.empty()) continue;
    o << "parameter importance for " << name << " (fANOVA over a random forest of the ok trials):";
    for (const auto& p : imp) o << " " << p.name << " " << brief(p.importance);
    o << "\n";
  }
  if (!m.importance.empty() && m.by_objective.empty()) {
    o << "parameter importance (fANOVA over a random forest of the ok trials' objectives):";
    for (const auto& p : m.importance) o << " " << p.name << " " << brief(p.importance);
    o << "\n";
    if (m.forest && !m.forest->left_out().empty()) o << "  " << left_out_text(*m.forest) << "\n";
  }
  return o.str();
}

StudyModel fit_study_model(const HistorySnapshot& h) {
  StudyModel m;
  m.forest = ForestModel::fit(h.study.space, h.trials);
  if (m.forest) m.importance = m.forest->importance();
  if (h.study.multi_objective())
    for (std::size_t k = 0; k < h.study.objectives.size(); ++k) {
      std::vector<Trial> trials = h.trials;
      for (auto& t : trials)
        t.objective = t.values.size() > k ? std::optional<double>(t.values[k]) : std::nullopt;
      const auto forest = ForestModel::fit(h.study.space, trials);
      m.by_objective.emplace_back(h.study.objectives[k].name,
                                  forest ? forest->importance() : std::vector<ParamImportance>{});
    }
  return m;
}

std::string report_html(const HistorySnapshot& h, const StudyModel& m) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>tune report: "
    << xml_escape(h.study.name) << "</title>\n"
    << "<style>body{font-family:sans-serif;margin:1.5em;color:#222}"
       "pre{background:#f6f6f6;padding:.8em}figure{display:inline-block;margin:.4em}"
       "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid "
       "#ddd;text-align:left}</style>\n"
    << "</head><body>\n<h1>Study " << xml_escape(h.study.name) << "</h1>\n<pre>"
    << xml_escape(report_summary(h, m)) << "command: " << xml_escape(h.study.command)
    << "\ncreated: " << xml_escape(h.study.created) << " by tune " << xml_escape(h.study.tune_version)
    << "</pre>\n";
  if (h.study.multi_objective()) {
    const auto front = pareto_trials(h.study, h.trials);
    std::vector<const Trial*> order;
    for (const auto& t : front) order.push_back(&t);
    const bool min0 = h.study.objectives[0].minimize;
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
      return min0 ? a->values[0] < b->values[0] : a->values[0] > b->values[0];
    });
    o << "<h2>Pareto front</h2>\n<p>" << front.size()
      << " trial(s) that no other trial beats in every objective: the study's answer, a trade-off to choose "
         "from.</p>\n";
    if (h.study.objectives.size() == 2)
      o << "<figure id=\"front\">" << render_svg(front_chart(h)) << "</figure>\n";
    o << "<table><tr><th>trial</th>";
    for (const auto& obj : h.study.objectives)
      o << "<th>" << xml_escape(obj.name) << " (" << (obj.minimize ? "min" : "max") << ")</th>";
    for (const auto& p : h.study.space.parameters()) o << "<th>" << xml_escape(p.name) << "</th>";
    o << "</tr>\n";
    for (const Trial* t : order) {
      o << "<tr><td>" << t->id << "</td>";
      for (double v : t->values) o << "<td>" << brief(v) << "</td>";
      for (const auto& v : t->params) o << "<td>" << xml_escape(brief(v)) << "</td>";
      o << "</tr>\n";
    }
    o << "</table>\n";
  }
  const auto ok = h.study.multi_objective() ? std::vector<const Trial*>{} : ranked_trials(h);
  if (!ok.empty()) {
    o << "<h2>Best trials</h2>\n<table><tr><th>trial</th><th>objective</th>";
    for (const auto& p : h.study.space.parameters()) o << "<th>" << xml_escape(p.name) << "</th>";
    o << "<th>seconds</th></tr>\n";
    for (std::size_t i = 0; i < ok.size() && i < 10; ++i) {
      o << "<tr><td>" << ok[i]->id << "</td><td>" << brief(*ok[i]->objective) << "</td>";
      for (const auto& v : ok[i]->params) o << "<td>" << xml_escape(brief(v)) << "</td>";
      o << "<td>" << brief(ok[i]->wall_time()) << "</td></tr>\n";
    }
    o << "</table>\n";
  }
  std::vector<std::pair<std::string, std::vector<ParamImportance>>> tables = m.by_objective;
  if (tables.empty()) tables.emplace_back("the objective", m.importance);
  if (!m.importance.empty()) {
    o << "<h2>Which parameters matter</h2>\n<p>Share of the objective's variance each parameter explains on "
         "its own "
         "(fANOVA over a random forest fitted to the ok trials, as Optuna's default importance "
         "evaluator).</p>\n";
    for (const auto& [name, imp] : tables) {
      if (imp.empty()) continue;
      o << "<table><tr><th>parameter</th><th>importance for " << xml_escape(name) << "</th><th></th></tr>\n";
      for (const auto& p : imp)
        o << "<tr><td>" << xml_escape(p.name) << "</td><td>" << brief(p.importance)
          << "</td><td><div style=\"background:" << kStudyBlue
          << ";height:10px;width:" << static_cast<int>(std::lround(300 * p.importance))
          << "px\"></div></td></tr>\n";
      o << "</table>\n";
    }
    if (m.forest && !m.forest->left_out().empty())
      o << "<p>" << xml_escape(left_out_text(*m.forest)) << "</p>\n";
  }
  for (const auto& [name, svg] : model_svgs(h, m))
    o << "<figure id=\"" << name << "\">" << svg << "</figure>\n";
  o << "<h2>Charts</h2>\n";
  for (const auto& c : study_charts(h))
    o << "<figure id=\"" << xml_escape(c.name) << "\">" << render_svg(c.chart) << "</figure>\n";
  o << "</body></html>\n";
  return o.str();
}

}  // namespace tune
