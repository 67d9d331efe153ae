// SPDX-License-Identifier: GPL-2.0-or-later
// The standard optimisation test functions of the search benchmarks, with
// their domains (as tune search spaces) and known minima.
#pragma once

#include <array>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

namespace bench {

struct TestFunction {
  std::string name;
  std::string space_json;
  double minimum;
  std::function<double(const std::vector<double>&)> f;
};

inline double branin(const std::vector<double>& x) {
  const double pi = std::numbers::pi;
  const double a = x[1] - 5.1 / (4 * pi * pi) * x[0] * x[0] + 5 / pi * x[0] - 6;
  return a * a + 10 * (1 - 1 / (8 * pi)) * std::cos(x[0]) + 10;
}

inline double hartmann6(const std::vector<double>& x) {
  static const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
  static const double A[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                 {0.05, 10, 17, 0.1, 8, 14},
                                 {3, 3.5, 1.7, 10, 17, 8},
                                 {17, 8, 0.05, 10, 0.1, 14}};
  static const double P[4][6] = {{1312, 1696, 5569, 124, 8283, 5886},
                                 {2329, 4135, 8307, 3736, 1004, 9991},
                                 {2348, 1451, 3522, 2883, 3047, 6650},
                                 {4047, 8828, 8732, 5743, 1091, 381}};
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0;
    for (int j = 0; j < 6; ++j) inner += A[i][j] * (x[j] - 1e-4 * P[i][j]) * (x[j] - 1e-4 * P[i][j]);
    sum += alpha[i] * std::exp(-inner);
  }
  return -sum;
}

inline double rosenbrock(const std::vector<double>& x) {
  double sum = 0;
  for (std::size_t i = 0; i + 1 < x.size(); ++i)
    sum += 100 * std::pow(x[i + 1] - x[i] * x[i], 2) + std::pow(1 - x[i], 2);
  return sum;
}

inline std::string box(int dims, double low, double high, const char* prefix = "x") {
  std::string s = R"({"parameters": [)";
  for (int i = 0; i < dims; ++i)
    s += std::string(i ? ", " : "") + R"({"name": ")" + prefix + std::to_string(i) +
         R"(", "type": "bound", "value": [)" + std::to_string(low) + ", " + std::to_string(high) + "]}";
  return s + "]}";
}

inline std::vector<TestFunction> test_functions() {
  return {
      {"Branin", R"({"parameters": [{"name": "x0", "type": "bound", "value": [-5, 10]},
                                    {"name": "x1", "type": "bound", "value": [0, 15]}]})",
       0.397887357729738, branin},
      {"Hartmann6", box(6, 0, 1), -3.32236801141551, hartmann6},
      {"Rosenbrock4", box(4, -2, 2), 0.0, rosenbrock},
  };
}

}  // namespace bench
