// SPDX-License-Identifier: GPL-2.0-or-later
// A tune simulate run (lib/simulation/experiment_run): the tables for each
// arrival factor, one file of each asked-for kind per run, replicates, and
// a file that cannot be written named, with the files kept in memory.
#include "simulation/experiment_run.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "tests/unit/temp_dir.hpp"

namespace tune::sim {
namespace {

// Keeps each file's text; a path under `broken` cannot be opened.
class Kept final : public FileSink {
 public:
  std::unique_ptr<std::ostream> open(const std::string& path) override {
    auto s = std::make_unique<Stream>(files[path]);
    if (!broken.empty() && path.rfind(broken, 0) == 0) s->setstate(std::ios::badbit);
    return s;
  }
  std::map<std::string, std::string> files;
  std::string broken;

 private:
  struct Stream : std::ostringstream {
    explicit Stream(std::string& into) : into_(into) {}
    ~Stream() override { into_ = str(); }
    std::string& into_;
  };
};

class ExperimentRun : public testing_support::TempDirTest {
 protected:
  Experiment plan() {
    ExperimentSpec s;
    s.cluster = file("slurm.conf");
    std::ofstream(s.cluster) << "NodeName=n[1-2] CPUs=8 RealMemory=16000 Gres=gpu:2\n";
    s.jobs = file("w.swf");
    std::ofstream(s.jobs) << "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
                             "2 10 -1 100 4 -1 -1 4 200 -1 1 2 1 -1 -1 -1 -1 -1\n"
                             "3 20 -1 50 8 -1 -1 8 200 -1 1 1 1 -1 -1 -1 -1 -1\n";
    s.priorities = {"fifo", "multifactor"};
    s.loads = {1, 2};
    return plan_experiment(s);
  }
};

TEST_F(ExperimentRun, TablesForEachFactorAndOneFileOfEachKindPerRun) {
  Kept files;
  std::ostringstream text;
  run_experiment(plan(), {.csv_dir = "out", .sprio_dir = "sp", .html = "page.html"}, text, files);
  const std::string t = text.str();
  EXPECT_NE(t.find("cluster: "), std::string::npos) << t;
  EXPECT_NE(t.find("workload: "), std::string::npos);
  EXPECT_NE(t.find("== arrivals x1:"), std::string::npos);
  EXPECT_NE(t.find("== arrivals x2:"), std::string::npos);
  EXPECT_NE(t.find("bounds: mean JCT >= "), std::string::npos);
  EXPECT_NE(t.find("report: page.html"), std::string::npos);
  // 2 factors x 2 priorities: a jobs CSV and a trace each, and the page.
  std::size_t csv = 0, sprio = 0;
  for (const auto& [path, body] : files.files) {
    csv += path.rfind("out/", 0) == 0;
    sprio += path.rfind("sp/", 0) == 0;
    EXPECT_FALSE(body.empty()) << path;
  }
  EXPECT_EQ(csv, 4u);
  EXPECT_EQ(sprio, 4u);
  EXPECT_NE(files.files.at("page.html").find("<html"), std::string::npos);
  EXPECT_NE(files.files.at("out/x1-fifo-cons_tres.csv").find("job,account"), std::string::npos)
      << files.files.at("out/x1-fifo-cons_tres.csv").substr(0, 200);
}

TEST_F(ExperimentRun, ReplicatesPrintTheirRange) {
  Kept files;
  std::ostringstream text;
  run_experiment(plan(), {.replicates = 3, .jitter = 5}, text, files);
  EXPECT_NE(text.str().find("across 3 replicates (arrivals jittered by 0-5s after the first)"),
            std::string::npos)
      << text.str();
  EXPECT_TRUE(files.files.empty()) << "no file asked for";
}

TEST_F(ExperimentRun, AFileThatCannotBeWrittenIsNamed) {
  Kept files;
  files.broken = "out/";
  std::ostringstream text;
  try {
    run_experiment(plan(), {.csv_dir = "out"}, text, files);
    FAIL() << "no error";
  } catch (const ExperimentError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot write out/x1-", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace tune::sim
