// SPDX-License-Identifier: GPL-2.0-or-later
// A policy's own settings, declared once in its registry entry (a sampler's
// --grid-points, a pruner's --reduction-factor): its key, flag, help, default
// and range. From that one declaration tune run and tune submit get the flag
// (lib/command/study_flags), the job script passes it on, the history keeps
// the values (as JSON, by key), a resumed study is checked against them
// (lib/study/resume_check) and the man page lists it (man/registry_text).
// So a new policy with a setting is its file and one registry line.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tune {

struct SettingSpec {
  std::string key;   // in the history and the code: "grid_points"
  std::string flag;  // on the command line: "--grid-points"
  std::string help;  // one line, for --help and the man page, without the default
  double fallback = 0;
  double lo = 0, hi = 0;  // accepted values, both included
  bool integer = true;
  std::string metavar = "N";  // in the man page: --grid-points N
};

// The values a policy runs with, by key. Made complete (every declared key,
// each checked) by `complete` before a policy is built, so a factory reads
// `at(key)` and never a default of its own.
class Settings {
 public:
  Settings() = default;
  explicit Settings(std::map<std::string, double> values) : values_(std::move(values)) {}

  // The value of `key`; std::out_of_range naming the key when absent.
  double at(std::string_view key) const;
  bool has(std::string_view key) const { return values_.find(std::string(key)) != values_.end(); }
  void set(const std::string& key, double v) { values_[key] = v; }
  const std::map<std::string, double>& values() const { return values_; }
  bool operator==(const Settings&) const = default;

  nlohmann::json to_json() const;
  // Throws std::invalid_argument for anything but an object of numbers.
  static Settings from_json(const nlohmann::json& j);

 private:
  std::map<std::string, double> values_;
};

// `given` with each of `specs` checked against its range (the message names
// the flag) and the declared default where absent; keys not declared are
// left out (a history's settings of another policy).
Settings complete(const std::vector<SettingSpec>& specs, const Settings& given);

// A typed value ("9", "0.25") of `spec` as a number, checked against its
// range and kind; std::invalid_argument naming the flag otherwise.
double read_setting(const SettingSpec& spec, std::string_view text);

// The value as a flag takes it: "9", "0.25".
std::string setting_text(double v);

}  // namespace tune
