// SPDX-License-Identifier: GPL-2.0-or-later
// What tune submit says before it submits (lib/command/submit_notes).
#include "command/submit_notes.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "command/job_script.hpp"
#include "tests/unit/command/submit_fixture.hpp"

namespace tune {
namespace {

using testing_support::digits;

TEST(SubmitNotes, WithoutTimeTheUserIsToldWhatLimitTheJobGetsAndWhatItLoses) {
  SubmitOptions o = digits();
  auto notes = time_notes(o, PartitionTimes{"gpu", 60, 2880});
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(
      notes[0],
      "no --time: the job gets partition gpu's default time limit, 01:00:00 (at most 2-00:00:00); the "
      "study drains and requeues itself 2 minutes before it, so give --time to choose when (e.g. --time "
      "4:00:00)");
  EXPECT_NE(notes[1].find("no --trial-time-limit: a trial that hangs holds its runner"), std::string::npos);
  EXPECT_NE(time_notes(o, PartitionTimes{"cpu", std::nullopt, 90})[0].find("maximum time limit, 01:30:00"),
            std::string::npos);
  EXPECT_NE(time_notes(o, PartitionTimes{"all", std::nullopt, std::nullopt})[0].find("has no time limit"),
            std::string::npos);
  EXPECT_NE(time_notes(o, std::nullopt)[0].find("Slurm did not say"), std::string::npos);
  o.time = "4:00:00";
  o.trial_time_limit = "30m";
  EXPECT_TRUE(time_notes(o, PartitionTimes{"gpu", 60, 2880}).empty());
  o.trial_jobs = true;
  o.trial_time_limit.clear();
  EXPECT_NE(time_notes(o, std::nullopt)[0].find("holds its trial job"), std::string::npos);
}

}  // namespace
}  // namespace tune
