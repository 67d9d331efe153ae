// SPDX-License-Identifier: GPL-2.0-or-later
// tune simulate's plan (lib/simulation/experiment): one run per study mode x
// priority x placement, each with the configuration of the tune plugin its
// priority type runs, and the inputs' errors named.
#include "simulation/experiment.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/unit/temp_dir.hpp"

namespace tune::sim {
namespace {

class Experiments : public testing_support::TempDirTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(file(name)) << text;
    return file(name);
  }
  ExperimentSpec spec() {
    ExperimentSpec s;
    s.cluster = write("slurm.conf", "NodeName=n[1-4] CPUs=8 RealMemory=16000 Gres=gpu:2\n");
    // SWF: id, submit, wait, run, procs, ..., requested procs, requested time, ...
    s.jobs = write("w.swf",
                   "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
                   "2 10 -1 100 4 -1 -1 4 200 -1 1 2 1 -1 -1 -1 -1 -1\n");
    return s;
  }
};

TEST_F(Experiments, OneRunPerPriorityAndPlacementEachWithItsPluginsConfiguration) {
  ExperimentSpec s = spec();
  s.priorities = {"fifo", "tune", "multifactor+tune", "tune:stagnation"};
  s.placements = {"cons_tres", "gang"};
  s.loads = {1, 2};
  s.plugin_conf = {{"sched/tune", write("sched.conf", "adaptive = { estimator = \"algorithm1\"; };\n")},
                   {"site_factor/tune", write("site.conf", "adaptive = { max_level = 3; };\n")}};
  const Experiment e = plan_experiment(s);
  EXPECT_EQ(e.cluster.gpus(), 8);
  EXPECT_EQ(e.base.jobs.size(), 2u);
  EXPECT_EQ(e.factors, (std::vector<double>{1, 2}));
  ASSERT_EQ(e.runs.size(), 8u);
  EXPECT_EQ(e.runs[0].label, "fifo+cons_tres");
  EXPECT_EQ(e.runs[1].label, "fifo+gang");
  EXPECT_EQ(e.runs[2].options.tune.adaptive.estimator(), "algorithm1") << "sched/tune's file";
  EXPECT_EQ(e.runs[4].options.tune.adaptive.max_level, 3) << "site_factor/tune's file for multifactor+tune";
  EXPECT_EQ(e.runs[4].options.tune.adaptive.estimator(), "tail");
  EXPECT_EQ(e.runs[6].options.priority, "tune");
  EXPECT_EQ(e.runs[6].options.tune.adaptive.estimator(), "stagnation")
      << "the named estimator over the file's";
  EXPECT_EQ(run_file_name("out", 2, e.runs[6], false, "csv"), "out/x2-tune:stagnation-cons_tres.csv");
  EXPECT_FALSE(e.several_modes) << "no studies: one mode";
}

TEST_F(Experiments, ABadInputIsNamedBeforeAnythingRuns) {
  ExperimentSpec nothing = spec();
  nothing.jobs.clear();
  try {
    plan_experiment(nothing);
    ADD_FAILURE() << "planned nothing";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("give --jobs WORKLOAD, --study HISTORY.h5, or both"),
              std::string::npos);
  }
  ExperimentSpec refused = spec();
  refused.plugin_conf = {{"site_factor/tune", write("site.conf", "fairshare = { weight = 1; };\n")}};
  EXPECT_THROW(plan_experiment(refused), ConfigError) << "site_factor/tune refuses the fairshare group";
  ExperimentSpec missing = spec();
  missing.cluster = file("no-such.conf");
  EXPECT_ANY_THROW(plan_experiment(missing));
}

}  // namespace
}  // namespace tune::sim
