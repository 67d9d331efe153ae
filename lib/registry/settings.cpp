// SPDX-License-Identifier: GPL-2.0-or-later
#include "registry/settings.hpp"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace tune {

double Settings::at(std::string_view key) const {
  const auto it = values_.find(std::string(key));
  if (it == values_.end()) throw std::out_of_range("no setting '" + std::string(key) + "'");
  return it->second;
}

nlohmann::json Settings::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : values_) {
    if (v == std::floor(v) && std::fabs(v) < 9e15)
      j[k] = static_cast<long long>(v);
    else
      j[k] = v;
  }
  return j;
}

Settings Settings::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("settings: not a JSON object");
  Settings s;
  for (const auto& [k, v] : j.items()) {
    if (!v.is_number()) throw std::invalid_argument("settings: '" + k + "' is not a number");
    s.set(k, v.get<double>());
  }
  return s;
}

std::string setting_text(double v) {
  std::ostringstream s;
  s.precision(15);
  s << v;
  return s.str();
}

namespace {

void check(const SettingSpec& spec, double v) {
  if (!std::isfinite(v) || v < spec.lo || v > spec.hi || (spec.integer && v != std::floor(v)))
    throw std::invalid_argument(spec.flag + ": " + setting_text(v) + " is not " +
                                (spec.integer ? "a whole number " : "a number ") + "in [" +
                                setting_text(spec.lo) + " - " + setting_text(spec.hi) + "]");
}

}  // namespace

Settings complete(const std::vector<SettingSpec>& specs, const Settings& given) {
  Settings out;
  for (const auto& spec : specs) {
    const double v = given.has(spec.key) ? given.at(spec.key) : spec.fallback;
    check(spec, v);
    out.set(spec.key, v);
  }
  return out;
}

double read_setting(const SettingSpec& spec, std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(spec.flag + ": '" + std::string(text) + "' is not a number");
  check(spec, v);
  return v;
}

}  // namespace tune
