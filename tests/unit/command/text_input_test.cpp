// SPDX-License-Identifier: GPL-2.0-or-later
// Values people type (lib/command/text_input): durations, a command line
// split into words, shell quoting.
#include "command/text_input.hpp"

#include <gtest/gtest.h>

namespace tune {
namespace {

TEST(ParseDuration, AcceptsSlurmsForms) {
  EXPECT_EQ(parse_duration("90s", "--x"), 90);
  EXPECT_EQ(parse_duration("1.5s", "--x"), 1.5);
  EXPECT_EQ(parse_duration("15m", "--x"), 900);
  EXPECT_EQ(parse_duration("2h", "--x"), 7200);
  EXPECT_EQ(parse_duration("1d", "--x"), 86400);
  EXPECT_EQ(parse_duration("05:30", "--x"), 330);
  EXPECT_EQ(parse_duration("1:00:05", "--x"), 3605);
  EXPECT_EQ(parse_duration("2-03", "--x"), 2 * 86400 + 3 * 3600);
  EXPECT_EQ(parse_duration("1-00:10:00", "--x"), 86400 + 600);
}

// A bare number is minutes, as sbatch --time and slurm.conf read it: a Slurm
// user's `--trial-time-limit 30` is the `--time 30` they know, and tune
// simulate reads a trace's Timelimit by the same rule.
TEST(ParseDuration, ABareNumberIsMinutesAsInSlurm) {
  EXPECT_EQ(parse_duration("30", "--x"), 1800);
  EXPECT_EQ(parse_duration("0.5", "--x"), 30);
  EXPECT_EQ(parse_duration("0", "--x"), 0);
  EXPECT_EQ(read_duration("45"), read_duration("45:00"));
  EXPECT_EQ(read_duration("45"), read_duration("45m"));
  EXPECT_FALSE(read_duration("45 s").has_value());
}

TEST(ParseDuration, NamesTheFlagAndTheFormsWhenWrong) {
  for (const char* bad : {"", "abc", "-5", "1:2:3:4", "5x", "1-", "nan"}) {
    try {
      parse_duration(bad, "--time-limit");
      FAIL() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--time-limit: '"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("HH:MM:SS"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("minutes as Slurm does"), std::string::npos);
    }
  }
}

TEST(SplitCommand, SplitsLikeAShellWithoutExpanding) {
  EXPECT_EQ(split_command("python3 train.py --lr {lr}"),
            (std::vector<std::string>{"python3", "train.py", "--lr", "{lr}"}));
  EXPECT_EQ(split_command(R"(a 'b c' "d \"e\" $HOME" f\ g)"),
            (std::vector<std::string>{"a", "b c", "d \"e\" $HOME", "f g"}));
  EXPECT_EQ(split_command("  "), std::vector<std::string>{});
  EXPECT_THROW(split_command("a 'b"), std::invalid_argument);
}

TEST(ShellQuote, RoundTripsThroughSplit) {
  for (const std::string w : {"plain", "with space", "it's", "$HOME", "", "{lr}"}) {
    EXPECT_EQ(split_command(shell_quote(w)), std::vector<std::string>{w}) << w;
  }
}

}  // namespace
}  // namespace tune
