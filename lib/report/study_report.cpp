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

constexpr const char* kBlue = "#1f77b4";
constexpr const char* kGrey = "#bbbbbb";
constexpr const char* kRed = "#d62728";
constexpr std::size_t kMaxCurves = 400;  // the most recent trials' curves: a page stays light

// Finished trials with an objective, in the order they ended.
std::vector<const Trial*> by_end(const HistorySnapshot& h) {
  std::vector<const Trial*> ok;
  for (const auto& t : h.trials)
    if (t.state == TrialState::Ok && t.objective) ok.push_back(&t);
  std::stable_sort(ok.begin(), ok.end(),
                   [](const Trial* a, const Trial* b) { return a->end_time < b->end_time; });
  return ok;
}

// When this study's first trial started (trials imported by --warm-start ran
// in another study, earlier: they count as known at the start).
double study_start(const HistorySnapshot& h) {
  double start = 0;
  for (const auto& t : h.trials)
    if (t.id >= h.study.imported && t.start_time > 0 && (start == 0 || t.start_time < start))
      start = t.start_time;
  return start;
}
double minutes_in(const HistorySnapshot& h, const Trial& t) {
  return t.id < h.study.imported ? 0.0 : (t.end_time - study_start(h)) / 60;
}

// A log axis when the values are positive and span more than two decades.
bool wants_log(const std::vector<double>& v) {
  double lo = INFINITY, hi = -INFINITY;
  for (double x : v) {
    if (!std::isfinite(x)) continue;
    if (x <= 0) return false;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  return lo < hi && hi / lo > 100;
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

std::vector<NamedChart> study_charts(const HistorySnapshot& h) {
  const bool min = h.study.minimize;
  const auto ok = by_end(h);
  const double t0 = study_start(h);
  std::vector<NamedChart> out;

  // Best so far against time and against the number of finished trials.
  ChartSeries best_t{"best so far", {}, {}, true, false, kBlue}, all_t{"trial", {}, {}, false, true, kGrey};
  ChartSeries best_n = best_t, all_n = all_t;
  double best = 0;
  std::size_t finished = 0;
  for (const Trial* t : ok) {
    best = finished++ == 0 ? *t->objective
                           : (min ? std::min(best, *t->objective) : std::max(best, *t->objective));
    const double minutes = t->id < h.study.imported ? 0.0 : (t->end_time - t0) / 60;
    all_t.x.push_back(minutes);
    all_t.y.push_back(*t->objective);
    best_t.x.push_back(minutes);
    best_t.y.push_back(best);
    all_n.x.push_back(static_cast<double>(finished));
    all_n.y.push_back(*t->objective);
    best_n.x.push_back(static_cast<double>(finished));
    best_n.y.push_back(best);
  }
  const bool log_y = wants_log(all_t.y);
  out.push_back({"best-vs-time",
                 {"Best objective against time",
                  "minutes since the first trial started",
                  "objective",
                  false,
                  log_y,
                  {},
                  {all_t, best_t}}});
  out.push_back({"best-vs-trials",
                 {"Best objective against trials finished",
                  "finished trials (ok)",
                  "objective",
                  false,
                  log_y,
                  {},
                  {all_n, best_n}}});

  // Each parameter against the objective.
  const auto& ps = h.study.space.parameters();
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const auto& p = ps[i];
    Chart c{p.name + " against the objective", p.name, "objective", p.log, log_y, {}, {}};
    ChartSeries pts{"", {}, {}, false, true, kBlue};
    if (p.kind == ParamKind::Choice) c.x_categories = p.choices;
    for (const Trial* t : ok) {
      const ParamValue& v = t->params[i];
      if (is_absent(v)) continue;  // the parameter did not exist in that trial
      double x = 0;
      if (const auto* d = std::get_if<double>(&v))
        x = *d;
      else if (const auto* n = std::get_if<std::int64_t>(&v))
        x = static_cast<double>(*n);
      else
        x = static_cast<double>(std::find(p.choices.begin(), p.choices.end(), std::get<std::string>(v)) -
                                p.choices.begin());
      pts.x.push_back(x);
      pts.y.push_back(*t->objective);
    }
    c.series.push_back(std::move(pts));
    out.push_back({"param-" + p.name, std::move(c)});
  }

  // Learning curves of the reported steps; pruned trials red with an x where they stopped.
  const std::string metric = curve_metric(h);
  if (!metric.empty()) {
    std::map<std::uint64_t, ChartSeries> curves;
    for (const auto& r : h.reports)
      if (r.metric == metric && r.step >= 0) {
        auto& s = curves[r.trial];
        s.x.push_back(static_cast<double>(r.step));
        s.y.push_back(r.value);
      }
    Chart c{"Learning curves (" + metric + ")", "step", metric, false, false, {}, {}};
    std::vector<double> values;
    std::size_t skip = curves.size() > kMaxCurves ? curves.size() - kMaxCurves : 0;
    bool pruned_legend = false, ok_legend = false;
    for (auto& [id, s] : curves) {
      if (skip > 0) {
        --skip;
        continue;
      }
      const TrialState state = id < h.trials.size() ? h.trials[id].state : TrialState::Running;
      s.markers = s.x.size() == 1;
      if (state == TrialState::Pruned) {
        s.color = kRed;
        s.end_cross = true;
        if (!pruned_legend) s.label = "pruned";
        pruned_legend = true;
      } else if (state == TrialState::Ok) {
        s.color = kBlue;
        if (!ok_legend) s.label = "ran to the end";
        ok_legend = true;
      } else {
        s.color = kGrey;
      }
      values.insert(values.end(), s.y.begin(), s.y.end());
      c.series.push_back(std::move(s));
    }
    c.log_y = wants_log(values);
    out.push_back({"curves", std::move(c)});
  }
  return out;
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

namespace {

double as_number(const ParamValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* n = std::get_if<std::int64_t>(&v)) return static_cast<double>(*n);
  return std::nan("");  // absent: not drawn
}

// Parameter indices, most important first (the space's order without a model).
std::vector<std::size_t> by_importance(const HistorySnapshot& h, const StudyModel& m) {
  const auto& ps = h.study.space.parameters();
  std::vector<std::size_t> out;
  for (const auto& imp : m.importance)
    for (std::size_t j = 0; j < ps.size(); ++j)
      if (ps[j].name == imp.name) out.push_back(j);
  if (out.empty())
    for (std::size_t j = 0; j < ps.size(); ++j) out.push_back(j);
  else  // those left out of the model (conditional), after the rest
    for (std::size_t j = 0; j < ps.size(); ++j)
      if (std::find(out.begin(), out.end(), j) == out.end()) out.push_back(j);
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> model_svgs(const HistorySnapshot& h, const StudyModel& m) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto& ps = h.study.space.parameters();
  const auto ranked = ranked_trials(h);
  if (ranked.size() < 2) return out;
  const auto order = by_importance(h, m);

  ParallelChart pc;
  pc.title = "Trials in parallel coordinates (best tenth in colour, darkest best; parameters by importance)";
  pc.axes.push_back({"objective", false, {}});
  for (auto j : order)
    pc.axes.push_back({ps[j].name, ps[j].log,
                       ps[j].kind == ParamKind::Choice ? ps[j].choices : std::vector<std::string>{}});
  for (std::size_t r = 0; r < ranked.size(); ++r) {
    const Trial& t = *ranked[r];
    std::vector<double> row{*t.objective};
    for (auto j : order) {
      if (ps[j].kind == ParamKind::Choice && !is_absent(t.params[j])) {
        const auto& c = ps[j].choices;
        row.push_back(static_cast<double>(std::find(c.begin(), c.end(), std::get<std::string>(t.params[j])) -
                                          c.begin()));
      } else {
        row.push_back(as_number(t.params[j]));
      }
    }
    pc.rows.push_back(std::move(row));
    pc.shade.push_back(static_cast<double>(r) / static_cast<double>(ranked.size() - 1));
  }
  out.emplace_back("parallel", render_parallel(pc));

  // The fitted objective over the two most important numeric parameters.
  std::vector<std::size_t> numeric;
  for (auto j : order)
    if (ps[j].kind != ParamKind::Choice && ps[j].cardinality() != 1 && m.forest && m.forest->models(j))
      numeric.push_back(j);
  if (m.forest && numeric.size() >= 2) {
    const auto a = numeric[0], b = numeric[1];
    const auto grid = [](const Parameter& p) {
      std::vector<double> g;
      double lo = p.low, hi = p.high;
      if (p.kind == ParamKind::Number) {
        lo = *std::min_element(p.numbers.begin(), p.numbers.end());
        hi = *std::max_element(p.numbers.begin(), p.numbers.end());
      }
      const bool log = p.log && lo > 0;
      constexpr int kCells = 30;
      for (int k = 0; k < kCells; ++k) {
        const double t = (k + 0.5) / kCells;
        g.push_back(log ? std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo))) : lo + t * (hi - lo));
      }
      return g;
    };
    HeatMap hm;
    hm.title = "Fitted objective over " + ps[a].name + " and " + ps[b].name + " (others averaged)";
    hm.x_label = ps[a].name, hm.y_label = ps[b].name, hm.z_label = "objective (random forest)";
    hm.log_x = ps[a].log && ps[a].low > 0, hm.log_y = ps[b].log && ps[b].low > 0;
    hm.x = grid(ps[a]), hm.y = grid(ps[b]);
    for (double x : hm.x)
      for (double y : hm.y) hm.z.push_back(m.forest->marginal({{a, ParamValue{x}}, {b, ParamValue{y}}}));
    for (const Trial* t : ranked)
      hm.px.push_back(as_number(t->params[a])), hm.py.push_back(as_number(t->params[b]));
    out.emplace_back("contour", render_heatmap(hm));
  }
  return out;
}

Chart front_chart(const HistorySnapshot& h) {
  const auto& obj = h.study.objectives;
  Chart c{"Trials and the Pareto front",
          obj[0].name + (obj[0].minimize ? " (lower is better)" : " (higher is better)"),
          obj[1].name + (obj[1].minimize ? " (lower is better)" : " (higher is better)"),
          false,
          false,
          {},
          {}};
  ChartSeries all{"ok trials", {}, {}, false, true, "#bbbbbb"};
  for (const auto& t : h.trials)
    if (t.state == TrialState::Ok && t.values.size() == obj.size())
      all.x.push_back(t.values[0]), all.y.push_back(t.values[1]);
  auto front = pareto_trials(h.study, h.trials);
  std::stable_sort(front.begin(), front.end(),
                   [](const Trial& a, const Trial& b) { return a.values[0] < b.values[0]; });
  ChartSeries line{"Pareto front", {}, {}, true, true, kBlue};
  for (const auto& t : front) line.x.push_back(t.values[0]), line.y.push_back(t.values[1]);
  c.log_x = wants_log(all.x), c.log_y = wants_log(all.y);
  c.series = {std::move(all), std::move(line)};
  return c;
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
          << "</td><td><div style=\"background:" << kBlue
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
