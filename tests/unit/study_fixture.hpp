// SPDX-License-Identifier: GPL-2.0-or-later
// A study of one parameter x in [0, 1], minimised, with its history in a
// fresh directory: the fixture of the tests that drive a real Study.
#pragma once

#include <atomic>
#include <csignal>
#include <future>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "search/sampler.hpp"
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

// A sampler whose proposals after the first are costly and take until the
// test releases them; it counts what it has learnt.
class GatedSampler final : public Sampler {
 public:
  std::string_view name() const override { return "gated"; }
  bool costly(std::uint64_t trial) const override { return trial > 0; }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment>) override {
    if (trial > 0) gate_.wait();
    return Assignment{0.25};
  }
  void observe(const Observation& o) override {
    ++observed;
    known.emplace_back(o.trial, o.known);
  }
  void release() { open_.set_value(); }
  std::atomic<int> observed{0};
  std::vector<std::pair<std::uint64_t, std::optional<std::size_t>>> known;  // per result: trial, what it knew

 private:
  std::promise<void> open_;
  std::shared_future<void> gate_ = open_.get_future().share();
};

}  // namespace tune::testing_support
