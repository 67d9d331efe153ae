// SPDX-License-Identifier: GPL-2.0-or-later
// What the search benchmarks share at their edges: the comma lists of their
// options, and the loop of their `serve` modes, which evaluate problems for
// the Python drivers (bench/optuna_compare.py, bench/mo_compare.py): one JSON
// request per line on stdin, one JSON answer per line on stdout, an error
// answered as {"error": message}.
#pragma once

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bench {

// "a,b,,c" -> {"a", "b", "c"}.
inline std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// "--seeds A-B" of the benchmarks: {A, B}. Throws std::invalid_argument.
inline std::pair<std::uint64_t, std::uint64_t> seed_range(const std::string& text) {
  const auto dash = text.find('-');
  if (dash == std::string::npos) throw std::invalid_argument("--seeds A-B, e.g. 0-9");
  return {std::stoull(text.substr(0, dash)), std::stoull(text.substr(dash + 1))};
}

template <typename Answer>
int serve_lines(Answer answer_to) {
  for (std::string line; std::getline(std::cin, line);) {
    nlohmann::json answer;
    try {
      answer = answer_to(nlohmann::json::parse(line));
    } catch (const std::exception& e) {
      answer = {{"error", e.what()}};
    }
    std::printf("%s\n", answer.dump().c_str());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace bench
