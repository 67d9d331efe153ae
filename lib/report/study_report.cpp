#include "report/study_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

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
  std::stable_sort(ok.begin(), ok.end(), [](const Trial* a, const Trial* b) { return a->end_time < b->end_time; });
  return ok;
}

double study_start(const HistorySnapshot& h) {
  double start = 0;
  for (const auto& t : h.trials)
    if (t.start_time > 0 && (start == 0 || t.start_time < start)) start = t.start_time;
  return start;
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

}  // namespace

std::string brief(const ParamValue& v) {
  if (const auto* d = std::get_if<double>(&v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", *d);
    return buf;
  }
  return to_string(v);
}

std::vector<const Trial*> ranked_trials(const HistorySnapshot& h) {
  std::vector<const Trial*> ok;
  for (const auto& t : h.trials)
    if (t.state == TrialState::Ok && t.objective) ok.push_back(&t);
  std::stable_sort(ok.begin(), ok.end(), [&](const Trial* a, const Trial* b) {
    return h.study.minimize ? *a->objective < *b->objective : *a->objective > *b->objective;
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
    best = finished++ == 0 ? *t->objective : (min ? std::min(best, *t->objective) : std::max(best, *t->objective));
    const double minutes = (t->end_time - t0) / 60;
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
  out.push_back({"best-vs-time", {"Best objective against time", "minutes since the first trial started",
                                  "objective", false, log_y, {}, {all_t, best_t}}});
  out.push_back({"best-vs-trials", {"Best objective against trials finished", "finished trials (ok)", "objective",
                                    false, log_y, {}, {all_n, best_n}}});

  // Each parameter against the objective.
  const auto& ps = h.study.space.parameters();
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const auto& p = ps[i];
    Chart c{p.name + " against the objective", p.name, "objective", p.log, log_y, {}, {}};
    ChartSeries pts{"", {}, {}, false, true, kBlue};
    if (p.kind == ParamKind::Choice) c.x_categories = p.choices;
    for (const Trial* t : ok) {
      const ParamValue& v = t->params[i];
      double x = 0;
      if (const auto* d = std::get_if<double>(&v)) x = *d;
      else if (const auto* n = std::get_if<std::int64_t>(&v)) x = static_cast<double>(*n);
      else x = static_cast<double>(std::find(p.choices.begin(), p.choices.end(), std::get<std::string>(v)) - p.choices.begin());
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

std::string report_summary(const HistorySnapshot& h) {
  std::ostringstream o;
  const auto& s = h.study;
  o << "study " << s.name << ": " << s.sampler << " search"
    << (s.pruner.rule != "none" ? " with " + s.pruner.rule + " pruning on " + s.pruner.metric : std::string())
    << ", " << (s.minimize ? "minimising" : "maximising") << " the objective\n";
  int counts[kTrialStates] = {};
  for (const auto& t : h.trials) ++counts[static_cast<int>(t.state)];
  o << h.trials.size() << " trials:";
  for (int st = 0; st < kTrialStates; ++st)
    if (counts[st]) o << " " << counts[st] << " " << state_name(static_cast<TrialState>(st));
  o << "\n";
  const auto ranked = ranked_trials(h);
  if (!ranked.empty()) {
    const Trial* best = ranked.front();
    o << "best: trial " << best->id << " objective=" << brief(*best->objective) << " after "
      << brief((best->end_time - study_start(h)) / 60) << " min;";
    for (std::size_t i = 0; i < s.space.parameters().size(); ++i)
      o << " " << s.space.parameters()[i].name << "=" << brief(best->params[i]);
    o << "\n";
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
    o << "pruning: " << stops.size() << " trials stopped early (median step " << stops[stops.size() / 2] << " of "
      << full << "); " << run << " steps run instead of " << would << " ("
      << brief(100.0 * static_cast<double>(run) / static_cast<double>(would)) << "%)\n";
  }
  return o.str();
}

std::string report_html(const HistorySnapshot& h) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>tune report: "
    << xml_escape(h.study.name) << "</title>\n"
    << "<style>body{font-family:sans-serif;margin:1.5em;color:#222}"
       "pre{background:#f6f6f6;padding:.8em}figure{display:inline-block;margin:.4em}"
       "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}</style>\n"
    << "</head><body>\n<h1>Study " << xml_escape(h.study.name) << "</h1>\n<pre>" << xml_escape(report_summary(h))
    << "command: " << xml_escape(h.study.command) << "\ncreated: " << xml_escape(h.study.created) << " by tune "
    << xml_escape(h.study.tune_version) << "</pre>\n";
  const auto ok = ranked_trials(h);
  if (!ok.empty()) {
    o << "<h2>Best trials</h2>\n<table><tr><th>trial</th><th>objective</th>";
    for (const auto& p : h.study.space.parameters()) o << "<th>" << xml_escape(p.name) << "</th>";
    o << "<th>seconds</th></tr>\n";
    for (std::size_t i = 0; i < ok.size() && i < 10; ++i) {
      o << "<tr><td>" << ok[i]->id << "</td><td>" << brief(*ok[i]->objective) << "</td>";
      for (const auto& v : ok[i]->params)
        o << "<td>" << xml_escape(brief(v)) << "</td>";
      o << "<td>" << brief(ok[i]->wall_time()) << "</td></tr>\n";
    }
    o << "</table>\n";
  }
  o << "<h2>Charts</h2>\n";
  for (const auto& c : study_charts(h)) o << "<figure id=\"" << xml_escape(c.name) << "\">" << render_svg(c.chart) << "</figure>\n";
  o << "</body></html>\n";
  return o.str();
}

}  // namespace tune
