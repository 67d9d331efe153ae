// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Small text helpers the simulation's readers share (slurm.conf, traces).
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "command/text_input.hpp"

namespace tune::sim {

inline std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A Slurm duration in seconds, as slurm.conf and sacct write them (MM,
// MM:SS, HH:MM:SS, D-HH[:MM[:SS]]), read by the one rule every duration of
// tune follows (command/text_input's read_duration); nullopt otherwise.
inline std::optional<double> slurm_duration(const std::string& text) {
  return read_duration(trim(text));
}

}  // namespace tune::sim
