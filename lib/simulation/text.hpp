// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Small text helpers the simulation's readers share (slurm.conf, traces).
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

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

// A Slurm duration in seconds, as slurm.conf and sacct write them: MM,
// MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS (Slurm's time_str2secs);
// nullopt for anything else.
inline std::optional<double> slurm_duration(const std::string& text) {
  std::string t = trim(text);
  double days = -1;
  if (const auto dash = t.find('-'); dash != std::string::npos) {
    const std::string d = t.substr(0, dash);
    if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    days = std::strtod(d.c_str(), nullptr);
    t = t.substr(dash + 1);
  }
  std::vector<double> parts;
  std::size_t start = 0;
  while (true) {
    const auto colon = t.find(':', start);
    const std::string p = t.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (p.empty() || p.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    parts.push_back(std::strtod(p.c_str(), nullptr));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() > 3) return std::nullopt;
  if (days >= 0) {  // D-HH[:MM[:SS]]
    double v = days * 86400 + parts[0] * 3600;
    if (parts.size() > 1) v += parts[1] * 60;
    if (parts.size() > 2) v += parts[2];
    return v;
  }
  if (parts.size() == 1) return parts[0] * 60;             // MM
  if (parts.size() == 2) return parts[0] * 60 + parts[1];  // MM:SS
  return parts[0] * 3600 + parts[1] * 60 + parts[2];       // HH:MM:SS
}

}  // namespace tune::sim
