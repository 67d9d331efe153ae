// SPDX-License-Identifier: GPL-2.0-or-later
#include "estimators/study_progress.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>

#include "history/direction.hpp"

namespace tune {

std::string study_key(const std::string& name, const std::string& history_path) {
  std::string key;
  for (char c : name)
    if (key.size() < 48)
      key += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  std::error_code ec;
  const std::string path = std::filesystem::absolute(history_path, ec).lexically_normal().string();
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : path) h = (h ^ c) * 16777619u;
  char hex[12];
  std::snprintf(hex, sizeof hex, "-%08x", h);
  return (key.empty() ? "study" : key) + hex;
}

ProgressRecord progress_of(const std::string& key, const std::vector<Trial>& trials, bool minimize,
                           const StudyGoal& goal, std::size_t top) {
  ProgressRecord r;
  r.study = key;
  r.minimize = minimize;
  std::int64_t used = 0;
  for (const auto& t : trials) {
    if (is_final(t.state)) ++used;
    if (t.state == TrialState::Ok && t.objective && std::isfinite(*t.objective))
      r.top.push_back(*t.objective);
  }
  if (goal.target && std::isfinite(*goal.target) && std::fabs(*goal.target) < 1e300) r.target = goal.target;
  if (goal.budget)
    r.left = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(std::min<std::uint64_t>(*goal.budget, ProgressRecord::kMaxTrials)) - used,
        0, ProgressRecord::kMaxTrials);
  r.trials = static_cast<std::int64_t>(r.top.size());
  top = std::min(top, ProgressRecord::kMaxTop);
  auto better_first = [minimize](double a, double b) { return better(minimize, a, b); };
  if (r.top.size() > top)
    std::partial_sort(r.top.begin(), r.top.begin() + static_cast<long>(top), r.top.end(), better_first);
  else
    std::sort(r.top.begin(), r.top.end(), better_first);
  r.top.resize(std::min(top, r.top.size()));
  // The record carries 6 significant digits; sorted values stay sorted.
  return r;
}

}  // namespace tune
