// SPDX-License-Identifier: GPL-2.0-or-later
// HISTORY.jobs (lib/trial_jobs/jobs_file.hpp): what the AppCore writes, tune
// status and a resumed AppCore read back.
#include "trial_jobs/jobs_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

using JobsFileTest = testing_support::TempDirTest;

TEST_F(JobsFileTest, BesideTheHistory) {
  EXPECT_EQ(jobs_file_of("/scratch/a/study.h5"), "/scratch/a/study.jobs");
  EXPECT_EQ(channel_file_of("/scratch/a/study.h5"), "/scratch/a/study.channel");
}

TEST_F(JobsFileTest, ReadsBackWhatItWrote) {
  JobsFile f;
  f.updated = 1234.5;
  f.held = "QOSMaxSubmitJobPerUserLimit";
  f.jobs = {{17, true, "", "Priority", std::nullopt}, {18, false, "node2", "", 4}};
  const std::string path = file("s.jobs");
  ASSERT_TRUE(write_jobs_file(path, f));
  const auto back = read_jobs_file(path);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->updated, 1234.5);
  EXPECT_EQ(back->held, f.held);
  ASSERT_EQ(back->jobs.size(), 2u);
  EXPECT_EQ(back->jobs[0].id, 17u);
  EXPECT_TRUE(back->jobs[0].pending);
  EXPECT_EQ(back->jobs[0].reason, "Priority");
  EXPECT_FALSE(back->jobs[0].trial);
  EXPECT_FALSE(back->jobs[1].pending);
  EXPECT_EQ(back->jobs[1].node, "node2");
  EXPECT_EQ(back->jobs[1].trial, 4u);
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename(), "s.jobs") << "a temporary file was left behind";
}

TEST_F(JobsFileTest, OneThatOthersMayWriteOrALinkIsShownButNotActedOn) {
  JobsFile f;
  f.jobs = {{17, true, "", "", std::nullopt}};
  const std::string path = file("s.jobs");
  ASSERT_TRUE(write_jobs_file(path, f));
  std::string why;
  EXPECT_TRUE(read_jobs_file(path, JobsFileUse::Act, &why));
  EXPECT_EQ(why, "");
  ASSERT_EQ(chmod(path.c_str(), 0664), 0);  // swapped in a group's directory
  EXPECT_TRUE(read_jobs_file(path));
  EXPECT_FALSE(read_jobs_file(path, JobsFileUse::Act, &why));
  EXPECT_NE(why.find("is not this user's alone"), std::string::npos) << why;
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  ASSERT_EQ(symlink(path.c_str(), file("link.jobs").c_str()), 0);
  EXPECT_FALSE(read_jobs_file(file("link.jobs"), JobsFileUse::Act, &why));
  EXPECT_NE(why.find("symbolic link"), std::string::npos) << why;
}

TEST_F(JobsFileTest, AbsentOrGarbageIsNoFileAndBadEntriesAreLeftOut) {
  EXPECT_FALSE(read_jobs_file(file("none.jobs")));
  std::ofstream(file("bad.jobs")) << "not json {";
  EXPECT_FALSE(read_jobs_file(file("bad.jobs")));
  std::ofstream(file("odd.jobs"))
      << R"({"jobs": [{"id": -3}, {"state": "RUNNING"}, "x", {"id": 9, "trial": "two"}]})";
  const auto odd = read_jobs_file(file("odd.jobs"));
  ASSERT_TRUE(odd);
  ASSERT_EQ(odd->jobs.size(), 1u);
  EXPECT_EQ(odd->jobs[0].id, 9u);
  EXPECT_FALSE(odd->jobs[0].trial);
}

}  // namespace
}  // namespace tune
