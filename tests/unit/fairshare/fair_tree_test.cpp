// SPDX-License-Identifier: GPL-2.0-or-later
// Fair Tree's factors, worked by hand from fair_tree.c's rules, and the
// associations file a replay reads them from.
#include "fairshare/fair_tree.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "simulation/cluster.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace tune;

namespace {

std::vector<Association> flat(const std::vector<std::string>& accounts) {
  std::vector<Association> out;
  for (const auto& a : accounts) out.push_back({a, "", "root", 1});
  for (const auto& a : accounts) out.push_back({a, "u", "", 1});
  return out;
}

}  // namespace

TEST(FairTree, FlatAccountsRankByShareOverUsage) {
  // S = 1/3 each; U: a 10/15, c 5/15, b 0. LF: b inf, c 1, a 0.5.
  const FairTree t(flat({"a", "b", "c"}));
  ASSERT_EQ(t.users(), 3u);
  const auto f = t.factors({{{"a", "u"}, 10}, {{"c", "u"}, 5}});
  EXPECT_DOUBLE_EQ(f.at({"b", "u"}), 1.0);
  EXPECT_DOUBLE_EQ(f.at({"c", "u"}), 2.0 / 3);
  EXPECT_DOUBLE_EQ(f.at({"a", "u"}), 1.0 / 3);
}

TEST(FairTree, TiedAccountsShareTheRankAndTheNextFallsByTheirCount) {
  // a and b have no usage: both inf, tied. c ranks third of three.
  const auto f = FairTree(flat({"a", "b", "c"})).factors({{{"c", "u"}, 5}});
  EXPECT_DOUBLE_EQ(f.at({"a", "u"}), 1.0);
  EXPECT_DOUBLE_EQ(f.at({"b", "u"}), 1.0);
  EXPECT_DOUBLE_EQ(f.at({"c", "u"}), 1.0 / 3);
}

TEST(FairTree, UsersRankWithinTheirAccountAfterTheAccountsAboveIt) {
  // root: a (U 1, S 1/2: 0.5) below b (inf). Within a: y (inf), z (S 1/3,
  // U 0.2: 1.67), x (S 1/3, U 0.8: 0.42). Ranks: w 4, y 3, z 2, x 1.
  std::vector<Association> assocs = {{"a", "", "root", 1}, {"b", "", "root", 1}, {"a", "x", "", 1},
                                     {"a", "y", "", 1},    {"a", "z", "", 1},    {"b", "w", "", 1}};
  const auto f = FairTree(assocs).factors({{{"a", "x"}, 8}, {{"a", "z"}, 2}});
  EXPECT_DOUBLE_EQ(f.at({"b", "w"}), 1.0);
  EXPECT_DOUBLE_EQ(f.at({"a", "y"}), 0.75);
  EXPECT_DOUBLE_EQ(f.at({"a", "z"}), 0.5);
  EXPECT_DOUBLE_EQ(f.at({"a", "x"}), 0.25);
}

TEST(FairTree, SharesWeighTheLevelAndSubAccountsNest) {
  // big has 3 shares to small's 1: with equal usage big's LF is 3x small's.
  // big's sub-account team holds its only user.
  std::vector<Association> assocs = {{"team", "", "big", 1},
                                     {"big", "", "root", 3},
                                     {"small", "", "root", 1},
                                     {"team", "u", "", 1},
                                     {"small", "v", "", 1}};
  const FairTree t(assocs);
  const auto f = t.factors({{{"team", "u"}, 5}, {{"small", "v"}, 5}});
  EXPECT_DOUBLE_EQ(f.at({"team", "u"}), 1.0);
  EXPECT_DOUBLE_EQ(f.at({"small", "v"}), 0.5);
}

TEST(FairTree, ARootUserWithoutUsageRanksBeforeAnAccountWithout) {
  // Both inf at root's level: the user first, the account tied with it.
  FairTree t({{"a", "", "root", 1}, {"a", "u", "", 1}, {"b", "", "root", 1}, {"b", "u", "", 1}});
  t.ensure("root", "root");
  EXPECT_EQ(t.users(), 3u);
  const auto f = t.factors({{{"b", "u"}, 1}});
  EXPECT_DOUBLE_EQ(f.at({"root", "root"}), 1.0);
  EXPECT_DOUBLE_EQ(f.at({"a", "u"}), 1.0);
  EXPECT_DOUBLE_EQ(f.at({"b", "u"}), 1.0 / 3);
}

TEST(FairTree, EnsureAddsAnAccountUnderRootOnceAndACycleIsRefused) {
  FairTree t({});
  t.ensure("lab", "ann");
  t.ensure("lab", "ann");
  t.ensure("lab", "bob");
  EXPECT_EQ(t.users(), 2u);
  EXPECT_THROW(FairTree({{"a", "", "b", 1}, {"b", "", "a", 1}}), std::invalid_argument);
}

class Associations : public tune::testing_support::TempDirTest {};

TEST_F(Associations, SacctmgrsParsableOutputIsReadAndBadLinesNamed) {
  std::ofstream(file("assoc.txt"))
      << "root|||1\nroot|root||1\nlab-a||root|1\nlab-a|root||1\nlab-b||root|parent\n";
  const auto a = tune::sim::read_associations(file("assoc.txt"));
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[2].account, "lab-a");
  EXPECT_EQ(a[2].parent, "root");
  EXPECT_EQ(a[3].user, "root");
  EXPECT_EQ(FairTree(a).users(), 2u);
  std::ofstream(file("bad.txt")) << "root|||1\nlab-a|root|1\n";
  try {
    tune::sim::read_associations(file("bad.txt"));
    FAIL() << "a line of three fields is refused";
  } catch (const tune::sim::ClusterError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sacctmgr -nP show assoc"), std::string::npos) << e.what();
  }
  std::ofstream(file("shares.txt")) << "lab-a||root|many\n";
  EXPECT_THROW(tune::sim::read_associations(file("shares.txt")), tune::sim::ClusterError);
  std::ofstream(file("cycle.txt")) << "a||b|1\nb||a|1\n";
  EXPECT_THROW(tune::sim::read_associations(file("cycle.txt")), tune::sim::ClusterError);
  std::ofstream(file("empty.txt")) << "\n";
  EXPECT_THROW(tune::sim::read_associations(file("empty.txt")), tune::sim::ClusterError);
}
