// SPDX-License-Identifier: GPL-2.0-or-later
#include "estimators/progress_record.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "history/direction.hpp"

namespace tune {
namespace {

constexpr std::string_view kPrefix = "tune:";

bool key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Where the record starts: "tune:" at the start or after a space.
std::size_t record_start(std::string_view c) {
  if (c.substr(0, kPrefix.size()) == kPrefix) return 0;
  const auto at = c.rfind(std::string(" ") + std::string(kPrefix));
  return at == std::string_view::npos ? std::string_view::npos : at + 1;
}

bool parse_int(std::string_view s, std::int64_t& out) {
  if (s.empty() || s.size() > 12) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

bool parse_double(std::string_view s, double& out) {
  if (s.empty() || s.size() > 32) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size() && std::isfinite(out) && std::fabs(out) < 1e300;
}

}  // namespace

std::string format_progress(const ProgressRecord& r) {
  std::string s = std::string(kPrefix) + "study=" + r.study + ";n=" + std::to_string(r.trials) +
                  ";dir=" + (r.minimize ? "min" : "max") + ";top=";
  for (std::size_t i = 0; i < r.top.size(); ++i) s += (i ? "," : "") + number(r.top[i]);
  if (r.target) s += ";tgt=" + number(*r.target);
  if (r.left) s += ";left=" + std::to_string(*r.left);
  if (r.role == StudyRole::Trial) s += ";role=trial";
  if (r.role == StudyRole::AppCore) s += ";role=appcore";
  return s;
}

std::string_view user_text(std::string_view comment) {
  const auto at = record_start(comment);
  if (at == std::string_view::npos) return comment;
  auto text = comment.substr(0, at);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

std::optional<ProgressRecord> parse_progress(std::string_view comment) {
  const auto at = record_start(comment);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view body = comment.substr(at + kPrefix.size());
  if (body.size() > 512) return std::nullopt;
  ProgressRecord r;
  bool have_study = false, have_n = false, have_dir = false, have_top = false, have_role = false;
  bool have_target = false, have_left = false;
  while (!body.empty()) {
    const auto end = body.find(';');
    const std::string_view field = body.substr(0, end);
    body = end == std::string_view::npos ? std::string_view{} : body.substr(end + 1);
    const auto eq = field.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    const auto key = field.substr(0, eq);
    auto value = field.substr(eq + 1);
    if (key == "study" && !have_study) {
      if (value.empty() || value.size() > ProgressRecord::kMaxKey) return std::nullopt;
      for (char c : value)
        if (!key_char(c)) return std::nullopt;
      r.study = value;
      have_study = true;
    } else if (key == "n" && !have_n) {
      if (!parse_int(value, r.trials) || r.trials < 0 || r.trials > ProgressRecord::kMaxTrials)
        return std::nullopt;
      have_n = true;
    } else if (key == "dir" && !have_dir) {
      if (value != "min" && value != "max") return std::nullopt;
      r.minimize = value == "min";
      have_dir = true;
    } else if (key == "top" && !have_top) {
      while (!value.empty()) {
        const auto comma = value.find(',');
        double v;
        if (!parse_double(value.substr(0, comma), v) || r.top.size() == ProgressRecord::kMaxTop)
          return std::nullopt;
        r.top.push_back(v);
        value = comma == std::string_view::npos ? std::string_view{} : value.substr(comma + 1);
        if (comma != std::string_view::npos && value.empty()) return std::nullopt;
      }
      have_top = true;
    } else if (key == "tgt" && !have_target) {
      double v;
      if (!parse_double(value, v)) return std::nullopt;
      r.target = v;
      have_target = true;
    } else if (key == "left" && !have_left) {
      std::int64_t v;
      if (!parse_int(value, v) || v < 0 || v > ProgressRecord::kMaxTrials) return std::nullopt;
      r.left = v;
      have_left = true;
    } else if (key == "role" && !have_role) {
      if (value == "trial")
        r.role = StudyRole::Trial;
      else if (value == "appcore")
        r.role = StudyRole::AppCore;
      else
        return std::nullopt;
      have_role = true;
    } else {
      return std::nullopt;  // unknown or repeated key
    }
  }
  if (!have_study || !have_n || !have_dir || !have_top) return std::nullopt;
  if (r.top.size() > static_cast<std::size_t>(r.trials)) return std::nullopt;
  for (std::size_t i = 1; i < r.top.size(); ++i)  // best first
    if (better(r.minimize, r.top[i], r.top[i - 1])) return std::nullopt;
  return r;
}

std::optional<std::string> merge_progress(std::string_view comment, const ProgressRecord& record,
                                          std::size_t limit) {
  std::string out(user_text(comment));
  if (!out.empty()) out += ' ';
  out += format_progress(record);
  if (out.size() > limit) return std::nullopt;
  return out;
}

}  // namespace tune
