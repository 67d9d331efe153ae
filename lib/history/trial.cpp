// SPDX-License-Identifier: GPL-2.0-or-later
#include "history/trial.hpp"

#include <array>

namespace tune {

namespace {
constexpr std::array<std::string_view, kTrialStates> kNames = {"running", "ok",          "failed", "timeout",
                                                               "invalid", "interrupted", "pruned"};
}

std::string_view state_name(TrialState s) {
  return kNames.at(static_cast<std::size_t>(s));
}

std::optional<TrialState> state_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<TrialState>(i);
  return std::nullopt;
}

}  // namespace tune
