// SPDX-License-Identifier: GPL-2.0-or-later
// The trial-jobs channel's admission rules and its bounded refusal log
// (lib/trial_jobs/channel_admission), without sockets.
#include "trial_jobs/channel_admission.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace tune {
namespace {

TEST(ChannelAdmission, AnAddressAtItsShareLetsGoItsOwnOldestStrangerNotAnotherHosts) {
  ChannelAdmission a({.waiting = 64, .waiting_per_peer = 8, .open_per_peer = 512});
  for (ChannelAdmission::Conn c = 1; c <= 8; ++c) {
    const auto v = a.admit(c, "10.0.0.9", c);
    EXPECT_FALSE(v.refused);
    EXPECT_FALSE(v.evict);
  }
  EXPECT_FALSE(a.admit(20, "10.0.0.2", 9).evict);  // another host's trial job gets in
  const auto ninth = a.admit(9, "10.0.0.9", 10);
  EXPECT_FALSE(ninth.refused);
  ASSERT_TRUE(ninth.evict);
  EXPECT_EQ(*ninth.evict, 1u);  // its own oldest
  EXPECT_EQ(a.waiting_from("10.0.0.9"), 8u);
  EXPECT_EQ(a.waiting_from("10.0.0.2"), 1u);
  // A vouched connection leaves the waiting room but stays open.
  a.vouched(20);
  EXPECT_EQ(a.waiting_from("10.0.0.2"), 0u);
  EXPECT_EQ(a.open_from("10.0.0.2"), 1u);
  EXPECT_EQ(a.waiting(), 8u);
}

TEST(ChannelAdmission, AFullRoomTakesANewcomerInThePlaceOfTheBusiestAddresssOldest) {
  ChannelAdmission a({.waiting = 4, .waiting_per_peer = 2, .open_per_peer = 512});
  EXPECT_FALSE(a.admit(1, "a", 1).evict);
  EXPECT_FALSE(a.admit(2, "a", 2).evict);
  EXPECT_FALSE(a.admit(3, "b", 3).evict);
  EXPECT_FALSE(a.admit(4, "c", 4).evict);
  const auto v = a.admit(5, "d", 5);
  EXPECT_FALSE(v.refused);
  ASSERT_TRUE(v.evict);
  EXPECT_EQ(*v.evict, 1u);  // a holds two places: its oldest goes, not b's or c's only one
  EXPECT_EQ(a.waiting(), 4u);
  // Every address holding one: the oldest of them all goes, the newcomer stays.
  const auto w = a.admit(6, "e", 6);
  ASSERT_TRUE(w.evict);
  EXPECT_EQ(*w.evict, 2u);
  const auto x = a.admit(7, "f", 7);
  ASSERT_TRUE(x.evict);
  EXPECT_EQ(*x.evict, 3u);
  EXPECT_EQ(a.next_to_evict(), std::optional<ChannelAdmission::Conn>(4));
}

TEST(ChannelAdmission, TwoHostsFloodingCannotKeepAThirdHostsTrialJobOut) {
  // Two hosts open silent connections without end; between them a trial
  // job connects and, a moment later, says hello. It is never the one let go.
  ChannelAdmission a({.waiting = 64, .waiting_per_peer = 32, .open_per_peer = 512});
  ChannelAdmission::Conn c = 1;
  double t = 0;
  for (int i = 0; i < 200; ++i) {
    a.admit(c++, "10.0.0.8", t += 0.001);
    a.admit(c++, "10.0.0.9", t += 0.001);
  }
  const ChannelAdmission::Conn job = c++;
  a.admit(job, "10.0.0.2", t += 0.001);
  for (int i = 0; i < 100; ++i) {
    for (const char* flood : {"10.0.0.8", "10.0.0.9"}) {
      const auto v = a.admit(c++, flood, t += 0.001);
      ASSERT_TRUE(v.evict);
      EXPECT_NE(*v.evict, job);
    }
  }
  EXPECT_EQ(a.waiting_from("10.0.0.2"), 1u);
  a.vouched(job);
  EXPECT_EQ(a.open_from("10.0.0.2"), 1u);
}

TEST(ChannelAdmission, OpenConnectionsPerAddressAreBoundedAndFreedWhenTheyClose) {
  ChannelAdmission a({.waiting = 64, .waiting_per_peer = 8, .open_per_peer = 3});
  for (ChannelAdmission::Conn c = 1; c <= 3; ++c) {
    ASSERT_FALSE(a.admit(c, "node1", c).refused);
    a.vouched(c);
  }
  const auto v = a.admit(4, "node1", 4);
  ASSERT_TRUE(v.refused);
  EXPECT_NE(v.refused->find("3 connections from node1 are already open"), std::string::npos) << *v.refused;
  a.closed(1);
  EXPECT_EQ(a.open_from("node1"), 2u);
  EXPECT_EQ(a.waiting(), 0u);
  EXPECT_FALSE(a.admit(5, "node1", 5).refused);
  // Everything closed: nothing is left counted.
  for (ChannelAdmission::Conn c : {2, 3, 5}) a.closed(c);
  EXPECT_EQ(a.open_from("node1"), 0u);
  EXPECT_EQ(a.waiting(), 0u);
  a.closed(5);  // one close too many does not wrap around
  a.closed(99);
  EXPECT_EQ(a.open_from("node1"), 0u);
  EXPECT_FALSE(a.next_to_evict());
}

TEST(RefusalLog, LogsABurstThenCountsAndSaysHowManyWhenTheWindowIsOver) {
  std::vector<std::string> lines;
  RefusalLog log([&](const std::string& l) { lines.push_back(l); }, 3, 10);
  for (int i = 0; i < 100; ++i) log.refused("refused " + std::to_string(i), 0.01 * i);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2], "refused 2");
  EXPECT_EQ(log.unlogged(), 97u);
  log.flush(9.9);  // the window is not over
  EXPECT_EQ(lines.size(), 3u);
  log.flush(10.5);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[3], "refused 97 more connections in 10 s without a line each");
  EXPECT_EQ(log.unlogged(), 0u);
  log.flush(30);  // nothing more to say
  EXPECT_EQ(lines.size(), 4u);
  // A new window logs its own burst.
  log.refused("refused again", 31);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[4], "refused again");
}

TEST(RefusalLog, ARefusalAfterTheWindowFirstReportsTheCountOfTheLastOne) {
  std::vector<std::string> lines;
  RefusalLog log([&](const std::string& l) { lines.push_back(l); }, 1, 5);
  log.refused("first", 0);
  log.refused("second", 1);
  log.refused("later", 7);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "first");
  EXPECT_EQ(lines[1], "refused 1 more connection in 5 s without a line each");
  EXPECT_EQ(lines[2], "later");
}

}  // namespace
}  // namespace tune
