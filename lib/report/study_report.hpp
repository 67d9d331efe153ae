// SPDX-License-Identifier: GPL-2.0-or-later
// What `tune report` shows of a study: the charts (best-so-far against time
// and against trial count, each parameter against the objective, learning
// curves with pruned trials marked), a short text of findings, and the whole
// as one self-contained HTML page.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/history.hpp"
#include "report/importance.hpp"
#include "report/svg_chart.hpp"

namespace tune {

struct NamedChart {
  std::string name;  // file stem for --svg: best-vs-time, param-lr, curves, ...
  Chart chart;
};

// Trials with an objective, best first (ties keep trial order).
std::vector<const Trial*> ranked_trials(const HistorySnapshot& h);
// A trial's lineage (--algo pbt): the trials whose checkpoints it goes on
// from, oldest first, ending with the trial itself (alone without one).
std::vector<const Trial*> lineage_of(const HistorySnapshot& h, const Trial& t);
// The steps trial `t` trained itself: from its source's last step + 1 (1
// without a source) to its own last step.
std::int64_t first_step(const HistorySnapshot& h, const Trial& t);
// A value for tables: six significant digits (exact values are in `tune export`).
std::string brief(const ParamValue& v);
// " loss=0.12 latency=20.1": a multi-objective trial's values, by name.
std::string objective_values(const StudyInfo& s, const Trial& t);
// " lr=0.01 optimizer=adam": the parameters a trial has (not inactive ones).
std::string parameter_values(const StudyInfo& s, const Trial& t);

// The report's colour for the study's own values (charts, importance bars).
inline constexpr const char* kStudyBlue = "#1f77b4";
// When the study's first trial started (trials imported by --warm-start ran
// in another study, earlier: they count as known at the start).
double study_start(const HistorySnapshot& h);

// study_charts.cpp: the charts.
std::vector<NamedChart> study_charts(const HistorySnapshot& h);
// The metric the learning curves show: the pruner's, else the most reported one.
std::string curve_metric(const HistorySnapshot& h);
// What a random forest fitted to the ok trials says (report/importance.hpp):
// fitted once per report.
struct StudyModel {
  std::optional<ForestModel> forest;
  std::vector<ParamImportance> importance;  // empty: too few or constant results
  // Several objectives: each one's importance (the forest and `importance`
  // above are the first objective's).
  std::vector<std::pair<std::string, std::vector<ParamImportance>>> by_objective;
};
// A multi-objective study's front: the chart of the first two objectives
// (all ok trials, the front joined) and the front's trials, best first by
// the first objective.
Chart front_chart(const HistorySnapshot& h);
StudyModel fit_study_model(const HistorySnapshot& h);
// Charts of the model, as named SVG documents: the trials in parallel
// coordinates (parameters by importance) and the fitted objective over the
// two most important numeric parameters.
std::vector<std::pair<std::string, std::string>> model_svgs(const HistorySnapshot& h, const StudyModel& m);

// Findings in a few lines: best, states, what pruning saved, which parameters matter.
std::string report_summary(const HistorySnapshot& h, const StudyModel& m);
// A complete HTML document: the summary, the best trials, parameter importance and every chart inline.
std::string report_html(const HistorySnapshot& h, const StudyModel& m);

}  // namespace tune
