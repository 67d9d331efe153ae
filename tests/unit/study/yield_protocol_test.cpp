// SPDX-License-Identifier: GPL-2.0-or-later
// The yield protocol's batch-job rule (tune wrap): requeue exactly when the
// study exited 75 on its own account (not after SIGTERM), inside a Slurm job.
#include "study/yield_protocol.hpp"

#include <gtest/gtest.h>

namespace tune {
namespace {

TEST(YieldProtocol, AStudyThatExits75InAJobIsRequeuedAndTheCodeKept) {
  const WrapEnd e = wrap_end(kExitInterrupted, false, std::string("123"));
  EXPECT_TRUE(e.requeue);
  EXPECT_EQ(e.exit_code, 75);
  EXPECT_EQ(e.message, "tune: study interrupted; requeueing job 123 to resume it");
}

TEST(YieldProtocol, AfterSigtermNothingIsRequeued) {
  // scancel or preemption: the study stopped (exit 75) but the job ends.
  const WrapEnd e = wrap_end(kExitInterrupted, true, std::string("123"));
  EXPECT_FALSE(e.requeue);
  EXPECT_EQ(e.exit_code, 75);
  EXPECT_TRUE(e.message.empty());
}

TEST(YieldProtocol, OtherExitCodesPassThroughUnrequeued) {
  for (int code : {0, 1, 3, 74, 76, 128 + 9, 128 + 15}) {
    const WrapEnd e = wrap_end(code, false, std::string("7"));
    EXPECT_FALSE(e.requeue) << code;
    EXPECT_EQ(e.exit_code, code);
    EXPECT_TRUE(e.message.empty()) << code;
  }
}

TEST(YieldProtocol, OutsideAJobTheUserIsToldToResume) {
  for (const auto& job : {std::optional<std::string>(), std::optional<std::string>("")}) {
    const WrapEnd e = wrap_end(kExitInterrupted, false, job);
    EXPECT_FALSE(e.requeue);
    EXPECT_EQ(e.exit_code, 75);
    EXPECT_NE(e.message.find("run it again with --resume"), std::string::npos);
  }
}

}  // namespace
}  // namespace tune
