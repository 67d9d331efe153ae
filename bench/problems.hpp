// SPDX-License-Identifier: GPL-2.0-or-later
// The problems of the broad search benchmark (search_bench compare, and
// bench/search_compare.sh beside Optuna): the 24 BBOB functions in several
// dimensions, noisy versions of some, and mixed spaces shaped like real
// tuning problems. Every problem's minimum is 0, so the regret of a study is
// the true value of its best trial.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "bbob.hpp"
#include "search/sampler.hpp"
#include "space/search_space.hpp"
#include "test_functions.hpp"

namespace bench {

struct Problem {
  std::string name;        // e.g. "f15-rastrigin-rot-5d", "f1-sphere-5d-noisy", "mlp-mixed"
  std::string space_json;  // a tune search space
  double noise = 0;        // beta of BBOB's Gaussian noise model: observed = f * exp(beta N(0,1))
  std::function<double(const tune::Assignment&)> f;  // the true value, 0 at the minimum
};

inline double number(const tune::ParamValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  throw std::invalid_argument("a choice where a number was expected");
}

// What a trial observes: the true value, with the problem's noise drawn from
// a stream fixed by (seed, trial), so every sampler meets the same noise.
inline double observe(const Problem& p, const tune::Assignment& a, std::uint64_t seed, std::uint64_t trial,
                      double* truth = nullptr) {
  const double y = p.f(a);
  if (truth) *truth = y;
  if (p.noise <= 0) return y;
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + trial + 1);
  std::normal_distribution<double> n(0, 1);
  return y * std::exp(p.noise * n(rng));
}

// A network's validation loss as a function of its training settings: the
// best learning rate depends on the optimiser and grows with the batch
// size, dropout's best value with depth; ripples every half decade of the
// learning rate. Minimum 0 at adam, lr 1e-3, batch 128, 3 layers, dropout
// 0.25, weight decay 1e-4.
inline double mlp_loss(const tune::Assignment& a) {
  const double lr = std::log10(number(a[0])), batch = number(a[1]), layers = number(a[2]);
  const std::string& opt = std::get<std::string>(a[3]);
  const double dropout = number(a[4]), wd = std::log10(number(a[5]));
  const double base = opt == "sgd" ? -1.0 : opt == "momentum" ? -1.7 : -3.0;
  const double penalty = opt == "sgd" ? 0.3 : opt == "momentum" ? 0.1 : 0.0;
  const double best_lr = base + 0.5 * std::log10(batch / 128);
  return std::pow(lr - best_lr, 2) + 0.05 * std::pow(std::log2(batch) - 7, 2) +
         0.08 * std::pow(layers - 3, 2) + 4 * std::pow(dropout - (0.1 * layers - 0.05), 2) +
         0.05 * std::pow(wd + 4, 2) + penalty + 0.05 * (1 - std::cos(4 * std::numbers::pi * (lr - best_lr)));
}
inline const char* kMlpSpace = R"({"parameters": [
  {"name": "lr", "type": "bound", "value": [1e-5, 1], "log": true},
  {"name": "batch_size", "type": "int", "value": [16, 1024], "log": true},
  {"name": "layers", "type": "int", "value": [1, 6]},
  {"name": "optimizer", "type": "choice", "value": ["sgd", "momentum", "adam"]},
  {"name": "dropout", "type": "bound", "value": [0, 0.7]},
  {"name": "weight_decay", "type": "bound", "value": [1e-6, 0.1], "log": true}]})";

// Gradient boosting: what matters is the learning rate times the number of
// trees; depth, row subsampling and the booster follow. Minimum 0 at lr
// 0.05, 400 trees, depth 6, subsample 0.8, gbtree.
inline double gbm_loss(const tune::Assignment& a) {
  const double lr = number(a[0]), trees = number(a[1]), depth = number(a[2]), sub = number(a[3]);
  const std::string& booster = std::get<std::string>(a[4]);
  const double penalty = booster == "gbtree" ? 0.0 : booster == "dart" ? 0.02 : 0.3;
  return std::pow(std::log10(lr * trees / 20), 2) + 0.05 * std::pow(std::log10(trees / 400), 2) +
         0.01 * std::pow(depth - 6, 2) + 0.5 * std::pow(sub - 0.8, 2) + penalty;
}
inline const char* kGbmSpace = R"({"parameters": [
  {"name": "learning_rate", "type": "bound", "value": [1e-3, 1], "log": true},
  {"name": "n_estimators", "type": "int", "value": [10, 2000], "log": true},
  {"name": "max_depth", "type": "int", "value": [2, 12]},
  {"name": "subsample", "type": "bound", "value": [0.4, 1]},
  {"name": "booster", "type": "choice", "value": ["gbtree", "dart", "linear"]}]})";

// The same network with a conditional space: momentum and nesterov exist
// only for the momentum optimiser, beta1 and beta2 only for adam. With
// momentum m the best learning rate is the effective one, 1e-2 (1 - m) ...;
// adam wants beta1 0.9 and beta2 0.999. Minimum 0 at adam, lr 1e-3, beta1
// 0.9, beta2 0.999, 3 layers, dropout 0.25.
inline double mlp_conditional_loss(const tune::Assignment& a) {
  const std::string& opt = std::get<std::string>(a[0]);
  const double lr = std::log10(number(a[1])), layers = number(a[6]), dropout = number(a[7]);
  double best_lr = -1.0, penalty = 0.3;
  if (opt == "momentum") {
    const double m = number(a[2]);
    best_lr = -2.0 + std::log10(1 - m);
    penalty = std::get<std::string>(a[3]) == "yes" ? 0.04 : 0.08;
  } else if (opt == "adam") {
    best_lr = -3.0;
    penalty = 2 * std::pow(number(a[4]) - 0.9, 2) + (number(a[5]) == 0.999 ? 0.0 : 0.05);
  }
  return std::pow(lr - best_lr, 2) + penalty + 0.08 * std::pow(layers - 3, 2) +
         4 * std::pow(dropout - 0.25, 2) + 0.05 * (1 - std::cos(4 * std::numbers::pi * (lr - best_lr)));
}
inline const char* kMlpConditionalSpace = R"({"parameters": [
  {"name": "optimizer", "type": "choice", "value": ["sgd", "momentum", "adam"]},
  {"name": "lr", "type": "bound", "value": [1e-5, 1], "log": true},
  {"name": "momentum", "type": "bound", "value": [0.5, 0.99], "when": {"optimizer": ["momentum"]}},
  {"name": "nesterov", "type": "choice", "value": ["no", "yes"], "when": {"optimizer": ["momentum"]}},
  {"name": "beta1", "type": "bound", "value": [0.5, 0.999], "when": {"optimizer": ["adam"]}},
  {"name": "beta2", "type": "number", "value": [0.99, 0.999, 0.9999], "when": {"optimizer": ["adam"]}},
  {"name": "layers", "type": "int", "value": [1, 6]},
  {"name": "dropout", "type": "bound", "value": [0, 0.7]}]})";

struct ProblemSet {
  std::vector<int> dims = {2, 5, 10};
  std::vector<int> functions;  // BBOB ids; empty: all 24
  bool noisy = true, mixed = true;
  bool noiseless = true;  // false (search_bench --noisy-only): only the noisy versions (and mlp-mixed-noisy)
  bool conditional = false;  // search_bench --conditional: the conditional-space problem (not in the runs
                             // docs/results/search-quality.md reports)
};

inline std::vector<Problem> problems(const ProblemSet& set) {
  std::vector<Problem> out;
  std::vector<int> fids = set.functions;
  if (fids.empty())
    for (int f = 1; f <= 24; ++f) fids.push_back(f);
  for (int d : set.dims)
    for (int fid : fids) {
      auto fn = std::make_shared<bbob::Function>(fid, d, 1);
      auto f = [fn](const tune::Assignment& a) {
        std::vector<double> x;
        for (const auto& v : a) x.push_back(number(v));
        return (*fn)(x);
      };
      const std::string name =
          "f" + std::to_string(fid) + "-" + bbob::Function::name(fid) + "-" + std::to_string(d) + "d";
      if (set.noiseless) out.push_back({name, box(d, -5, 5), 0, f});
      // Severe Gaussian noise (BBOB's beta = 1) on four shapes: smooth,
      // valley, multimodal, many peaks.
      if (set.noisy && (fid == 1 || fid == 8 || fid == 15 || fid == 21))
        out.push_back({name + "-noisy", box(d, -5, 5), 1.0, f});
    }
  if (set.mixed) {
    if (set.noiseless) {
      out.push_back({"mlp-mixed", kMlpSpace, 0, mlp_loss});
      out.push_back({"gbm-mixed", kGbmSpace, 0, gbm_loss});
    }
    if (set.noisy) out.push_back({"mlp-mixed-noisy", kMlpSpace, 0.3, mlp_loss});
  }
  if (set.conditional) out.push_back({"mlp-conditional", kMlpConditionalSpace, 0, mlp_conditional_loss});
  return out;
}

}  // namespace bench
