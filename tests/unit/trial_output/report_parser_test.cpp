// SPDX-License-Identifier: GPL-2.0-or-later
// The report lines a trial writes on TUNE_REPORT_FD (lib/trial_output/report_parser).
#include "trial_output/report_parser.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "trial_output/stdout_metric.hpp"

namespace tune {
namespace {

TEST(ReportParser, ReadsStepsMetricsAndTheObjective) {
  ReportParser p;
  std::vector<Report> out;
  p.feed("step=1 loss=0.5 acc=0.8\n# a comment\n\nobjective=0.93\n", out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].step, 1);
  ASSERT_EQ(out[0].metrics.size(), 2u);
  EXPECT_EQ(out[0].metrics[1].first, "acc");
  EXPECT_DOUBLE_EQ(out[0].metrics[1].second, 0.8);
  EXPECT_FALSE(out[0].objective);
  EXPECT_DOUBLE_EQ(*out[1].objective, 0.93);
  EXPECT_EQ(p.bad_lines(), 0u);
}

TEST(ReportParser, JoinsLinesSplitAcrossReads) {
  ReportParser p;
  std::vector<Report> out;
  for (char c : std::string("step=12 loss=1e-3\r\nobjective=-2.5")) p.feed(std::string_view(&c, 1), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].step, 12);
  p.finish(out);  // the last line had no newline
  ASSERT_EQ(out.size(), 2u);
  EXPECT_DOUBLE_EQ(*out[1].objective, -2.5);
}

TEST(ReportParser, CountsGarbageAndKeepsGoing) {
  ReportParser p;
  std::vector<Report> out;
  p.feed("hello world\nstep=-1\nloss=abc\n9x=1\nstep=2.5\n\x01\xff=3\nobjective=1\n", out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(*out[0].objective, 1.0);
  EXPECT_EQ(p.bad_lines(), 6u);
  EXPECT_EQ(p.first_error(), "report line 1: 'hello' is not key=value");
}

TEST(ReportParser, DropsHugeLinesWithBoundedMemory) {
  ReportParser p(1024);
  std::vector<Report> out;
  const std::string big(1 << 20, 'x');
  p.feed("objective=", out);
  for (int i = 0; i < 8; ++i) p.feed(big, out);
  p.feed("\nobjective=2\n", out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(*out[0].objective, 2.0);
  EXPECT_EQ(p.bad_lines(), 1u);
  EXPECT_NE(p.first_error().find("longer than 1024 bytes"), std::string::npos);
}

TEST(ReportParser, KeepsNanSoTheDriverCanJudgeIt) {
  std::string error;
  const auto r = ReportParser::parse_line("objective=nan", error);
  ASSERT_TRUE(r);
  EXPECT_TRUE(std::isnan(*r->objective));
}

}  // namespace
}  // namespace tune
