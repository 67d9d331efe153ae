// SPDX-License-Identifier: GPL-2.0-or-later
// Reading a history as a reader on another host of NFS may see it: pages of
// the file from different moments of the writer's life.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "history/history.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;

class HistoryReaderTest : public testing_support::TempDirTest {
 protected:
  static StudyInfo study() {
    StudyInfo s;
    s.name = "torn";
    s.space = SearchSpace::parse(R"({"parameters": [
        {"name": "lr", "type": "bound", "value": [0.0001, 0.1], "log": true},
        {"name": "opt", "type": "choice", "value": ["sgd", "adam"]}]})");
    s.created = "2026-11-24T00:00:00Z";
    return s;
  }
  static Trial trial(std::uint64_t id, TrialState state) {
    Trial t;
    t.id = id;
    t.state = state;
    t.params = {0.001 * (id + 1), std::string(id % 2 ? "adam" : "sgd")};
    t.start_time = 1000.0 + id;
    if (state != TrialState::Running) {
      t.objective = 0.5 + 0.01 * id;
      t.end_time = 1010.0 + id;
      t.exit_code = 0;
      t.peak_rss_kb = 1000 + id;
      t.last_step = 20;
    }
    t.rank = 1;
    t.host = "node1";
    return t;
  }
  static std::string bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void put_bytes(const std::string& path, const std::string& b) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(b.data(), static_cast<std::streamsize>(b.size()));
  }
  // Every field a reader shows.
  static bool same(const Trial& a, const Trial& b) {
    return a.id == b.id && a.state == b.state && a.objective == b.objective && a.params == b.params &&
           a.start_time == b.start_time && a.end_time == b.end_time && a.exit_code == b.exit_code &&
           a.peak_rss_kb == b.peak_rss_kb && a.last_step == b.last_step && a.host == b.host &&
           a.message == b.message;
  }
};

// A writer's file at two moments (trials finishing, more starting, reports
// appended) mixed page by page, as NFS can show it: every read either says
// why it failed or shows each trial as it was at one of the two moments,
// never a mix of both and never garbage.
TEST_F(HistoryReaderTest, APageMixOfTwoMomentsNeverReadsAsGarbage) {
  const std::string path = file("h.h5");
  auto h = History::create(path, study());
  for (std::uint64_t i = 0; i < 40; ++i) h.put(trial(i, i < 30 ? TrialState::Ok : TrialState::Running));
  for (std::uint64_t i = 0; i < 30; ++i)
    h.add_report(i, Report{std::int64_t(1), {{"loss", 0.1 * i}}, std::nullopt}, 1000 + i);
  const std::string early = bytes(path);
  const auto early_snap = read_history(path);
  for (std::uint64_t i = 30; i < 40; ++i) h.put(trial(i, TrialState::Ok));
  for (std::uint64_t i = 40; i < 70; ++i) h.put(trial(i, TrialState::Running));
  for (std::uint64_t i = 30; i < 60; ++i)
    h.add_report(i, Report{std::int64_t(2), {{"loss", 0.2 * i}}, std::nullopt}, 2000 + i);
  const std::string late = bytes(path);
  const auto late_snap = read_history(path);
  h.close();

  std::mt19937 rng(5);
  constexpr std::size_t kPage = 4096;
  int read_whole = 0, read_with_warning = 0, refused = 0;
  for (int mix = 0; mix < 150; ++mix) {
    std::string torn = late;
    const double p_early = std::uniform_real_distribution<double>(0.05, 0.95)(rng);
    for (std::size_t at = 0; at < torn.size(); at += kPage) {
      if (std::bernoulli_distribution(p_early)(rng)) {
        const std::size_t n = std::min(kPage, torn.size() - at);
        for (std::size_t k = 0; k < n; ++k) torn[at + k] = at + k < early.size() ? early[at + k] : '\0';
      }
    }
    const std::string copy = file("torn-" + std::to_string(mix) + ".h5");
    put_bytes(copy, torn);
    try {
      const auto snap = read_history(copy);
      (snap.warning.empty() ? read_whole : read_with_warning)++;
      for (const auto& t : snap.trials) {
        const bool from_early = t.id < early_snap.trials.size() && same(t, early_snap.trials[t.id]);
        const bool from_late = same(t, late_snap.trials.at(t.id));
        EXPECT_TRUE(from_early || from_late) << "mix " << mix << ": trial " << t.id << " is neither moment's";
      }
      for (const auto& r : snap.reports) {
        EXPECT_LT(r.trial, snap.trials.size());
        EXPECT_EQ(r.metric, "loss");
      }
    } catch (const HistoryError& e) {
      ++refused;
      EXPECT_THAT(e.what(), HasSubstr(copy));
    }
    fs::remove(copy);
  }
  // Say what the mixes did (the proportions depend on HDF5's layout).
  std::cout << "page mixes: " << read_whole << " read whole, " << read_with_warning << " with a warning, "
            << refused << " refused\n";
  EXPECT_EQ(read_whole + read_with_warning + refused, 150);
}

// A row caught half-written (its checksum fails) in a file that no longer
// changes: the reader stops retrying, shows the trials before it and says so.
TEST_F(HistoryReaderTest, AHalfWrittenRowIsLeftOutAndSaid) {
  const std::string path = file("h.h5");
  {
    auto h = History::create(path, study());
    for (std::uint64_t i = 0; i < 8; ++i) h.put(trial(i, TrialState::Ok));
  }
  std::string b = bytes(path);
  // Trial 5's row: find its objective (0.55) and change one byte after it.
  const double five = 0.5 + 0.01 * 5;
  const std::string needle(reinterpret_cast<const char*>(&five), sizeof five);
  const auto at = b.find(needle);
  ASSERT_NE(at, std::string::npos);
  b[at + sizeof five + 3] ^= 0x40;  // inside start_time
  put_bytes(path, b);
  const auto snap = read_history(path);
  EXPECT_EQ(snap.trials.size(), 5u);
  EXPECT_THAT(snap.warning, HasSubstr("showing its last consistent state"));
  EXPECT_THAT(snap.warning, HasSubstr("the last 3 trial row(s) left out"));
}

TEST_F(HistoryReaderTest, AWholeFileReadsWithoutWarning) {
  const std::string path = file("h.h5");
  {
    auto h = History::create(path, study());
    for (std::uint64_t i = 0; i < 3; ++i) h.put(trial(i, TrialState::Ok));
  }
  const auto snap = read_history(path);
  EXPECT_EQ(snap.trials.size(), 3u);
  EXPECT_TRUE(snap.warning.empty());
}

}  // namespace
}  // namespace tune
