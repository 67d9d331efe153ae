// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_output/report_parser.hpp"

#include <cctype>
#include <charconv>
#include <cmath>

namespace tune {
namespace {

bool valid_key(std::string_view key) {
  if (key.empty() || key.size() > 64) return false;
  if (!(std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_')) return false;
  for (unsigned char c : key)
    if (!(std::isalnum(c) || c == '_' || c == '.')) return false;
  return true;
}

std::string shown(std::string_view s) {
  std::string out;
  for (unsigned char c : s.substr(0, 40)) out += std::isprint(c) ? static_cast<char>(c) : '?';
  return s.size() > 40 ? out + "..." : out;
}

std::optional<double> parse_number(std::string_view text) {
  double v = 0;
  // from_chars takes "nan" and "inf" as numbers too; they are kept and judged later.
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<Report> ReportParser::parse_line(std::string_view line, std::string& error) {
  error.clear();
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::size_t i = 0;
  auto skip_space = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  };
  skip_space();
  if (i == line.size() || line[i] == '#') return std::nullopt;
  Report r;
  bool any = false;
  while (i < line.size()) {
    std::size_t end = i;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    const std::string_view token = line.substr(i, end - i);
    i = end;
    skip_space();
    const auto eq = token.find('=');
    if (eq == std::string_view::npos) {
      error = "'" + shown(token) + "' is not key=value";
      return std::nullopt;
    }
    const auto key = token.substr(0, eq), text = token.substr(eq + 1);
    if (!valid_key(key)) {
      error = "bad key '" + shown(key) + "'";
      return std::nullopt;
    }
    const auto value = parse_number(text);
    if (!value) {
      error = "value of '" + std::string(key) + "' is not a number: '" + shown(text) + "'";
      return std::nullopt;
    }
    if (key == "step") {
      if (!(*value >= 0 && *value <= 9e15 && *value == std::floor(*value))) {
        error = "step must be a whole number >= 0, got '" + shown(text) + "'";
        return std::nullopt;
      }
      r.step = static_cast<std::int64_t>(*value);
    } else if (key == "objective") {
      r.objective = *value;
    } else {
      r.metrics.emplace_back(std::string(key), *value);
    }
    any = true;
  }
  if (!any) return std::nullopt;
  return r;
}

void ReportParser::reject(std::string error) {
  ++bad_lines_;
  if (first_error_.empty()) first_error_ = "report line " + std::to_string(line_number_) + ": " + error;
}

void ReportParser::complete_line(std::vector<Report>& out) {
  ++line_number_;
  if (overlong_) {
    overlong_ = false;
    reject("longer than " + std::to_string(max_line_) + " bytes");
  } else {
    std::string error;
    if (auto r = parse_line(partial_, error)) {
      out.push_back(std::move(*r));
    } else if (!error.empty()) {
      reject(std::move(error));
    }
  }
  partial_.clear();
}

void ReportParser::feed(std::string_view bytes, std::vector<Report>& out) {
  while (!bytes.empty()) {
    const auto nl = bytes.find('\n');
    const auto chunk = bytes.substr(0, nl);
    if (!overlong_) {
      if (partial_.size() + chunk.size() > max_line_) {
        overlong_ = true;  // keep memory bounded: drop the line, count it once
        partial_.clear();
      } else {
        partial_.append(chunk);
      }
    }
    if (nl == std::string_view::npos) return;
    complete_line(out);
    bytes.remove_prefix(nl + 1);
  }
}

void ReportParser::finish(std::vector<Report>& out) {
  if (!partial_.empty() || overlong_) complete_line(out);
}

}  // namespace tune
