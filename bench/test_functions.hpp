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

// Branin, Hartmann-3 (x of 3) and Hartmann-6 (x of 6) at fidelity z in (0, 1]:
// z = 1 is the function itself; lower z shifts the coefficients as Kandasamy
// et al. define it (ICML 2017, "Multi-fidelity Bayesian optimisation with
// continuous approximations", appendix; the versions HPOBench and BoTorch
// carry): a cheap, biased version of the function.
inline double branin_at(const std::vector<double>& x, double z) {
  const double pi = std::numbers::pi;
  const double b = 5.1 / (4 * pi * pi) - 0.01 * (1 - z), c = 5 / pi - 0.1 * (1 - z);
  const double t = 1 / (8 * pi) + 0.05 * (1 - z);
  const double a = x[1] - b * x[0] * x[0] + c * x[0] - 6;
  return a * a + 10 * (1 - t) * std::cos(x[0]) + 10;
}

inline double hartmann_at(const std::vector<double>& x, double z) {
  static const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
  static const double A3[4][3] = {{3, 10, 30}, {0.1, 10, 35}, {3, 10, 30}, {0.1, 10, 35}};
  static const double P3[4][3] = {
      {3689, 1170, 2673}, {4699, 4387, 7470}, {1091, 8732, 5547}, {381, 5743, 8828}};
  static const double A6[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                  {0.05, 10, 17, 0.1, 8, 14},
                                  {3, 3.5, 1.7, 10, 17, 8},
                                  {17, 8, 0.05, 10, 0.1, 14}};
  static const double P6[4][6] = {{1312, 1696, 5569, 124, 8283, 5886},
                                  {2329, 4135, 8307, 3736, 1004, 9991},
                                  {2348, 1451, 3522, 2883, 3047, 6650},
                                  {4047, 8828, 8732, 5743, 1091, 381}};
  const bool six = x.size() == 6;
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0;
    for (std::size_t j = 0; j < x.size(); ++j) {
      const double a = six ? A6[i][j] : A3[i][j], p = 1e-4 * (six ? P6[i][j] : P3[i][j]);
      inner += a * (x[j] - p) * (x[j] - p);
    }
    sum += (alpha[i] - 0.1 * (1 - z)) * std::exp(-inner);
  }
  return -sum;
}

inline double branin(const std::vector<double>& x) {
  return branin_at(x, 1);
}
inline double hartmann6(const std::vector<double>& x) {
  return hartmann_at(x, 1);
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
