// SPDX-License-Identifier: GPL-2.0-or-later
// A study of one parameter x in [0, 1], minimised, with its history in a
// fresh directory: the fixture of the tests that drive a real Study.
#pragma once

#include <csignal>

#include "study/study.hpp"
#include "temp_dir.hpp"

namespace tune::testing_support {

class OneParameterStudy : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    info_.name = "s";
    info_.space = SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})");
    info_.minimize = true;
  }
  std::string path() const { return file("h.h5"); }

  // A trial's run: it exited 0 and reported `objective`.
  static TrialRun ok(std::uint64_t trial, double objective, double start) {
    TrialRun r;
    r.trial = trial;
    r.exited = true;
    r.exit_code = 0;
    r.objective = objective;
    r.start_time = start;
    r.end_time = start + 1;
    return r;
  }
  static TrialRun ok(const Trial& t, double objective) { return ok(t.id, objective, t.start_time); }
  static TrialRun crashed(const Trial& t) {
    TrialRun r = ok(t, 0);
    r.objective.reset();
    r.exited = false;
    r.signal = SIGSEGV;
    return r;
  }

  StudyInfo info_;
};

}  // namespace tune::testing_support
