// SPDX-License-Identifier: GPL-2.0-or-later
// tune report's charts: the best value over time, each parameter against
// the objective, the learning curves, a population's lineage and parameter
// schedule, the model's partial dependences and the Pareto front.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "history/direction.hpp"
#include "report/study_report.hpp"
#include "study/front.hpp"

namespace tune {
namespace {

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

// Each trial's reports of `metric` at a step, in the order reported: its curve.
std::map<std::uint64_t, ChartSeries> curves_of(const HistorySnapshot& h, const std::string& metric) {
  std::map<std::uint64_t, ChartSeries> curves;
  for (const auto& r : h.reports)
    if (r.metric == metric && r.step >= 0) {
      auto& s = curves[r.trial];
      s.x.push_back(static_cast<double>(r.step));
      s.y.push_back(r.value);
    }
  return curves;
}

// --algo pbt: the best trial's lineage over the population's segments (the
// metric as it trained, the steps where it copied another member's
// checkpoint marked), and its parameter schedule, one chart per number.
void add_lineage_charts(const HistorySnapshot& h, const std::string& metric, std::vector<NamedChart>& out) {
  const auto ranked = h.study.multi_objective() ? std::vector<const Trial*>{} : ranked_trials(h);
  if (ranked.empty()) return;
  const auto chain = lineage_of(h, *ranked[0]);
  if (chain.size() < 2) return;
  const std::string best = "trial " + std::to_string(ranked[0]->id);
  if (!metric.empty()) {
    auto segments = curves_of(h, metric);
    Chart c{"Lineage of " + best + " (" + metric + " as it trained) among the population's segments",
            "step",
            metric,
            false,
            false,
            {},
            {}};
    ChartSeries line{"lineage of " + best, {}, {}, true, false, kStudyBlue};
    ChartSeries copied{"copied another member's checkpoint", {}, {}, false, true, kRed};
    for (const Trial* t : chain) {
      const auto seg = segments.find(t->id);
      if (seg == segments.end()) continue;
      for (std::size_t k = 0; k < seg->second.x.size(); ++k)
        if (seg->second.x[k] >= static_cast<double>(first_step(h, *t))) {
          line.x.push_back(seg->second.x[k]);
          line.y.push_back(seg->second.y[k]);
        }
      const bool took_another =
          t->from && *t->from < h.trials.size() && h.trials[*t->from].member != t->member;
      if (took_another && !line.x.empty()) {
        const auto at = std::find(line.x.begin(), line.x.end(), static_cast<double>(first_step(h, *t)));
        if (at != line.x.end()) {
          copied.x.push_back(*at);
          copied.y.push_back(line.y[static_cast<std::size_t>(at - line.x.begin())]);
        }
      }
    }
    std::size_t skip = segments.size() > kMaxCurves ? segments.size() - kMaxCurves : 0;
    bool other_legend = false;
    std::vector<double> values;
    for (auto& [id, seg] : segments) {
      if (skip > 0) {
        --skip;
        continue;
      }
      seg.color = kGrey;
      if (!other_legend) seg.label = "the population's segments";
      other_legend = true;
      values.insert(values.end(), seg.y.begin(), seg.y.end());
      c.series.push_back(std::move(seg));
    }
    values.insert(values.end(), line.y.begin(), line.y.end());
    c.series.push_back(std::move(line));
    if (!copied.x.empty()) c.series.push_back(std::move(copied));
    c.log_y = wants_log(values);
    out.push_back({"lineage", std::move(c)});
  }
  // Each number as the best trial trained: a step function over its segments.
  const auto& ps = h.study.space.parameters();
  for (std::size_t j = 0; j < ps.size(); ++j) {
    if (ps[j].kind == ParamKind::Choice) continue;
    ChartSeries sched{"", {}, {}, true, true, kStudyBlue};
    for (const Trial* t : chain) {
      const double v = as_number(t->params[j]);
      const auto first = first_step(h, *t);
      if (t->last_step < first || !std::isfinite(v)) continue;
      sched.x.push_back(static_cast<double>(first));
      sched.y.push_back(v);
      sched.x.push_back(static_cast<double>(t->last_step));
      sched.y.push_back(v);
    }
    if (sched.x.empty()) continue;
    Chart c{ps[j].name + " as " + best + " trained (its parameter schedule)",
            "step",
            ps[j].name,
            false,
            ps[j].log && ps[j].low > 0,
            {},
            {std::move(sched)}};
    out.push_back({"schedule-" + ps[j].name, std::move(c)});
  }
}

}  // namespace

// When this study's first trial started (trials imported by --warm-start ran
// in another study, earlier: they count as known at the start).
double study_start(const HistorySnapshot& h) {
  double start = 0;
  for (const auto& t : h.trials)
    if (t.id >= h.study.imported && t.start_time > 0 && (start == 0 || t.start_time < start))
      start = t.start_time;
  return start;
}

std::vector<NamedChart> study_charts(const HistorySnapshot& h) {
  const bool min = h.study.minimize;
  const auto ok = by_end(h);
  const double t0 = study_start(h);
  std::vector<NamedChart> out;

  // Best so far against time and against the number of finished trials.
  ChartSeries best_t{"best so far", {}, {}, true, false, kStudyBlue},
      all_t{"trial", {}, {}, false, true, kGrey};
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
    ChartSeries pts{"", {}, {}, false, true, kStudyBlue};
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
    auto curves = curves_of(h, metric);
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
        s.color = kStudyBlue;
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
  add_lineage_charts(h, metric, out);
  return out;
}

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
  ChartSeries line{"Pareto front", {}, {}, true, true, kStudyBlue};
  for (const auto& t : front) line.x.push_back(t.values[0]), line.y.push_back(t.values[1]);
  c.log_x = wants_log(all.x), c.log_y = wants_log(all.y);
  c.series = {std::move(all), std::move(line)};
  return c;
}

}  // namespace tune
