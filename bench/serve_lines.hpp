// The loop of the benchmarks' `serve` modes, which evaluate problems for the
// Python drivers (bench/optuna_compare.py, bench/mo_compare.py): one JSON
// request per line on stdin, one JSON answer per line on stdout, an error
// answered as {"error": message}.
#pragma once

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

namespace bench {

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
