// SPDX-License-Identifier: GPL-2.0-or-later
// Which parameters matter: fANOVA (Hutter, Hoos and Leyton-Brown, ICML 2014)
// over a random forest fitted to the finished trials, as Optuna's default
// importance evaluator computes it: a forest of regression trees (bootstrap
// samples, every feature at every split, squared error, grown until pure),
// and for each tree the share of its prediction's variance over the space
// that each parameter explains alone (first-order marginal variance);
// importance = that share averaged over the trees, normalised to sum to 1.
// Parameters are on their own scale (not log-transformed), a choice is one
// column per value, marginalised together. A parameter with one value has
// importance 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "history/trial.hpp"
#include "space/search_space.hpp"

namespace tune {

struct RegressionTree {
  struct Node {
    int feature = -1;  // -1: a leaf
    double threshold = 0;
    int left = -1, right = -1;
    double value = 0;  // mean of the node's samples
  };
  std::vector<Node> nodes;  // nodes[0] is the root

  // Grows a tree on rows `rows` of X (a column per feature) until its leaves
  // are pure or hold one sample; splits at midpoints between values, the
  // best of every feature (ties to a feature drawn with `seed`).
  static RegressionTree fit(const std::vector<std::vector<double>>& X, const std::vector<double>& y,
                            const std::vector<std::size_t>& rows, std::uint64_t seed);
  double predict(const std::vector<double>& x) const;
};

// First-order fANOVA of one tree over the box `bounds` (low, high per feature).
class FanovaTree {
 public:
  FanovaTree(RegressionTree tree, std::vector<std::pair<double, double>> bounds);
  // Variance of the tree's prediction over the box (uniform measure).
  double variance() const { return variance_; }
  // Variance of the prediction marginalised over every feature but `features`.
  double marginal_variance(const std::vector<int>& features) const;
  // The prediction at `sample`'s values of the `active` features, averaged
  // over the others (uniformly over the box).
  double marginal_prediction(const std::vector<double>& sample, const std::vector<bool>& active) const {
    return marginalised(sample, active).first;
  }

 private:
  std::pair<double, double> marginalised(const std::vector<double>& sample,
                                         const std::vector<bool>& active) const;
  RegressionTree tree_;
  std::vector<std::pair<double, double>> bounds_;
  std::vector<std::pair<double, double>> stats_;        // per node: mean value, weight (volume)
  std::vector<std::vector<double>> midpoints_, sizes_;  // per feature: cells between split values
  std::vector<std::vector<bool>> subtree_features_;     // per node: features split on below it
  double variance_ = 0;
};

struct ParamImportance {
  std::string name;
  double importance = 0;  // shares summing to 1 over the space's parameters
  double spread = 0;      // standard deviation of the share over the trees
};

struct ImportanceOptions {
  int trees = 64;
  std::uint64_t seed = 0;
};

// The forest fitted to a study's ok trials, and what it says.
class ForestModel {
 public:
  // Nothing when there are fewer than 2 ok trials or their objective does not vary.
  static std::optional<ForestModel> fit(const SearchSpace& space, const std::vector<Trial>& trials,
                                        const ImportanceOptions& options = {});
  // Every parameter of the space that all the ok trials have, most important
  // first. A conditional parameter that some trials lack is left out, as
  // Optuna's evaluators leave out what is not in every trial's space: the
  // variance decomposition integrates each parameter over its whole range.
  std::vector<ParamImportance> importance() const;
  // The parameters left out for that reason.
  const std::vector<std::string>& left_out() const { return left_out_; }
  // Whether parameter j is in the model.
  bool models(std::size_t j) const { return j < in_model_.size() && in_model_[j]; }
  // The fitted objective with the parameters of `fixed` (index in the space,
  // value) set and every other averaged over its range.
  double marginal(const std::vector<std::pair<std::size_t, ParamValue>>& fixed) const;

 private:
  const SearchSpace* space_ = nullptr;
  std::vector<std::vector<int>> columns_;  // per parameter: its columns (none: one value)
  std::vector<std::pair<double, double>> bounds_;
  std::vector<FanovaTree> trees_;
  std::vector<bool> in_model_;
  std::vector<std::string> left_out_;
};

// ForestModel::fit(...)->importance(), or empty.
std::vector<ParamImportance> parameter_importance(const SearchSpace& space, const std::vector<Trial>& trials,
                                                  const ImportanceOptions& options = {});

}  // namespace tune
