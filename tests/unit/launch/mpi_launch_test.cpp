// SPDX-License-Identifier: GPL-2.0-or-later
// The environment tune wrap --mpi gives mpirun (lib/launch/mpi_launch): one
// more slot on the first node for the AppCore, every GPU of the job for the
// daemons' step.
#include "launch/mpi_launch.hpp"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

namespace tune {
namespace {

TEST(MpiLaunch, TheFirstNodeGetsOneMoreSlot) {
  EXPECT_EQ(tasks_per_node_with_appcore("2"), "3");
  EXPECT_EQ(tasks_per_node_with_appcore("2,1"), "3,1");
  EXPECT_EQ(tasks_per_node_with_appcore("2(x2)"), "3,2");
  EXPECT_EQ(tasks_per_node_with_appcore("4(x3),1"), "5,4(x2),1");
  EXPECT_EQ(tasks_per_node_with_appcore("1(x2),2(x2)"), "2,1,2(x2)");
  for (const char* bad : {"", "x", "2(x)", "(x2)", "2,", "-1"})
    EXPECT_THROW(tasks_per_node_with_appcore(bad), std::invalid_argument) << bad;
}

std::map<std::string, std::optional<std::string>> changes(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::optional<std::string>> out;
  for (const auto& c : mpi_study_env([&](const char* name) -> const char* {
         const auto it = env.find(name);
         return it == env.end() ? nullptr : it->second.c_str();
       }))
    out[c.name] = c.value;
  return out;
}

TEST(MpiLaunch, TheDaemonsAskForEveryGpuOfTheJobNotOneTasksShare) {
  // 22.05: sbatch --gpus-per-task=2 sets SLURM_GPUS_PER_TASK.
  auto c = changes({{"SLURM_TASKS_PER_NODE", "2,1"}, {"SLURM_NTASKS", "3"}, {"SLURM_GPUS_PER_TASK", "2"}});
  EXPECT_EQ(c.at("SLURM_TASKS_PER_NODE"), "3,1");
  EXPECT_EQ(c.at("SLURM_GPUS_PER_TASK"), std::nullopt);
  EXPECT_EQ(c.at("SLURM_GPUS"), "6");
  // 23.11 on: srun reads SLURM_TRES_PER_TASK; its GPU entry goes, the CPUs stay.
  c = changes(
      {{"SLURM_TASKS_PER_NODE", "4"}, {"SLURM_NTASKS", "4"}, {"SLURM_TRES_PER_TASK", "cpu=2,gres/gpu=1"}});
  EXPECT_EQ(c.at("SLURM_TRES_PER_TASK"), "cpu=2");
  EXPECT_EQ(c.at("SLURM_GPUS"), "4");
  c = changes(
      {{"SLURM_TASKS_PER_NODE", "4"}, {"SLURM_NTASKS", "4"}, {"SLURM_TRES_PER_TASK", "gres/gpu:a100:1"}});
  EXPECT_EQ(c.at("SLURM_TRES_PER_TASK"), std::nullopt);
  EXPECT_EQ(c.at("SLURM_GPUS"), "4");
}

TEST(MpiLaunch, WithoutGpusOnlyTheSlotsChange) {
  const auto c =
      changes({{"SLURM_TASKS_PER_NODE", "3(x2)"}, {"SLURM_NTASKS", "6"}, {"SLURM_TRES_PER_TASK", "cpu=2"}});
  EXPECT_EQ(c.size(), 1u);
  EXPECT_EQ(c.at("SLURM_TASKS_PER_NODE"), "4,3");
}

TEST(MpiLaunch, OutsideABatchJobItSaysWhere) {
  try {
    changes({});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("SLURM_TASKS_PER_NODE is not set"), std::string::npos);
  }
}

}  // namespace
}  // namespace tune
