// SPDX-License-Identifier: GPL-2.0-or-later
// The trial-jobs channel's admission rules and its bounded refusal log
// (lib/trial_jobs/channel_admission), without sockets.
#include "trial_jobs/channel_admission.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tune {
namespace {

TEST(ChannelAdmission, OneAddressCannotHoldEveryWaitingSlot) {
  ChannelAdmission a({.waiting = 64, .waiting_per_peer = 8, .open_per_peer = 512});
  for (int i = 0; i < 8; ++i) EXPECT_FALSE(a.admit("10.0.0.9"));
  const auto why = a.admit("10.0.0.9");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("8 connections from 10.0.0.9 are already waiting"), std::string::npos) << *why;
  EXPECT_FALSE(a.admit("10.0.0.2"));  // another host's trial job gets in
  EXPECT_EQ(a.waiting(), 9u);
  // Saying hello frees the waiting slot but not the open one.
  a.authenticated("10.0.0.9");
  EXPECT_EQ(a.waiting_from("10.0.0.9"), 7u);
  EXPECT_EQ(a.open_from("10.0.0.9"), 8u);
  EXPECT_FALSE(a.admit("10.0.0.9"));
}

TEST(ChannelAdmission, TheTotalOfWaitingConnectionsIsBoundedAcrossAddresses) {
  ChannelAdmission a({.waiting = 4, .waiting_per_peer = 2, .open_per_peer = 512});
  EXPECT_FALSE(a.admit("a"));
  EXPECT_FALSE(a.admit("a"));
  EXPECT_FALSE(a.admit("b"));
  EXPECT_FALSE(a.admit("c"));
  const auto why = a.admit("d");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("4 connections are already waiting"), std::string::npos) << *why;
  a.closed("a", false);  // a silent peer timed out
  EXPECT_FALSE(a.admit("d"));
}

TEST(ChannelAdmission, OpenConnectionsPerAddressAreBoundedAndFreedWhenTheyClose) {
  ChannelAdmission a({.waiting = 64, .waiting_per_peer = 8, .open_per_peer = 3});
  for (int i = 0; i < 3; ++i) {
    ASSERT_FALSE(a.admit("node1"));
    a.authenticated("node1");
  }
  const auto why = a.admit("node1");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("3 connections from node1 are already open"), std::string::npos) << *why;
  a.closed("node1", true);
  EXPECT_EQ(a.open_from("node1"), 2u);
  EXPECT_EQ(a.waiting(), 0u);
  EXPECT_FALSE(a.admit("node1"));
  // Everything closed: nothing is left counted.
  a.closed("node1", false);
  a.closed("node1", true);
  a.closed("node1", true);
  EXPECT_EQ(a.open_from("node1"), 0u);
  EXPECT_EQ(a.waiting(), 0u);
  a.closed("node1", true);  // one close too many does not wrap around
  EXPECT_EQ(a.open_from("node1"), 0u);
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
