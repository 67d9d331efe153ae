// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial/placeholders.hpp"

#include <stdexcept>

namespace tune {

namespace {

// Calls text(piece) for literal text and name(n) for each {n} of `arg`.
template <typename Text, typename Name>
void scan_placeholders(const std::string& arg, Text text, Name name) {
  for (std::size_t i = 0; i < arg.size(); ++i) {
    if (arg.compare(i, 2, "{{") == 0 || arg.compare(i, 2, "}}") == 0) {
      text(std::string(1, arg[i]));
      ++i;
      continue;
    }
    if (arg[i] != '{') {
      text(std::string(1, arg[i]));
      continue;
    }
    const auto close = arg.find('}', i);
    if (close == std::string::npos) {
      text(arg.substr(i));
      break;
    }
    name(arg.substr(i + 1, close - i - 1));
    i = close;
  }
}

}  // namespace

std::vector<std::string> fill_placeholders(const std::vector<std::string>& argv,
                                           const std::vector<std::pair<std::string, std::string>>& values) {
  std::vector<std::string> out;
  for (const auto& arg : argv) {
    std::string s;
    scan_placeholders(
        arg, [&](const std::string& t) { s += t; },
        [&](const std::string& name) {
          for (const auto& [k, v] : values)
            if (k == name) {
              s += v;
              return;
            }
          throw std::invalid_argument(
              "the command names {" + name +
              "}, which is not a parameter of the search space (write {{ and }} for literal "
              "braces)");
        });
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> placeholder_names(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (const auto& arg : argv)
    scan_placeholders(
        arg, [](const std::string&) {}, [&](const std::string& n) { out.push_back(n); });
  return out;
}

}  // namespace tune
