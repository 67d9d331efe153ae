// SPDX-License-Identifier: GPL-2.0-or-later
// The trial report protocol: the program writes lines of `key=value` pairs to
// the file descriptor named in TUNE_REPORT_FD, for example
//     step=3 loss=0.41 accuracy=0.87      an intermediate report at step 3
//     objective=0.93                      the trial's result (the last one counts)
// Keys are [A-Za-z_][A-Za-z0-9_.]* (at most 64 characters); values are
// numbers; `step` is a non-negative integer. Empty lines and lines starting
// with '#' are ignored. A malformed line is counted and skipped, never fatal:
// the program is untrusted and may print anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tune {

struct Report {
  std::optional<std::int64_t> step;
  std::vector<std::pair<std::string, double>> metrics;  // everything but step and objective
  std::optional<double> objective;
};

class ReportParser {
 public:
  explicit ReportParser(std::size_t max_line = 64 * 1024) : max_line_(max_line) {}

  // Feeds bytes as they arrive (lines may be split anywhere) and appends the
  // reports of every completed line to `out`.
  void feed(std::string_view bytes, std::vector<Report>& out);
  // End of stream: parses a last line that had no newline.
  void finish(std::vector<Report>& out);

  std::size_t bad_lines() const { return bad_lines_; }
  // What was wrong with the first malformed line, for the trial's record.
  const std::string& first_error() const { return first_error_; }

  // Parses one line (without its newline); nullopt and `error` set if malformed,
  // nullopt and `error` empty if the line carries nothing (blank or comment).
  static std::optional<Report> parse_line(std::string_view line, std::string& error);

 private:
  void complete_line(std::vector<Report>& out);
  void reject(std::string error);

  std::size_t max_line_;
  std::string partial_;
  bool overlong_ = false;  // discarding the rest of a line that was too long
  std::size_t line_number_ = 0;
  std::size_t bad_lines_ = 0;
  std::string first_error_;
};

}  // namespace tune
