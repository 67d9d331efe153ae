// SPDX-License-Identifier: GPL-2.0-or-later
// What tune report draws of a population-based training study
// (lib/report/study_charts): the best trial's lineage over the population's
// segments, the step where it copied another member's checkpoint marked,
// and its parameter schedule as a step function; a study without lineage
// has neither chart.
#include <gtest/gtest.h>

#include <algorithm>

#include "report/study_report.hpp"

namespace tune {
namespace {

// Two members, 4 steps a segment: trials 0 and 1 start them; trial 2
// (member 0) copies member 1's checkpoint with lr 0.24; trial 3 goes on from
// trial 2 with lr 0.288 and is the best.
HistorySnapshot population() {
  HistorySnapshot h;
  h.study.name = "pbt";
  h.study.sampler = "pbt";
  h.study.minimize = false;
  h.study.space = SearchSpace::parse(
      R"({"parameters": [{"name": "lr", "type": "bound", "value": [0.01, 1], "log": true}]})");
  const double lr[] = {0.1, 0.2, 0.24, 0.288};
  for (std::uint64_t k = 0; k < 4; ++k) {
    Trial t;
    t.id = k;
    t.state = TrialState::Ok;
    t.params = {lr[k]};
    t.objective = 0.1 * static_cast<double>(k + 1);
    t.member = k == 1 ? 1u : 0u;
    t.last_step = k < 2 ? 4 : static_cast<std::int64_t>(4 * k);
    t.start_time = static_cast<double>(k), t.end_time = static_cast<double>(k) + 1;
    h.trials.push_back(t);
  }
  h.trials[2].from = 1;
  h.trials[3].from = 2;
  for (const Trial& t : h.trials)
    for (std::int64_t s = first_step(h, t); s <= t.last_step; ++s)
      h.reports.push_back(
          {t.id, s, 0, "q", 0.01 * static_cast<double>(s) + 0.001 * static_cast<double>(t.id)});
  return h;
}

const NamedChart* find(const std::vector<NamedChart>& charts, const std::string& name) {
  const auto at =
      std::find_if(charts.begin(), charts.end(), [&](const NamedChart& c) { return c.name == name; });
  return at == charts.end() ? nullptr : &*at;
}

TEST(LineageCharts, TheBestTrialsLineageAndItsScheduleAreDrawn) {
  const HistorySnapshot h = population();
  EXPECT_EQ(lineage_of(h, h.trials[3]).size(), 3u);
  EXPECT_EQ(first_step(h, h.trials[2]), 5);
  const auto charts = study_charts(h);
  const NamedChart* lineage = find(charts, "lineage");
  ASSERT_NE(lineage, nullptr);
  const auto& series = lineage->chart.series;
  const auto line = std::find_if(series.begin(), series.end(),
                                 [](const ChartSeries& s) { return s.label == "lineage of trial 3"; });
  ASSERT_NE(line, series.end());
  // Steps 1-4 of trial 1 (the checkpoint member 0 copied), 5-8 of trial 2, 9-12 of trial 3.
  ASSERT_EQ(line->x.size(), 12u);
  EXPECT_DOUBLE_EQ(line->y[0], 0.011);
  EXPECT_DOUBLE_EQ(line->y[4], 0.052);
  EXPECT_DOUBLE_EQ(line->y[11], 0.123);
  const auto copied = std::find_if(series.begin(), series.end(), [](const ChartSeries& s) {
    return s.label == "copied another member's checkpoint";
  });
  ASSERT_NE(copied, series.end());
  EXPECT_EQ(copied->x, std::vector<double>{5});  // trial 3 went on from its own member
  const NamedChart* schedule = find(charts, "schedule-lr");
  ASSERT_NE(schedule, nullptr);
  EXPECT_TRUE(schedule->chart.log_y);
  ASSERT_EQ(schedule->chart.series.size(), 1u);
  EXPECT_EQ(schedule->chart.series[0].x, (std::vector<double>{1, 4, 5, 8, 9, 12}));
  EXPECT_EQ(schedule->chart.series[0].y, (std::vector<double>{0.2, 0.2, 0.24, 0.24, 0.288, 0.288}));
  // The page carries both.
  const std::string page = report_html(h, fit_study_model(h));
  EXPECT_NE(page.find("Lineage of trial 3"), std::string::npos);
  EXPECT_NE(page.find("lr as trial 3 trained"), std::string::npos);
}

TEST(LineageCharts, AStudyWithoutLineageHasNeither) {
  HistorySnapshot h = population();
  for (Trial& t : h.trials) t.from.reset(), t.member.reset();
  const auto charts = study_charts(h);
  EXPECT_EQ(find(charts, "lineage"), nullptr);
  EXPECT_EQ(find(charts, "schedule-lr"), nullptr);
  // A damaged history whose sources loop is drawn without hanging.
  HistorySnapshot loop = population();
  loop.trials[1].from = 3;
  EXPECT_LE(lineage_of(loop, loop.trials[3]).size(), loop.trials.size() + 1);
}

}  // namespace
}  // namespace tune
