// SPDX-License-Identifier: GPL-2.0-or-later
// What the search benchmarks share at their edges: the comma lists of their
// options, and the loop of their `serve` modes, which evaluate problems for
// the Python drivers (bench/optuna_compare.py, bench/mo_compare.py): one JSON
// request per line on stdin, one JSON answer per line on stdout, an error
// answered as {"error": message}.
#pragma once

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
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
