// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority/job_facts.hpp"

namespace tune {

std::string tenant_of(std::string_view account, std::string_view user, std::string_view fallback) {
  if (!account.empty()) return std::string(account);
  if (!user.empty()) return "user:" + std::string(user);
  return std::string(fallback);
}

bool waits_for_cluster(std::string_view reason, bool held) {
  if (held) return false;
  return reason.empty() || reason == "None" || reason == "Priority" || reason == "Resources";
}

std::optional<std::string> merge_summary(std::string_view old, std::string_view summary) {
  constexpr std::string_view kMark = "tune:tenant=";
  const auto mine = old.find(kMark);
  if (mine != std::string_view::npos) {
    if (old.substr(mine) == summary) return std::nullopt;
    std::size_t keep = mine;
    while (keep > 0 && old[keep - 1] == ' ') --keep;
    return keep ? std::string(old.substr(0, keep)) + " " + std::string(summary) : std::string(summary);
  }
  if (!old.empty()) return std::string(old) + " " + std::string(summary);
  return std::string(summary);
}

}  // namespace tune
