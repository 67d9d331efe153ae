// SPDX-License-Identifier: GPL-2.0-or-later
// --metric-regex: the objective of a program that cannot be changed, read
// from its stdout. The regex's first capture group (or the whole match) is the
// number; the last matching line counts.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>

namespace tune {

class StdoutMetric {
 public:
  // Throws std::invalid_argument naming the pattern if it does not compile.
  explicit StdoutMetric(const std::string& pattern);
  // Feeds stdout bytes as they arrive.
  void feed(std::string_view bytes);
  void finish();
  // The last value matched; nullopt if none; NaN if the match was no number.
  std::optional<double> value() const { return value_; }
  const std::string& pattern() const { return pattern_; }

 private:
  void scan(const std::string& line);

  std::string pattern_;
  std::regex regex_;
  std::string partial_;
  std::optional<double> value_;
};

}  // namespace tune
