// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_output/stdout_metric.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace tune {

namespace {
constexpr std::size_t kMaxLine = 64 * 1024;
}

StdoutMetric::StdoutMetric(const std::string& pattern) : pattern_(pattern) {
  try {
    regex_ = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw std::invalid_argument("--metric-regex '" + pattern +
                                "' is not a valid regular expression: " + e.what());
  }
}

void StdoutMetric::scan(const std::string& line) {
  std::smatch m;
  if (!std::regex_search(line, m, regex_)) return;
  const std::string text = m.size() > 1 && m[1].matched ? m[1].str() : m[0].str();
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  value_ = (ec == std::errc() && end == text.data() + text.size()) ? v : std::nan("");
}

void StdoutMetric::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const auto nl = bytes.find('\n');
    if (partial_.size() < kMaxLine)
      partial_.append(bytes.substr(0, std::min(nl, kMaxLine - partial_.size())));
    if (nl == std::string_view::npos) return;
    scan(partial_);
    partial_.clear();
    bytes.remove_prefix(nl + 1);
  }
}

void StdoutMetric::finish() {
  if (!partial_.empty()) scan(partial_);
  partial_.clear();
}

}  // namespace tune
