// SPDX-License-Identifier: GPL-2.0-or-later
// lib/simulation: the readers, and the model of Slurm's schedulers on small
// cases whose outcome Slurm's rules decide.
#include "simulation/simulator.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "placement/cons_tres_placement.hpp"
#include "placement/fragmentation_placement.hpp"
#include "simulation/cluster.hpp"
#include "simulation/recorded_studies.hpp"
#include "simulation/summary.hpp"
#include "simulation/text.hpp"
#include "simulation/validation.hpp"
#include "simulation/workload.hpp"
#include "tests/unit/simulation/simulation_fixture.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace tune;
using namespace tune::sim;
using tune::testing_support::gpu_cluster;
using tune::testing_support::job;

namespace {

SimResult run(const Cluster& c, const std::vector<SimJob>& jobs, const std::string& priority = "fifo",
              const std::string& placement = "cons_tres") {
  Workload w;
  w.jobs = jobs;
  SimOptions o;
  o.priority = priority;
  o.placement = placement;
  return simulate(c, w, o);
}

}  // namespace

TEST(SimulationInput, HostListsExpandLikeSlurms) {
  EXPECT_EQ(expand_hostlist("node[01-03,7],gpu5"),
            (std::vector<std::string>{"node01", "node02", "node03", "node7", "gpu5"}));
  EXPECT_EQ(expand_hostlist("a[1-2]-ib").size(), 2u);
  EXPECT_EQ(expand_hostlist("a[1-2]-ib")[1], "a2-ib");
  EXPECT_THROW(expand_hostlist("node[1-"), ClusterError);
  EXPECT_THROW(expand_hostlist("node[x-3]"), ClusterError);
}

TEST(SimulationInput, SlurmConfNodesGresSchedulerAndTopology) {
  const std::string conf =
      "# a site\nNodeName=DEFAULT CPUs=8 RealMemory=32000\nNodeName=gpu[1-4] Gres=gpu:a100:4 CPUs=64\n"
      "NodeName=cpu[1-2] Sockets=2 CoresPerSocket=4 ThreadsPerCore=2\n"
      "SchedulerParameters=bf_interval=10,bf_window=60,bf_max_job_test=50,default_queue_depth=7\n"
      "PriorityType=priority/multifactor\nPriorityWeightAge=500\nPriorityWeightFairshare=9000\n";
  const Cluster c = parse_slurm_conf(conf, "slurm.conf",
                                     "SwitchName=s0 Nodes=gpu[1-2]\nSwitchName=s1 Nodes=gpu[3-4],cpu[1-2]\n");
  ASSERT_EQ(c.topology.nodes.size(), 6u);
  EXPECT_EQ(c.gpus(), 16);
  EXPECT_EQ(c.topology.nodes[0].cores, 64);
  EXPECT_EQ(c.topology.nodes[4].cores, 16);
  EXPECT_EQ(c.topology.nodes[4].mem_mb, 32000);
  EXPECT_EQ(c.topology.nodes[1].switch_id, 0);
  EXPECT_EQ(c.topology.nodes[2].switch_id, 1);
  EXPECT_EQ(c.settings.bf_interval, 10);
  EXPECT_EQ(c.settings.bf_window, 3600);
  EXPECT_EQ(c.settings.bf_max_job_test, 50);
  EXPECT_EQ(c.settings.default_queue_depth, 7);
  EXPECT_EQ(c.settings.weight_fairshare, 9000);
  EXPECT_THROW(parse_slurm_conf("ClusterName=x\n", "empty.conf"), ClusterError);
  try {
    parse_slurm_conf("NodeName=a CPUs=lots\n", "bad.conf");
    FAIL();
  } catch (const ClusterError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.conf:1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_slurm_conf("NodeName=a CPUs=4\n", "s.conf", "SwitchName=s Nodes=b\n"), ClusterError);
}

// A history's trial jobs carry their progress records in sacct's Comment:
// the replay reads them as site_factor/tune did, so a plateaued study's
// trial jobs are lowered in the replay too; other records (an AppCore's,
// which changed while it ran) are left out.
TEST(SimulationInput, SacctCommentsGiveTheReplayTheTrialJobsRecords) {
  const std::string flat = "tune:study=flat;n=40;dir=max;top=0.5,0.5,0.5,0.5,0.5;role=trial";
  std::string text = "JobID|User|Account|Submit|Start|End|NCPUS|AllocTRES|Comment\n";
  auto t = [](int s) {
    char b[32];
    std::snprintf(b, sizeof b, "2026-11-22T10:%02d:%02d", s / 60, s % 60);
    return std::string(b);
  };
  // alice's trial jobs and bob's plain jobs, one GPU each, all waiting for the one GPU.
  for (int i = 0; i < 6; ++i) {
    text += std::to_string(100 + i) + "|alice|lab-d|" + t(i) + "|" + t(60 * i + 1) + "|" + t(60 * i + 50) +
            "|1|cpu=1,gres/gpu=1|" + flat + "\n";
    text += std::to_string(200 + i) + "|bob|lab-a|" + t(i) + "|" + t(60 * i + 1) + "|" + t(60 * i + 50) +
            "|1|cpu=1,gres/gpu=1|a note | with a pipe\n";
  }
  text += "300|alice|lab-d|" + t(0) + "|" + t(0) + "|" + t(599) + "|1|cpu=1|" +
          "tune:study=flat;n=40;dir=max;top=0.5,0.5,0.5,0.5,0.5;role=appcore\n";
  const Workload w = parse_workload(text, "sacct.txt");
  ASSERT_EQ(w.jobs.size(), 13u);
  EXPECT_EQ(w.jobs[1].comment, "a note | with a pipe") << "a '|' in the last column is folded back";
  EXPECT_EQ(w.jobs[0].comment, flat);
  SimOptions o;
  o.priority = "multifactor+tune";
  std::stringstream trace;
  o.trace = &trace;
  simulate(testing_support::gpu_cluster(1, 1), w, o);
  int lowered = 0, bobs_lowered = 0, rows = 0;
  for (std::string line; std::getline(trace, line);) {
    std::istringstream in(line);
    std::string time, pass, id, account, study, level, age, fs;
    long long site = 0;
    in >> time >> pass >> id >> account >> study >> level >> age >> fs >> site;
    ++rows;
    if (account == "lab-d") lowered += site < 0;
    if (account == "lab-a") bobs_lowered += site < 0;
  }
  EXPECT_GT(rows, 0);
  EXPECT_GT(lowered, 0) << "alice's trial jobs, whose records show a plateau, are lowered";
  EXPECT_EQ(bobs_lowered, 0);
  EXPECT_TRUE(parse_slurm_conf("NodeName=a CPUs=4\nPriorityFlags=SMALL_RELATIVE_TO_TIME,MAX_TRES\n", "s.conf")
                  .settings.max_tres);
  EXPECT_FALSE(parse_slurm_conf("NodeName=a CPUs=4\n", "s.conf").settings.max_tres);
  EXPECT_TRUE(parse_slurm_conf("NodeName=a CPUs=4\n", "s.conf").settings.fair_tree) << "Slurm's default";
  EXPECT_FALSE(parse_slurm_conf("NodeName=a CPUs=4\nPriorityFlags=MAX_TRES,NO_FAIR_TREE\n", "s.conf")
                   .settings.fair_tree);
  EXPECT_FALSE(
      parse_slurm_conf("NodeName=a CPUs=4\nPriorityFlags=DEPTH_OBLIVIOUS\n", "s.conf").settings.fair_tree);
}

// Slurm's decay thread charges running jobs every PriorityCalcPeriod (300 s
// here); what a job ran between the last pass and its end is never charged
// (a 10 s job between two passes leaves RawUsage at 0 on Slurm 22.05 and
// 26.05). a's 290 s job ends before the first pass: a is charged nothing,
// b's job is charged the 50 s it ran before the pass at 300 s. So at 400 s
// a's job goes first (charging at the end would have charged a 290 s).
TEST(SimulationModel, MultifactorChargesOnlyAtItsPassesAsSlurmDoes) {
  auto cpu_job = [](const std::string& account, double submit, double runtime, int cpus) {
    SimJob j = job(account, submit, runtime, 0, runtime * 2, account);
    j.cpus = cpus;
    return j;
  };
  Workload w;
  w.jobs = {cpu_job("a", 0, 290, 1), cpu_job("b", 250, 150, 1), cpu_job("b", 360, 10, 2),
            cpu_job("a", 361, 10, 2)};
  SimOptions o;
  o.priority = "multifactor";
  const SimResult r = simulate(gpu_cluster(1, 0, 2), w, o);
  ASSERT_GE(r.jobs[2].start, 0);
  ASSERT_GE(r.jobs[3].start, 0);
  EXPECT_LT(r.jobs[3].start, r.jobs[2].start) << "a, never charged, before b";
}

TEST(SimulationInput, SacctPipesInNamesUnknownTimesAndTres) {
  const std::string text =
      "JobID|JobName|User|Account|Submit|Start|End|Timelimit|NNodes|NCPUS|AllocTRES\n"
      "10|train|a|b|alice|physics|2026-11-22T10:00:00|2026-11-22T10:00:30|2026-11-22T11:00:30|02:00:00|1|8|"
      "billing=8,cpu=8,gres/gpu=2,mem=16G,node=1\n"
      "11|never|alice|physics|2026-11-22T10:01:00|Unknown|Unknown|1-00:00:00|1|1|\n"
      "12|cpu|bob||2026-11-22T10:02:00|2026-11-22T10:02:00|2026-11-22T10:03:00|UNLIMITED|2|4|cpu=4,mem="
      "4000M\n";
  const Workload w = parse_workload(text, "sacct.txt");
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.skipped, 1);
  EXPECT_EQ(w.jobs[0].name, "10");
  EXPECT_EQ(w.jobs[0].user, "alice");
  EXPECT_EQ(w.jobs[0].account, "physics");
  EXPECT_EQ(w.jobs[0].gpus, 2);
  EXPECT_EQ(w.jobs[0].cpus, 8);
  EXPECT_EQ(w.jobs[0].mem_mb, 16 * 1024);
  EXPECT_EQ(w.jobs[0].runtime, 3600);
  EXPECT_EQ(w.jobs[0].time_limit, 7200);
  EXPECT_EQ(w.jobs[0].submit, 0);
  EXPECT_EQ(w.jobs[0].recorded_start, 30);
  EXPECT_EQ(w.jobs[1].submit, 120);
  EXPECT_EQ(w.jobs[1].recorded_start, 120);
  EXPECT_EQ(compress(w, 2).jobs[0].recorded_start, -1);  // a compressed replay has no history to match
  EXPECT_EQ(w.jobs[1].account, "user:bob");
  EXPECT_EQ(w.jobs[1].time_limit, 0);
  EXPECT_EQ(w.jobs[1].nodes, 2);
  try {
    parse_workload("JobID|Submit|Start|End\n1|2026-11-22T10:00:00|yesterday|2026-11-22T10:00:00\n", "s.txt");
    FAIL();
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("s.txt:2"), std::string::npos) << e.what();
  }
}

TEST(SimulationInput, SwfPhillyTiresiasAndUnknownFormats) {
  const std::string swf =
      "; Version: 2.2\n1 0 5 100 4 -1 -1 4 200 -1 1 7 3 -1 -1 -1 -1 -1\n2 10 -1 -1 4 -1 -1 4 200 -1 5 7 3 -1 "
      "-1 -1 -1 -1\n";
  const Workload s = parse_workload(swf, "log.swf");
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.skipped, 1);
  EXPECT_EQ(s.jobs[0].cpus, 4);
  EXPECT_EQ(s.jobs[0].time_limit, 200);
  EXPECT_EQ(s.jobs[0].account, "group3");
  const Workload p =
      parse_workload("job_id,user,submit_time,duration,num_gpu\nx,u1,5,60,8\ny,u2,0,30,1\n", "philly.csv");
  ASSERT_EQ(p.jobs.size(), 2u);
  EXPECT_EQ(p.jobs[0].name, "y");
  EXPECT_EQ(p.jobs[1].gpus, 8);
  EXPECT_EQ(p.jobs[1].account, "user:u1");
  const Workload t = parse_workload(
      "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,4,3,1,m,50,1\n", "t.csv");
  EXPECT_EQ(t.jobs[0].gpus, 4);
  EXPECT_THROW(parse_workload("what,is,this\n1,2,3\n", "x.csv"), WorkloadError);
  EXPECT_THROW(
      parse_workload("job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,4\n", "t.csv"),
      WorkloadError);
}

TEST(SimulationInput, LoadFactorReachesItsTarget) {
  Workload w;
  for (int i = 0; i < 200; ++i) w.jobs.push_back(job("j" + std::to_string(i), i * 100.0, 50, 1));
  const double f = factor_for_load(w, 0.8, 4, 64);
  EXPECT_NEAR(offered_load(compress(w, f), 4, 64), 0.8, 0.01);
  EXPECT_NEAR(offered_load(w, 4, 64), 50.0 / 400, 0.01);
  // Each resource on its own: 1 GPU, 1 CPU and 1000 MB per job.
  for (auto& j : w.jobs) j.mem_mb = 1000;
  const ResourceLoad l = offered_loads(w, 4, 64, 8000);
  EXPECT_DOUBLE_EQ(l.gpus, offered_load(w, 4, 64));
  EXPECT_NEAR(l.cpus, l.gpus * 4 / 64, 1e-12);
  EXPECT_NEAR(l.mem, l.gpus * 4 / 8, 1e-12);
  EXPECT_EQ(offered_loads(w, 0, 64, 0).gpus, 0) << "no GPUs: no share";
}

TEST(SimulationModel, MainSchedulerStopsAtTheFirstBlockedJobAndBackfillPassesIt) {
  // n1: A holds all 4 GPUs until 100. n2: D holds 2 of 4 for long. B needs a
  // whole node: it waits for n1. C needs 1 GPU for 50 s.
  const std::vector<SimJob> jobs = {job("A", 0, 100, 4), job("D", 0, 5000, 2), job("B", 1, 100, 4),
                                    job("C", 2, 50, 1)};
  const SimResult fifo = run(gpu_cluster(2, 4, 16, false), jobs);
  EXPECT_EQ(fifo.jobs[2].start, 100);
  EXPECT_GE(fifo.jobs[3].start, fifo.jobs[2].start) << "without backfill C waits behind B";
  const SimResult bf = run(gpu_cluster(2, 4), jobs);
  EXPECT_LT(bf.jobs[3].start, 100) << "backfill starts C on n2's free GPUs";
  EXPECT_TRUE(bf.jobs[3].backfilled);
  EXPECT_EQ(bf.jobs[2].start, 100) << "and B is not delayed";
}

TEST(SimulationModel, BackfillDoesNotDelayAReservation) {
  // One node: A holds 2 GPUs until 100; B (4 GPUs) is reserved from 100.
  // C (1 GPU, limit 500) would overlap the reservation; E (limit 60) does not.
  const std::vector<SimJob> jobs = {job("A", 0, 100, 2), job("B", 1, 100, 4), job("C", 2, 400, 1, 500),
                                    job("E", 3, 40, 1, 60)};
  const SimResult r = run(gpu_cluster(1, 4), jobs);
  EXPECT_EQ(r.jobs[1].start, 100);
  EXPECT_GE(r.jobs[2].start, r.jobs[1].end) << "C starts after B";
  EXPECT_LT(r.jobs[3].start, 100) << "E fits before the reservation";
  EXPECT_LE(r.jobs[3].end, 100);
}

TEST(SimulationModel, TimeLimitKillsAndJobsLargerThanTheClusterAreLeftOut) {
  const SimResult r = run(gpu_cluster(1, 4), {job("long", 0, 500, 1, 120), job("huge", 1, 10, 64)});
  EXPECT_EQ(r.jobs[0].end - r.jobs[0].start, 120);
  EXPECT_TRUE(r.jobs[0].timed_out);
  EXPECT_EQ(r.jobs[1].start, -1);
  EXPECT_EQ(r.never_fit, 1);
}

TEST(SimulationModel, FairSharePrioritiesLetALightAccountPass) {
  // Account "heavy" fills the queue; "light" submits later. FIFO serves heavy
  // first; classic fair share and sched/tune put light's job ahead once the
  // priorities are recalculated.
  std::vector<SimJob> jobs;
  for (int i = 0; i < 30; ++i) jobs.push_back(job("h" + std::to_string(i), i, 600, 4, 600, "heavy"));
  jobs.push_back(job("light", 40, 600, 4, 600, "light"));
  const Cluster c = gpu_cluster(1, 4);
  const double fifo = run(c, jobs, "fifo").jobs.back().start;
  const double fs = run(c, jobs, "fairshare").jobs.back().start;
  const double tn = run(c, jobs, "tune").jobs.back().start;
  EXPECT_GT(fifo, 10000);
  EXPECT_LT(fs, 2000);
  EXPECT_LT(tn, 2000);
}

TEST(SimulationModel, ConsTresTakesTheNodeWithFewestFreeCpusGangTheFewestFreeGpus) {
  Topology t;
  for (int i = 0; i < 3; ++i) {
    NodeCell n;
    n.name = "n" + std::to_string(i);
    n.cores = 32;
    n.mem_mb = n.free_mem_mb = 64000;
    n.gpu_socket = {0, 0, 1, 1};
    n.gpu_free = {true, true, true, true};
    t.nodes.push_back(n);
  }
  t.nodes[0].free_cores = 30, t.nodes[0].gpu_free = {false, false, false, true};  // 1 GPU free, many CPUs
  t.nodes[1].free_cores = 8, t.nodes[1].gpu_free = {false, false, true, true};    // 2 GPUs free, few CPUs
  t.nodes[2].free_cores = 32;                                                     // all free
  JobShape j;
  j.gpus_per_node = 1;
  j.cpus_per_task = 2;
  EXPECT_EQ(ConsTresPlacement().place(t, j)->nodes[0].node, 1);
  EXPECT_EQ(GangPlacement().place(t, j)->nodes[0].node, 0);
}

TEST(SimulationOutput, SummaryBoundsAndCsv) {
  const std::vector<SimJob> jobs = {job("A", 0, 100, 4), job("B", 0, 100, 4)};
  Workload w;
  w.jobs = jobs;
  const Cluster c = gpu_cluster(1, 4);
  const SimResult r = simulate(c, w, {});
  const Summary s = summarise("fifo+cons_tres", c, w, r);
  EXPECT_EQ(s.started, 2);
  EXPECT_EQ(s.wait.max, 100);
  EXPECT_EQ(s.completion.mean, 150);
  EXPECT_EQ(s.completion_bound, 100);
  EXPECT_EQ(s.makespan, 200);
  EXPECT_EQ(s.makespan_bound, 200);
  EXPECT_DOUBLE_EQ(s.gpu_use_queued, 1.0) << "while B waited, A held every GPU";
  std::ostringstream csv;
  write_jobs_csv(csv, w, r);
  EXPECT_NE(csv.str().find("B,a,,4,1,0,100,200,100,100,100,0,0"), std::string::npos) << csv.str();
  EXPECT_NE(format_table({s}).find("fifo+cons_tres"), std::string::npos);
  ASSERT_EQ(s.wait_percentiles.size(), 101u);  // waits 0 and 100
  EXPECT_EQ(s.wait_percentiles.front(), 0);
  EXPECT_EQ(s.wait_percentiles.back(), 100);
  const std::string page = html_page("t", {s}, {&r});
  EXPECT_NE(page.find("Wait by percentile of jobs"), std::string::npos);
}

namespace {
NodeCell gpu_node(const std::string& name, int cores, int free_cores, int gpus, int free_gpus) {
  NodeCell n;
  n.name = name;
  n.cores = cores, n.free_cores = free_cores;
  n.mem_mb = n.free_mem_mb = 512000;
  n.gpu_socket.assign(gpus, 0);
  n.gpu_free.assign(gpus, false);
  for (int i = 0; i < free_gpus; ++i) n.gpu_free[i] = true;
  return n;
}
JobShape gpu_job(int gpus, int cpus) {
  JobShape j;
  j.gpus_per_node = gpus;
  j.cpus_per_task = cpus;
  return j;
}
}  // namespace

TEST(SimulationModel, FragmentationMeasuresFreeGpusByTheGpuDemandThatCannotUseThem) {
  WorkloadMix mix;
  EXPECT_EQ(mix.fragmentation(8, 96, 512000), 0);           // nothing seen: nothing lost
  mix.observe(gpu_job(8, 96));                              // 8 GPUs of demand
  for (int i = 0; i < 8; ++i) mix.observe(gpu_job(1, 12));  // 8 more
  JobShape cpu_only;
  cpu_only.cpus_per_task = 64;
  mix.observe(cpu_only);  // uses no GPU: not in the mix
  ASSERT_EQ(mix.classes().size(), 2u);
  EXPECT_NEAR(mix.fragmentation(8, 96, 512000), 0, 1e-9);        // both fit
  EXPECT_NEAR(mix.fragmentation(7, 96, 512000), 7 * 0.5, 0.01);  // the 8-GPU half cannot use them
  EXPECT_NEAR(mix.fragmentation(3, 8, 512000), 3 * 1.0, 0.01);   // no class fits in 8 cores
  EXPECT_EQ(mix.fragmentation(0, 96, 512000), 0);
}

TEST(SimulationModel, FragmentationAwarePlacementUsesStrandedGpusFirst) {
  // n0: 3 GPUs and 120 cores free, what the 2-GPU/40-core jobs need; n1: 4
  // GPUs but only 10 cores free, unusable by them. Gang's best fit on GPUs
  // takes n0; the fragmentation-aware choice takes the stranded GPU on n1.
  Topology t;
  t.nodes = {gpu_node("n0", 128, 120, 8, 3), gpu_node("n1", 64, 10, 8, 4)};
  const JobShape small = gpu_job(1, 2);
  EXPECT_EQ(GangPlacement().place(t, small)->nodes[0].node, 0);
  FragmentationPlacement fgd;
  EXPECT_EQ(fgd.place(t, small)->nodes[0].node, 0);  // no mix seen yet: as gang
  for (int i = 0; i < 10; ++i) fgd.observe(gpu_job(2, 40));
  fgd.observe(small);
  const auto p = fgd.place(t, small);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->nodes[0].node, 1);
  EXPECT_EQ(p->nodes[0].gpu_indices.size(), 1u);
  EXPECT_EQ(make_placement("fgd")->name(), "fgd");
}

TEST(SimulationOutput, AgreementWithRecordedStarts) {
  Workload w;
  w.source = "history";
  for (int i = 0; i < 4; ++i) {
    SimJob j = job("j" + std::to_string(i), 10.0 * i, 100, 0);
    j.recorded_start = 10.0 * i + 20;  // each waited 20 s
    w.jobs.push_back(j);
  }
  SimResult r;
  for (int i = 0; i < 4; ++i) {
    JobResult x;
    x.start = 10.0 * i + (i == 3 ? 0 : 30);
    x.end = x.start + 100;
    r.jobs.push_back(x);
  }
  // Simulated waits 30, 30, 30, 0 (mean 22.5 against 20). Job 3 starts at
  // 30: a tie with job 0, before jobs 1 and 2; of the 6 pairs, the 3 with
  // job 3 are not in the recorded order.
  const Agreement a = compare_with_history(w, r);
  EXPECT_EQ(a.jobs, 4);
  EXPECT_NEAR(a.wait_recorded, 20, 1e-9);
  EXPECT_NEAR(a.wait_simulated, 22.5, 1e-9);
  EXPECT_NEAR(a.wait_error, 0.125, 1e-9);
  EXPECT_EQ(a.pairs, 6);
  EXPECT_NEAR(a.order_agreement, 3.0 / 6, 1e-9);
  EXPECT_NEAR(a.makespan_recorded, 150, 1e-9);  // last recorded end 50 + 100
  EXPECT_NEAR(a.makespan_simulated, 150, 1e-9);
  EXPECT_NE(format_agreements({{"fifo+cons_tres", a}}).find("12.5%"), std::string::npos);
  Workload none = w;
  for (auto& j : none.jobs) j.recorded_start = -1;
  EXPECT_THROW(compare_with_history(none, r), std::invalid_argument);
}

TEST(SimulationInput, JitteredArrivalsStayInOrderAndLater) {
  Workload w;
  for (int i = 0; i < 50; ++i) {
    SimJob j = job("j" + std::to_string(i), 10.0 * i, 5, 1);
    j.recorded_start = 10.0 * i;
    w.jobs.push_back(j);
  }
  const Workload a = jitter_arrivals(w, 30, 2), b = jitter_arrivals(w, 30, 2), c = jitter_arrivals(w, 30, 3);
  ASSERT_EQ(a.jobs.size(), w.jobs.size());
  bool moved = false, differs = false;
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].submit, b.jobs[i].submit);  // same seed, same replicate
    differs |= a.jobs[i].submit != c.jobs[i].submit;
    if (i > 0) {
      EXPECT_LE(a.jobs[i - 1].submit, a.jobs[i].submit);
    }
    EXPECT_EQ(a.jobs[i].recorded_start, -1);
    const int k = std::stoi(a.jobs[i].name.substr(1));
    EXPECT_GE(a.jobs[i].submit, 10.0 * k);
    EXPECT_LT(a.jobs[i].submit, 10.0 * k + 30);
    moved |= a.jobs[i].submit != 10.0 * k;
  }
  EXPECT_TRUE(moved);
  EXPECT_TRUE(differs);
  Summary s1, s2;
  s1.label = s2.label = "fifo+gang";
  s1.wait.mean = 60, s2.wait.mean = 180;
  s1.gpu_utilisation = 0.5, s2.gpu_utilisation = 0.7;
  const std::string t = format_replicates({{s1, s2}});
  EXPECT_NE(t.find("2.0m [60s, 3.0m]"), std::string::npos) << t;
  EXPECT_NE(t.find("60.0% [50.0, 70.0]"), std::string::npos) << t;
}

TEST(SimulationInput, SlurmDurationsReadAsSlurmDoes) {
  // Slurm's time_str2secs: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
  EXPECT_EQ(slurm_duration("90"), 90 * 60);
  EXPECT_EQ(slurm_duration("90:30"), 90 * 60 + 30);
  EXPECT_EQ(slurm_duration("02:00:00"), 7200);
  EXPECT_EQ(slurm_duration("1-12"), 36 * 3600);
  EXPECT_EQ(slurm_duration("2-6:30"), 2 * 86400 + 6 * 3600 + 30 * 60);
  EXPECT_EQ(slurm_duration(" 1-00:00:01 "), 86401);
  EXPECT_FALSE(slurm_duration(""));
  EXPECT_FALSE(slurm_duration("1:2:3:4"));
  EXPECT_FALSE(slurm_duration("a week"));
  EXPECT_FALSE(slurm_duration("1-"));
  const Cluster c = parse_slurm_conf("NodeName=n1 CPUs=4\nPriorityDecayHalfLife=1-12\nPriorityMaxAge=90:30\n",
                                     "slurm.conf");
  EXPECT_EQ(c.settings.priority_decay_half_life, 36 * 3600);
  EXPECT_EQ(c.settings.priority_max_age, 90 * 60 + 30);
  try {
    parse_slurm_conf("NodeName=n1 CPUs=4\nPriorityMaxAge=soon\n", "bad.conf");
    FAIL();
  } catch (const ClusterError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.conf:2"), std::string::npos) << e.what();
  }
  const Workload w = parse_workload(
      "JobID|Submit|Start|End|Timelimit\n1|2026-11-22T10:00:00|2026-11-22T10:00:00|2026-11-22T10:01:00|1-"
      "12\n",
      "s.txt");
  EXPECT_EQ(w.jobs[0].time_limit, 36 * 3600);
}

// --- tuning studies replayed from histories -----------------------------------

TEST(SimulationModel, TimerPhaseMovesThePeriodicPasses) {
  // A holds 2 of 4 GPUs; B (4 GPUs) blocks the main scheduler; C (1 GPU,
  // short) can start only by backfill: at its first pass, bf_interval (30 s)
  // after slurmctld's start, which is 20 s before the trace's with phase 20.
  Workload w;
  w.jobs = {job("A", 0, 100, 2), job("B", 1, 100, 4), job("C", 2, 20, 1, 50)};
  SimOptions o;
  EXPECT_EQ(simulate(gpu_cluster(1, 4), w, o).jobs[2].start, 30);
  o.timer_phase = 20;
  EXPECT_EQ(simulate(gpu_cluster(1, 4), w, o).jobs[2].start, 10);
}
