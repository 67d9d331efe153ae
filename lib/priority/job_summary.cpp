// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority/job_summary.hpp"

#include <charconv>
#include <cstdio>

namespace tune {
namespace {

std::string compact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

template <class T>
bool number(std::string_view s, T& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

}  // namespace

std::string format_summary(const JobSummary& s) {
  std::string out = "tune:tenant=" + s.tenant;
  if (s.dominant_share) out += ";ds=" + compact(*s.dominant_share);
  if (s.factor) out += ";fs=" + compact(*s.factor);
  if (s.study) out += ";study=" + *s.study + ";level=" + std::to_string(s.level);
  if (s.priority) out += ";prio=" + std::to_string(*s.priority);
  if (s.site) out += ";site=" + std::to_string(*s.site);
  return out;
}

std::optional<JobSummary> parse_summary(std::string_view c) {
  const auto at = c.find("tune:tenant=");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view body = c.substr(at + 5);
  while (!body.empty() && (body.back() == ' ' || body.back() == '\n')) body.remove_suffix(1);
  JobSummary s;
  while (!body.empty()) {
    const auto end = body.find(';');
    const auto field = body.substr(0, end);
    body = end == std::string_view::npos ? std::string_view{} : body.substr(end + 1);
    const auto eq = field.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    const auto key = field.substr(0, eq), value = field.substr(eq + 1);
    bool ok = true;
    if (key == "tenant")
      s.tenant = value;
    else if (key == "ds")
      ok = number(value, s.dominant_share.emplace());
    else if (key == "fs")
      ok = number(value, s.factor.emplace());
    else if (key == "study")
      s.study = std::string(value);
    else if (key == "level")
      ok = number(value, s.level);
    else if (key == "prio")
      ok = number(value, s.priority.emplace());
    else if (key == "site")
      ok = number(value, s.site.emplace());
    if (!ok) return std::nullopt;
  }
  return s;
}

}  // namespace tune
