// SPDX-License-Identifier: GPL-2.0-or-later
// Studies meeting the simulated cluster (tune simulate --study): read from
// histories, run as trial jobs under the AppCore's own loop, and the
// priority policies lowering a plateaued one.
#include <gtest/gtest.h>

#include <sstream>

#include "simulation/recorded_studies.hpp"
#include "simulation/simulator.hpp"
#include "simulation/summary.hpp"
#include "simulation/workload.hpp"
#include "tests/unit/simulation/simulation_fixture.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace tune;
using namespace tune::sim;
using tune::testing_support::flat_and_rising;
using tune::testing_support::gpu_cluster;
using tune::testing_support::job;
using tune::testing_support::study_of;
using tune::testing_support::with_studies;

namespace {

class SimulationStudies : public testing_support::TempDirTest {};

SimResult run_studies(const Cluster& c, const Workload& w, const std::string& priority,
                      const std::string& mode, double drain = 60) {
  SimOptions o;
  o.priority = priority;
  o.study_mode = mode;
  o.drain = drain;
  return simulate(c, w, o);
}

}  // namespace

TEST_F(SimulationStudies, ReadFromAHistoryWithItsConcurrencyAndTheSpecsSettings) {
  StudyInfo info;
  info.name = "lr-sweep";
  info.space =
      SearchSpace::parse(R"({"parameters": [{"name": "lr", "type": "bound", "value": [0.0001, 0.1]}]})");
  info.minimize = false;
  info.created = "2026-11-23T00:00:00Z";
  const std::string path = file("s.h5");
  {
    auto h = History::create(path, info);
    // Three at a time: trials 0-2 overlap, 3 starts when 0 ends; 4 was
    // interrupted (run again as 5), 6 still running: neither is replayed.
    const double starts[] = {100, 101, 102, 110, 111, 121, 113};
    const double ends[] = {110, 120, 121, 130, 111.5, 140, 0};
    const TrialState states[] = {TrialState::Ok,     TrialState::Failed,      TrialState::Ok,
                                 TrialState::Ok,     TrialState::Interrupted, TrialState::Ok,
                                 TrialState::Running};
    for (int i = 0; i < 7; ++i) {
      Trial t;
      t.id = static_cast<std::uint64_t>(i);
      t.state = states[i];
      t.params = {0.01};
      if (states[i] == TrialState::Ok) t.objective = 0.5 + 0.1 * i;
      t.start_time = starts[i];
      t.end_time = ends[i];
      h.put(t);
    }
    h.close();
  }
  const SimStudy s = read_study(path + ",target=0.95,gpus=2,account=alice,submit=00:10:00,time-scale=2");
  EXPECT_EQ(s.name, "lr-sweep");
  EXPECT_FALSE(s.minimize);
  ASSERT_EQ(s.trials.size(), 5u);
  EXPECT_EQ(s.parallel, 3);
  EXPECT_DOUBLE_EQ(s.trials[0].duration, 20);  // 10 s x time-scale 2
  EXPECT_EQ(s.trials[1].state, TrialState::Failed);
  EXPECT_FALSE(s.trials[1].objective);
  EXPECT_DOUBLE_EQ(*s.trials[4].objective, 1.0);  // trial 5
  EXPECT_EQ(s.account, "alice");
  EXPECT_DOUBLE_EQ(s.submit, 600);
  EXPECT_EQ(s.gpus, 2);
  ASSERT_TRUE(s.target);
  // Alone: trials 0-2 from 600, trial 3 in trial 0's slot (620-660), trial
  // 5 in trial 1's (638-676) is the first to meet 0.95.
  ASSERT_TRUE(alone_time_to_target(s));
  EXPECT_DOUBLE_EQ(*alone_time_to_target(s), 76);

  auto message = [&](const std::string& spec) {
    try {
      read_study(spec);
    } catch (const WorkloadError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(path + ",gpu=1").find("unknown key 'gpu'"), std::string::npos);
  EXPECT_NE(message(path + ",parallel=0").find("parallel=0"), std::string::npos);
  EXPECT_EQ(read_study(path + ",trials-per-job=4").trials_per_job, 4);
  EXPECT_EQ(read_study(path).trials_per_job, 1);
  EXPECT_NE(message(path + ",trials-per-job=0").find("trials-per-job=0"), std::string::npos);
  EXPECT_NE(message(path + ",target").find("not key=value"), std::string::npos);
  EXPECT_NE(message(path + ",submit=tomorrow").find("not a duration"), std::string::npos);
  // Durations by tune run's rule, Slurm's: a bare number is minutes.
  EXPECT_DOUBLE_EQ(read_study(path + ",submit=5").submit, 300);
  EXPECT_DOUBLE_EQ(read_study(path + ",submit=90s,trial-time-limit=2").trial_time_limit, 120);
  EXPECT_NE(message(file("absent.h5")).find("cannot read"), std::string::npos);
  // tune run --converged and --converged-chance, by the same rule.
  const SimStudy c = read_study(path + ",converged=0.01,converged-chance=0.1");
  ASSERT_TRUE(c.converged);
  EXPECT_EQ(c.converged->margin, 0.01);
  EXPECT_EQ(c.converged->chance, 0.1);
  EXPECT_FALSE(read_study(path).converged);
  EXPECT_EQ(message(path + ",converged-chance=0.1"),
            "--study " + path +
                ",converged-chance=0.1: converged-chance is for converged: give converged=MARGIN too");
  EXPECT_EQ(message(path + ",converged=-1"), "--study " + path +
                                                 ",converged=-1: converged: -1 is not a number above 0 (an "
                                                 "improvement, in the objective's units)");
  EXPECT_NE(message(path + ",converged=0.01,converged-chance=2").find("converged-chance: 2 is not a chance"),
            std::string::npos);
}

TEST_F(SimulationStudies, TrialJobsStopAtTheTargetAndLeaveNoJobBehind) {
  // Objectives 0.1, 0.2, ...: the fifth meets 0.45. Two trial jobs at a time
  // on an idle 4-GPU node: as fast as alone, plus the AppCore's start and
  // the scheduler's passes. Trial i takes 100 + 7i s: two slots run 1, 3, 5
  // (0-363) and 2, 4, 6 (0-384), so trial 6 is cut when 5 meets the target.
  std::vector<double> obj;
  for (int i = 1; i <= 12; ++i) obj.push_back(0.1 * i);
  SimStudy st = study_of("s", "a", obj, 100, 2, 0.45);
  for (std::size_t i = 0; i < st.trials.size(); ++i) st.trials[i].duration = 100 + 7.0 * (i + 1);
  const Workload w = with_studies({st});
  const SimResult r = run_studies(gpu_cluster(1, 4), w, "fifo", "trials");
  ASSERT_EQ(r.studies.size(), 1u);
  const StudyResult& s = r.studies[0];
  const double alone = *alone_time_to_target(w.studies[0]);
  EXPECT_DOUBLE_EQ(alone, 363);
  ASSERT_GE(s.reached, 0);
  EXPECT_GE(s.reached, alone);
  EXPECT_LE(s.reached, alone + 15);
  EXPECT_EQ(s.trials, 5);
  EXPECT_EQ(s.interrupted, 1) << "trial 6 was running when trial 5 met the target";
  int appcores = 0, pending_left = 0, running_after = 0;
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const SimJob& j = job_of(w, r, i);
    appcores += j.kind == SimJob::Kind::AppCore;
    if (!r.jobs[i].cancelled && r.jobs[i].start < 0) ++pending_left;
    if (r.jobs[i].end > s.ended + 1e-9) ++running_after;
  }
  EXPECT_EQ(appcores, 1);
  EXPECT_EQ(pending_left, 0) << "every job of the study started or was cancelled";
  EXPECT_EQ(running_after, 0) << "no job of the study outlives it";
  EXPECT_EQ(s.jobs, static_cast<int>(r.study_jobs.size()));
  const Summary sum = summarise("fifo", gpu_cluster(1, 4), w, r);
  EXPECT_EQ(sum.time_to_target.n, 1);
  EXPECT_DOUBLE_EQ(sum.time_to_target_bound, 363);
  EXPECT_NE(format_studies({sum}).find("1/1"), std::string::npos);
  std::ostringstream csv;
  write_jobs_csv(csv, w, r);
  EXPECT_NE(csv.str().find(",kind,study,cancelled,ended_by_study"), std::string::npos);
  EXPECT_NE(csv.str().find(",appcore,s,"), std::string::npos);
}

TEST_F(SimulationStudies, TrialJobsRunSeveralTrialsEachUnderTheAppCoresOwnLoop) {
  // 12 trials of 100 s, 3 per job, 2 jobs at a time, no target: the
  // AppCore's TrialJobsController submits 4 jobs in all, each with 3 trials'
  // limits plus a minute. Trial 5 outlasts its 300 s limit: its job ends it
  // there (a timeout, no objective) and runs its next trial.
  std::vector<double> obj(12, 0.5);
  SimStudy st = study_of("s", "a", obj, 100, 2, std::nullopt);
  st.trials_per_job = 3;
  st.trial_time_limit = 300;
  st.trials[4].duration = 1000;
  const Workload w = with_studies({st});
  const SimResult r = run_studies(gpu_cluster(1, 4), w, "fifo", "trials");
  const StudyResult& s = r.studies.at(0);
  EXPECT_EQ(s.trials, 12);
  EXPECT_EQ(s.interrupted, 0);
  int trial_jobs = 0;
  double longest = 0;
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const SimJob& j = job_of(w, r, i);
    if (j.kind != SimJob::Kind::Trial) continue;
    ++trial_jobs;
    EXPECT_DOUBLE_EQ(j.time_limit, 3 * 300 + 60) << "trial_job_time_limit(300, 3)";
    EXPECT_FALSE(r.jobs[i].cancelled);
    EXPECT_FALSE(r.jobs[i].timed_out);
    EXPECT_FALSE(r.jobs[i].ended_by_study) << "a job that ran its trials exits on its own";
    longest = std::max(longest, r.jobs[i].end - r.jobs[i].start);
  }
  EXPECT_EQ(trial_jobs, 4);
  EXPECT_DOUBLE_EQ(longest, 300 + 2 * 100) << "the job that held trial 5";
  ASSERT_TRUE(s.best);
  EXPECT_DOUBLE_EQ(*s.best, 0.5);
}

TEST_F(SimulationStudies, SchedTunePutsAPlateauedStudysTrialJobsBehindAnImprovingOne) {
  // One GPU, two studies of two trial jobs at a time (one runs, the others
  // wait: the order of the waiting ones is the policy's).
  const Workload w = flat_and_rising();
  const Cluster c = gpu_cluster(1, 1);
  const SimResult fifo = run_studies(c, w, "fifo", "trials");
  const SimResult tn = run_studies(c, w, "tune", "trials");
  ASSERT_GE(fifo.studies[1].reached, 0);
  ASSERT_GE(tn.studies[1].reached, 0);
  EXPECT_GE(tn.studies[0].max_level, 1);
  EXPECT_EQ(tn.studies[1].max_level, 0);
  EXPECT_EQ(fifo.studies[0].max_level, 0) << "no levels without sched/tune";
  EXPECT_LT(tn.studies[1].reached, 0.8 * fifo.studies[1].reached)
      << "fifo " << fifo.studies[1].reached << " s, sched/tune " << tn.studies[1].reached << " s";
  EXPECT_EQ(tn.studies[0].trials, 60) << "the plateaued study still runs every trial";
}

TEST_F(SimulationStudies, AConvergedStudyEndsItselfAndItsGpusGoToTheOthers) {
  // The plateaued study of flat_and_rising with tune run --converged: it ends
  // long before its 60 trials in both modes, leaves no job behind, and the
  // improving study meets its target sooner than beside the full budget.
  // Its results tie at 0.5 with a few below, as accuracies at a ceiling do.
  for (const std::string mode : {"trials", "whole"}) {
    Workload w = flat_and_rising();
    for (std::size_t i = 0; i < w.studies[0].trials.size(); i += 4) w.studies[0].trials[i].objective = 0.45;
    const Cluster c = gpu_cluster(1, mode == "whole" ? 2 : 1);  // a whole study holds its 2 GPUs at once
    const SimResult full = run_studies(c, w, "drf", mode);
    w.studies[0].converged = ConvergenceRule{0.01};
    const SimResult ended = run_studies(c, w, "drf", mode);
    const StudyResult& flat = ended.studies[0];
    EXPECT_LT(full.studies[0].converged, 0) << mode;
    ASSERT_GE(flat.converged, 0) << mode;
    EXPECT_LT(flat.reached, 0) << mode;
    EXPECT_LT(flat.trials, 30) << mode;
    EXPECT_GE(flat.trials, 5) << mode << ": not before the tail estimator judges";
    EXPECT_EQ(full.studies[0].trials, 60) << mode;
    EXPECT_GE(flat.ended, flat.converged) << mode;
    EXPECT_LE(flat.ended, flat.converged + 120) << mode << ": a running trial is ended, not waited for";
    ASSERT_GE(ended.studies[1].reached, 0) << mode;
    EXPECT_LT(ended.studies[1].reached, full.studies[1].reached) << mode;
    for (std::size_t i = 0; i < ended.jobs.size(); ++i) {
      if (ended.study_jobs.empty() || job_of(w, ended, i).study != 0) continue;
      EXPECT_TRUE(ended.jobs[i].cancelled || ended.jobs[i].start >= 0)
          << mode << ": job " << i << " left pending";
      EXPECT_LE(ended.jobs[i].end, flat.ended + 1e-9) << mode;
    }
    std::ostringstream csv;
    write_studies_csv(csv, w, ended);
    std::istringstream in(csv.str());
    std::string header, row;
    std::getline(in, header), std::getline(in, row);
    std::ostringstream since;
    since << flat.converged - flat.submitted;
    EXPECT_EQ(row.substr(row.rfind(',') + 1), since.str()) << row;
  }
}

TEST_F(SimulationStudies, SiteFactorTuneUnderMultifactorPutsThePlateauedStudyBehind) {
  // As above, under priority/multifactor: both accounts start with the same
  // fair share; the plateaued study's SITE term puts its pending trial jobs
  // behind the improving one's, as site_factor/tune does in slurmctld.
  const Workload w = flat_and_rising();
  const Cluster c = gpu_cluster(1, 1);
  const SimResult mf = run_studies(c, w, "multifactor", "trials");
  const SimResult st = run_studies(c, w, "multifactor+tune", "trials");
  ASSERT_GE(mf.studies[1].reached, 0);
  ASSERT_GE(st.studies[1].reached, 0);
  EXPECT_EQ(mf.studies[0].max_level, 0) << "no levels without the plugin";
  EXPECT_GE(st.studies[0].max_level, 1);
  EXPECT_EQ(st.studies[1].max_level, 0);
  EXPECT_LT(st.studies[1].reached, mf.studies[1].reached)
      << "multifactor " << mf.studies[1].reached << " s, with site_factor/tune " << st.studies[1].reached
      << " s";
  EXPECT_EQ(st.studies[0].trials, 60) << "the plateaued study still runs every trial";
  EXPECT_EQ(run_studies(c, w, "fairshare", "trials").studies[1].reached, mf.studies[1].reached)
      << "fairshare is multifactor's other name";
  EXPECT_THROW(run_studies(c, w, "multifactor+sched", "trials"), std::invalid_argument);
}

TEST_F(SimulationStudies, TailEstimatorLowersAStudyAtItsCeilingAndFalseLoweringsAreCounted) {
  // "flat" repeats one value (a ceiling) until its 12th result jumps 60%
  // (then flat again): the tail estimator lowers it at its 5th result, and
  // that lowering is false (it improved within 10 results). "rising"
  // improves steadily to its target: never lowered. The oracle knows flat
  // never meets its target and puts it behind from the start.
  std::vector<double> flat(40, 0.5), rising;
  for (std::size_t i = 11; i < flat.size(); ++i) flat[i] = 0.8;
  for (int i = 1; i <= 40; ++i) rising.push_back(static_cast<double>(i) * i);
  const Workload w =
      with_studies({study_of("flat", "f", flat, 60, 2, 0.95), study_of("rising", "r", rising, 60, 2, 900.0)});
  const Cluster c = gpu_cluster(1, 1);
  SimOptions o;
  o.priority = "tune";
  o.tune.adaptive.use("tail");
  const SimResult tail = simulate(c, w, o);
  ASSERT_FALSE(tail.studies[0].lowered_at.empty());
  EXPECT_EQ(tail.studies[0].lowered_at.front(), 5);
  EXPECT_GE(tail.studies[0].false_lowerings, 1);
  EXPECT_TRUE(tail.studies[1].lowered_at.empty()) << "the improving study is never lowered";
  EXPECT_GT(tail.studies[1].judgements, 0);
  const Summary sum = summarise("tune:tail", c, w, tail);
  EXPECT_EQ(sum.false_lowerings, tail.studies[0].false_lowerings);
  // flat's last improvement is its 12th result (0.8), 7 results after its
  // first lowering: a lag of -7; rising meets its target, so it has none.
  EXPECT_EQ(tail.studies[0].last_improvement, 12);
  EXPECT_EQ(sum.lags, std::vector<std::int64_t>{-7});
  EXPECT_EQ(sum.never_lowered, 0);
  EXPECT_NE(format_studies({sum}).find("-7 [-7, -7]"), std::string::npos) << format_studies({sum});
  EXPECT_NE(
      format_studies({sum}).find(std::to_string(sum.false_lowerings) + "/" + std::to_string(sum.lowerings)),
      std::string::npos);
  const SimResult fifo = run_studies(c, w, "fifo", "trials");
  const SimResult oracle = run_studies(c, w, "oracle", "trials");
  ASSERT_GE(oracle.studies[1].reached, 0);
  EXPECT_LT(oracle.studies[1].reached, fifo.studies[1].reached);
  EXPECT_LE(oracle.studies[1].reached, tail.studies[1].reached + 1e-9)
      << "nothing beats knowing the future here";
  EXPECT_TRUE(oracle.studies[0].lowered_at.empty()) << "an oracle judges nothing";
  // The evidence oracle lowers flat only once its results hold its final
  // best (0.8) twice: between the oracle and FIFO.
  const SimResult evidence = run_studies(c, w, "evidence-oracle", "trials");
  ASSERT_GE(evidence.studies[1].reached, 0);
  EXPECT_LE(oracle.studies[1].reached, evidence.studies[1].reached);
  EXPECT_LT(evidence.studies[1].reached, fifo.studies[1].reached);
  // The reports oracle sees a trial's result from its start, as if its first
  // epochs told where it ends: flat lowered a trial's length sooner.
  const SimResult reports = run_studies(c, w, "reports-oracle", "trials");
  ASSERT_GE(reports.studies[1].reached, 0);
  EXPECT_LE(oracle.studies[1].reached, reports.studies[1].reached);
  EXPECT_LT(reports.studies[1].reached, evidence.studies[1].reached);
  const SimResult mf_oracle = run_studies(c, w, "multifactor+oracle", "trials");
  EXPECT_LE(mf_oracle.studies[1].reached, run_studies(c, w, "multifactor", "trials").studies[1].reached);
}

TEST_F(SimulationStudies, TheFinalBestOracleActsAtALastImprovementThatNeverRepeats) {
  // "flat" finds its final best (0.5) at its 3rd result and never ties it
  // (a continuous metric): the evidence oracle, waiting for a tie, never
  // lowers it, the final-best oracle does from its 3rd result on (the late
  // oracle from its 8th), under priority/basic, multifactor and sched/tune's
  // DRF alike, and "rising"
  // reaches its target sooner than without it, never sooner than with the
  // fate oracle.
  std::vector<double> flat = {0.1, 0.3, 0.5}, rising;
  for (int i = 0; i < 37; ++i) flat.push_back(0.2 + 0.001 * i);
  for (int i = 1; i <= 40; ++i) rising.push_back(static_cast<double>(i) * i);
  const Workload w =
      with_studies({study_of("flat", "f", flat, 60, 2, 0.95), study_of("rising", "r", rising, 60, 2, 900.0)});
  const Cluster c = gpu_cluster(1, 1);
  for (const std::string base : {"", "multifactor+", "drf+"}) {
    const std::string none = base.empty() ? "fifo" : base.substr(0, base.size() - 1);
    const double alone = run_studies(c, w, none, "trials").studies[1].reached;
    const double fate = run_studies(c, w, base + "oracle", "trials").studies[1].reached;
    const double last = run_studies(c, w, base + "final-best-oracle", "trials").studies[1].reached;
    ASSERT_GE(fate, 0) << none;
    ASSERT_GE(last, 0) << none;
    EXPECT_LE(fate, last) << none;
    EXPECT_LT(last, alone) << none << ": the final-best oracle lowers flat after its 3rd result";
    if (base != "") {  // the late oracle, 5 results after flat's last improvement: between the two
      const double late = run_studies(c, w, base + "late-oracle", "trials").studies[1].reached;
      EXPECT_LT(last, late) << none;
      EXPECT_LT(late, alone) << none;
    }
    if (base != "drf+") {
      EXPECT_EQ(run_studies(c, w, base + "evidence-oracle", "trials").studies[1].reached, alone)
          << none << ": no tie, so the evidence oracle never acts";
    }
  }
  // With 200 s trials rising needs 100 minutes of the GPU: under FIFO the
  // two studies alternate and flat holds about half of the first hour; the
  // fate oracle gives that hour to rising.
  const Workload slow = with_studies(
      {study_of("flat", "f", flat, 200, 2, 0.95), study_of("rising", "r", rising, 200, 2, 900.0)});
  const Summary fifo = summarise("fifo", c, slow, run_studies(c, slow, "fifo", "trials"));
  const Summary fate = summarise("oracle", c, slow, run_studies(c, slow, "oracle", "trials"));
  ASSERT_EQ(fifo.plateau_gpu_share.size(), std::size(Summary::kShareHours));
  EXPECT_GT(fifo.plateau_gpu_share[0], 0.3);
  EXPECT_LT(fate.plateau_gpu_share[0], 0.1);
  EXPECT_NE(format_plateau_share({fifo, fate}).find("oracle"), std::string::npos);
}

TEST_F(SimulationStudies, TheStudiesCsvShowsTheLagFromTheLastImprovementToTheFirstLowering) {
  // "flat" finds its final best at its 3rd result and repeats it; sched/tune
  // lowers it some results later; "rising" meets its target and has no lag.
  std::vector<double> flat = {0.1, 0.3, 0.5}, rising;
  flat.resize(40, 0.5);
  for (int i = 1; i <= 40; ++i) rising.push_back(static_cast<double>(i) * i);
  const Workload w =
      with_studies({study_of("flat", "f", flat, 60, 2, 0.95), study_of("rising", "r", rising, 60, 2, 900.0)});
  const SimResult r = run_studies(gpu_cluster(1, 1), w, "tune", "trials");
  const StudyResult& f = r.studies[0];
  ASSERT_FALSE(f.lowered_at.empty());
  ASSERT_EQ(f.lowered_time.size(), f.lowered_at.size());
  EXPECT_EQ(f.last_improvement, 3);
  EXPECT_GT(f.last_improvement_time, f.submitted);
  EXPECT_GT(f.lowered_time.front(), f.last_improvement_time);
  std::ostringstream csv;
  write_studies_csv(csv, w, r);
  std::istringstream in(csv.str());
  std::string header, row_flat, row_rising;
  std::getline(in, header), std::getline(in, row_flat), std::getline(in, row_rising);
  EXPECT_EQ(header,
            "study,account,target,reached,best,results,last_improvement,last_improvement_time,first_lowered,"
            "first_lowered_time,lag,lag_seconds,max_level,lowerings,false_lowerings,converged");
  const auto fields = [](const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) out.push_back(x);
    if (!line.empty() && line.back() == ',') out.emplace_back();
    return out;
  };
  const auto a = fields(row_flat), b = fields(row_rising);
  ASSERT_EQ(a.size(), 16u) << row_flat;
  ASSERT_EQ(b.size(), 16u) << row_rising;
  EXPECT_EQ(a[0], "flat");
  EXPECT_EQ(a[3], "") << "never reached";
  EXPECT_EQ(a[6], "3");
  EXPECT_EQ(a[8], std::to_string(f.lowered_at.front()));
  EXPECT_EQ(a[10], std::to_string(f.lowered_at.front() - 3));
  EXPECT_GT(std::stod(a[11]), 0);
  EXPECT_EQ(b[0], "rising");
  EXPECT_NE(b[3], "") << "reached";
  EXPECT_EQ(b[10], "") << "a study that met its target has no lag";
  EXPECT_EQ(a[15], "") << "no converged=: it ran its budget";
}

TEST_F(SimulationStudies, DrfIsSchedTuneWithItsAdaptivePriorityOff) {
  // The honest baseline of the yield: sched/tune's own DRF fair share, its
  // adaptive priority off whatever the configuration says: it never lowers
  // a study, as sched/tune with adaptive.enabled = false does not.
  std::vector<double> flat(40, 0.5), rising;
  for (int i = 1; i <= 40; ++i) rising.push_back(static_cast<double>(i) * i);
  const Workload w =
      with_studies({study_of("flat", "f", flat, 60, 2, 0.95), study_of("rising", "r", rising, 60, 2, 900.0)});
  const Cluster c = gpu_cluster(1, 1);
  const SimResult drf = run_studies(c, w, "drf", "trials");
  const SimResult tune = run_studies(c, w, "tune", "trials");
  EXPECT_EQ(drf.studies[0].max_level, 0);
  EXPECT_TRUE(drf.studies[0].lowered_at.empty());
  EXPECT_GE(tune.studies[0].max_level, 1);
  SimOptions off;
  off.priority = "tune";
  off.study_mode = "trials";
  off.drain = 60;
  off.tune.adaptive_enabled = false;
  const SimResult tune_off = simulate(c, w, off);
  EXPECT_EQ(drf.studies[1].reached, tune_off.studies[1].reached);
  EXPECT_EQ(run_studies(c, w, "tune-fairshare", "trials").studies[1].reached, drf.studies[1].reached)
      << "tune-fairshare is drf's other name";
}

TEST_F(SimulationStudies, AWholeStudyYieldsDrainsRequeuesAndLosesNoTrial) {
  // "flat" holds the only GPU as one allocation; another account's job
  // arrives and waits. Once flat's level reaches sched/tune's yield level
  // (its 16th result) and the job has waited yield.wait, flat is asked to
  // yield: its running trial is cut after the drain, the job runs, and
  // flat resumes from its history until every trial is replayed.
  std::vector<double> flat(40, 0.5);
  const Workload w =
      with_studies({study_of("flat", "f", flat, 60, 1, std::nullopt)}, {job("other", 100, 600, 1, 900, "o")});
  const SimResult r = run_studies(gpu_cluster(1, 1), w, "tune", "whole", 10);
  const StudyResult& s = r.studies[0];
  EXPECT_GE(s.yields, 1);
  EXPECT_GE(s.max_level, 2);
  EXPECT_GE(s.interrupted, 1) << "a 60 s trial does not end within a 10 s drain";
  EXPECT_EQ(s.trials, 40) << "interrupted trials run again";
  EXPECT_GE(s.jobs, 2) << "requeued as a new allocation";
  ASSERT_GE(r.jobs[0].start, 0);
  EXPECT_LT(r.jobs[0].start, s.ended - 600) << "the other job ran before flat finished";
  const SimResult fifo = run_studies(gpu_cluster(1, 1), w, "fifo", "whole", 10);
  EXPECT_EQ(fifo.studies[0].yields, 0);
  EXPECT_GT(fifo.jobs[0].start, r.jobs[0].start);
}
