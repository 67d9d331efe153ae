// SPDX-License-Identifier: GPL-2.0-or-later
// The problems of the multi-fidelity benchmark (multifidelity_bench): each
// trial reports a value after every step (epoch) up to max_step, and its
// value at max_step is its result.
//   - the recorded training tables of data/workloads (workload_table.hpp):
//     scikit-learn MLPs trained with SGD, the held-out accuracy after each of
//     20 epochs, maximised;
//   - multi-fidelity test functions, minimised: Branin, Hartmann-3 and
//     Hartmann-6 at fidelity z = step / max_step (test_functions.hpp), so
//     that a trial's early steps see a cheap, biased version of the function
//     and its last one the function itself.
// A problem's regret of a result is how far it is from the best possible
// (the table's best run, the function's minimum).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "test_functions.hpp"
#include "workload_table.hpp"

namespace bench {

struct MfProblem {
  std::string name;
  std::string space_json;
  int max_step = 0;
  bool minimize = true;
  // The value a trial reports at `step` (1..max_step); x in the space's order.
  std::function<double(const std::vector<double>& x, std::uint64_t trial, int step)> value;
  // How far a result (the value at max_step) is from the best possible; >= 0.
  std::function<double(double result)> regret;
};

inline MfProblem table_problem(const WorkloadTable& t) {
  return {t.name,
          workload_space_json(),
          static_cast<int>(t.epochs),
          false,
          [t](const std::vector<double>& x, std::uint64_t trial, int step) {
            return t.run(x[0], x[1], trial)[static_cast<std::size_t>(step - 1)];
          },
          [best = t.best](double result) { return std::max(0.0, best - result); }};
}

// The functions at max_step steps (27: rungs 1, 3, 9, 27 at reduction factor 3).
inline std::vector<MfProblem> function_problems(int max_step = 27) {
  const auto at = [max_step](auto f) {
    return [f, max_step](const std::vector<double>& x, std::uint64_t, int step) {
      return f(x, static_cast<double>(step) / max_step);
    };
  };
  const auto above = [](double minimum) {
    return [minimum](double r) { return std::max(0.0, r - minimum); };
  };
  return {
      {"branin-mf", test_functions()[0].space_json, max_step, true, at(branin_at), above(0.397887357729738)},
      {"hartmann3-mf", box(3, 0, 1), max_step, true, at(hartmann_at), above(-3.86278214782076)},
      {"hartmann6-mf", box(6, 0, 1), max_step, true, at(hartmann_at), above(-3.32236801141551)},
  };
}

}  // namespace bench
