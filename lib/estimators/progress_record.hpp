// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The progress summary `tune run` posts in its job's Comment, and that
// sched/tune reads:
//   [user text] tune:study=KEY;n=N;dir=min|max;top=V1,V2,...[;tgt=T][;left=L][;role=trial|appcore]
// tgt is the study's --target, left the trials its --trials budget has left
// (what the tail estimator, lib/estimators/tail_estimate, weighs besides the
// values).
// The role says what the job is to its study: the whole study in one
// allocation (no role field), one trial job, or the AppCore of a study whose
// trials are jobs of their own. Only a whole study is ever asked to yield.
// The Comment is written by the job's owner, so it is untrusted input: the
// parser accepts only the exact format, bounded, and everything else is "no
// record". No Slurm here.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tune {

enum class StudyRole { Study, Trial, AppCore };

struct ProgressRecord {
  static constexpr std::size_t kMaxTop = 16;
  static constexpr std::size_t kMaxKey = 64;
  static constexpr std::int64_t kMaxTrials = 1'000'000'000;

  std::string study;                 // [A-Za-z0-9._-]{1,64}
  std::int64_t trials = 0;           // n: results so far
  bool minimize = true;              // dir
  std::vector<double> top;           // best first, finite, at most kMaxTop
  std::optional<double> target;      // tgt: the study stops once its best meets it
  std::optional<std::int64_t> left;  // left: trials its budget has left (0..kMaxTrials)
  StudyRole role = StudyRole::Study;

  bool operator==(const ProgressRecord&) const = default;
};

// The record's text, "tune:study=...;n=...;dir=...;top=...".
std::string format_progress(const ProgressRecord& r);

// The record in a Comment, if the Comment holds exactly one well-formed one
// (after the user's own text, separated by a space). Anything malformed,
// out of range or ambiguous is nullopt.
std::optional<ProgressRecord> parse_progress(std::string_view comment);

// The Comment with `record` in place of any earlier tune record, keeping the
// user's own text; nullopt when it would not fit in `limit` characters.
std::optional<std::string> merge_progress(std::string_view comment, const ProgressRecord& record,
                                          std::size_t limit = 1024);

// The user's own part of a Comment (everything before the tune record).
std::string_view user_text(std::string_view comment);

}  // namespace tune
