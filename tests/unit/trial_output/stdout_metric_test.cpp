// SPDX-License-Identifier: GPL-2.0-or-later
// The objective read from a program's stdout (lib/trial_output/stdout_metric).
#include "trial_output/stdout_metric.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "trial_output/report_parser.hpp"

namespace tune {
namespace {

TEST(StdoutMetric, TakesTheLastMatchOfTheFirstGroup) {
  StdoutMetric m(R"(val_acc[:=] *([0-9.eE+-]+))");
  m.feed("epoch 1 val_acc: 0.5\nepoch 2 val_acc: 0.7");
  EXPECT_DOUBLE_EQ(*m.value(), 0.5);
  m.finish();
  EXPECT_DOUBLE_EQ(*m.value(), 0.7);
}

TEST(StdoutMetric, RejectsABadPatternByName) {
  try {
    StdoutMetric m("acc=([0-9");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--metric-regex 'acc=([0-9'"), std::string::npos);
  }
}

}  // namespace
}  // namespace tune
