// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/importance.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

namespace tune {

namespace {

constexpr int kMaxDepth = 64;  // Optuna's FanovaImportanceEvaluator

// Squared error of y over rows[a, b) from prefix sums.
double sse(double sum, double sum2, double n) {
  return n > 0 ? sum2 - sum * sum / n : 0;
}

int grow(RegressionTree& tree, const std::vector<std::vector<double>>& X, const std::vector<double>& y,
         std::vector<std::size_t> rows, int depth, std::mt19937_64& rng) {
  const int index = static_cast<int>(tree.nodes.size());
  tree.nodes.emplace_back();
  double sum = 0, sum2 = 0;
  for (auto r : rows) sum += y[r], sum2 += y[r] * y[r];
  const double n = static_cast<double>(rows.size());
  tree.nodes[index].value = sum / n;
  const double impurity = sse(sum, sum2, n);
  if (rows.size() < 2 || depth >= kMaxDepth || !(impurity > 1e-12 * std::max(1.0, sum2))) return index;

  std::vector<std::size_t> features(X.size());
  std::iota(features.begin(), features.end(), 0);
  std::shuffle(features.begin(), features.end(), rng);  // ties go to a random feature, as in scikit-learn
  int best_feature = -1;
  double best_gain = 0, best_threshold = 0;
  std::vector<std::size_t> sorted = rows;
  for (auto f : features) {
    const auto& col = X[f];
    std::sort(sorted.begin(), sorted.end(), [&](auto a, auto b) { return col[a] < col[b]; });
    double ls = 0, ls2 = 0;
    for (std::size_t i = 0; i + 1 < sorted.size(); ++i) {
      const double v = y[sorted[i]];
      ls += v, ls2 += v * v;
      const double a = col[sorted[i]], b = col[sorted[i + 1]];
      if (!(a < b)) continue;
      const double nl = static_cast<double>(i + 1), nr = n - nl;
      const double gain = impurity - sse(ls, ls2, nl) - sse(sum - ls, sum2 - ls2, nr);
      if (gain > best_gain) {
        best_gain = gain;
        best_feature = static_cast<int>(f);
        best_threshold = a + (b - a) / 2;
        if (best_threshold >= b) best_threshold = a;  // rounding
      }
    }
  }
  if (best_feature < 0) return index;
  std::vector<std::size_t> left, right;
  for (auto r : rows)
    (X[static_cast<std::size_t>(best_feature)][r] <= best_threshold ? left : right).push_back(r);
  rows.clear();
  rows.shrink_to_fit();
  tree.nodes[index].feature = best_feature;
  tree.nodes[index].threshold = best_threshold;
  const int l = grow(tree, X, y, std::move(left), depth + 1, rng);
  const int r = grow(tree, X, y, std::move(right), depth + 1, rng);
  tree.nodes[index].left = l;
  tree.nodes[index].right = r;
  return index;
}

double volume(const std::vector<std::pair<double, double>>& box) {
  double v = 1;
  for (const auto& [lo, hi] : box) v *= hi - lo;
  return v;
}

// Weighted mean and variance.
std::pair<double, double> weighted(const std::vector<double>& values, const std::vector<double>& weights) {
  double w = 0, m = 0;
  for (std::size_t i = 0; i < values.size(); ++i) w += weights[i], m += weights[i] * values[i];
  if (!(w > 0)) return {0, 0};
  m /= w;
  double v = 0;
  for (std::size_t i = 0; i < values.size(); ++i) v += weights[i] * (values[i] - m) * (values[i] - m);
  return {m, v / w};
}

}  // namespace

RegressionTree RegressionTree::fit(const std::vector<std::vector<double>>& X, const std::vector<double>& y,
                                   const std::vector<std::size_t>& rows, std::uint64_t seed) {
  RegressionTree tree;
  std::mt19937_64 rng(seed);
  grow(tree, X, y, rows, 0, rng);
  return tree;
}

double RegressionTree::predict(const std::vector<double>& x) const {
  int i = 0;
  while (nodes[static_cast<std::size_t>(i)].feature >= 0) {
    const auto& n = nodes[static_cast<std::size_t>(i)];
    i = x[static_cast<std::size_t>(n.feature)] <= n.threshold ? n.left : n.right;
  }
  return nodes[static_cast<std::size_t>(i)].value;
}

FanovaTree::FanovaTree(RegressionTree tree, std::vector<std::pair<double, double>> bounds)
    : tree_(std::move(tree)), bounds_(std::move(bounds)) {
  const auto& nodes = tree_.nodes;
  const std::size_t n = nodes.size(), d = bounds_.size();
  stats_.assign(n, {0, 0});
  // Each node's box, from the root down (children always follow their parent).
  std::vector<std::vector<std::pair<double, double>>> boxes(n);
  boxes[0] = bounds_;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& node = nodes[i];
    if (node.feature < 0) {
      stats_[i] = {node.value, volume(boxes[i])};
      continue;
    }
    const auto f = static_cast<std::size_t>(node.feature);
    boxes[static_cast<std::size_t>(node.left)] = boxes[i];
    boxes[static_cast<std::size_t>(node.left)][f].second = node.threshold;
    boxes[static_cast<std::size_t>(node.right)] = boxes[i];
    boxes[static_cast<std::size_t>(node.right)][f].first = node.threshold;
    boxes[i].clear();
  }
  for (std::size_t i = n; i-- > 0;) {
    const auto& node = nodes[i];
    if (node.feature < 0) continue;
    const auto& [lv, lw] = stats_[static_cast<std::size_t>(node.left)];
    const auto& [rv, rw] = stats_[static_cast<std::size_t>(node.right)];
    stats_[i] = {lw + rw > 0 ? (lv * lw + rv * rw) / (lw + rw) : (lv + rv) / 2, lw + rw};
  }
  std::vector<double> values, weights;
  for (std::size_t i = 0; i < n; ++i)
    if (nodes[i].feature < 0) values.push_back(stats_[i].first), weights.push_back(stats_[i].second);
  variance_ = weighted(values, weights).second;

  std::vector<std::set<double>> splits(d);
  for (const auto& node : nodes)
    if (node.feature >= 0) splits[static_cast<std::size_t>(node.feature)].insert(node.threshold);
  midpoints_.resize(d);
  sizes_.resize(d);
  for (std::size_t f = 0; f < d; ++f) {
    std::vector<double> edges{bounds_[f].first};
    edges.insert(edges.end(), splits[f].begin(), splits[f].end());
    edges.push_back(bounds_[f].second);
    for (std::size_t k = 0; k + 1 < edges.size(); ++k) {
      midpoints_[f].push_back((edges[k] + edges[k + 1]) / 2);
      sizes_[f].push_back(edges[k + 1] - edges[k]);
    }
  }
  subtree_features_.assign(n, std::vector<bool>(d, false));
  for (std::size_t i = n; i-- > 0;) {
    const auto& node = nodes[i];
    if (node.feature < 0) continue;
    auto& mine = subtree_features_[i];
    mine[static_cast<std::size_t>(node.feature)] = true;
    for (int c : {node.left, node.right})
      for (std::size_t f = 0; f < d; ++f)
        if (subtree_features_[static_cast<std::size_t>(c)][f]) mine[f] = true;
  }
}

std::pair<double, double> FanovaTree::marginalised(const std::vector<double>& sample,
                                                   const std::vector<bool>& active) const {
  const auto& nodes = tree_.nodes;
  auto box = bounds_;
  for (std::size_t f = 0; f < box.size(); ++f)
    if (!active[f]) box[f] = {0.0, 1.0};
  std::vector<std::pair<int, std::vector<std::pair<double, double>>>> stack{{0, box}};
  std::vector<double> values, weights;
  while (!stack.empty()) {
    auto [i, space] = std::move(stack.back());
    stack.pop_back();
    const auto& node = nodes[static_cast<std::size_t>(i)];
    if (node.feature >= 0) {
      const auto f = static_cast<std::size_t>(node.feature);
      if (active[f]) {  // the sample decides the branch
        if (sample[f] <= node.threshold) {
          space[f].second = node.threshold;
          stack.emplace_back(node.left, std::move(space));
        } else {
          space[f].first = node.threshold;
          stack.emplace_back(node.right, std::move(space));
        }
        continue;
      }
      bool below = false;
      for (std::size_t g = 0; g < active.size() && !below; ++g)
        below = active[g] && subtree_features_[static_cast<std::size_t>(i)][g];
      if (below) {
        stack.emplace_back(node.left, space);
        stack.emplace_back(node.right, std::move(space));
        continue;
      }
    }
    values.push_back(stats_[static_cast<std::size_t>(i)].first);
    weights.push_back(stats_[static_cast<std::size_t>(i)].second / volume(space));
  }
  const double w = std::accumulate(weights.begin(), weights.end(), 0.0);
  return {weighted(values, weights).first, w};
}

double FanovaTree::marginal_variance(const std::vector<int>& features) const {
  std::vector<bool> active(bounds_.size(), false);
  for (int f : features) active[static_cast<std::size_t>(f)] = true;
  std::vector<double> sample(bounds_.size(), 0.0), values, weights;
  std::vector<std::size_t> digit(features.size(), 0);
  while (true) {  // every combination of the features' cells
    double size = 1;
    for (std::size_t k = 0; k < features.size(); ++k) {
      const auto f = static_cast<std::size_t>(features[k]);
      sample[f] = midpoints_[f][digit[k]];
      size *= sizes_[f][digit[k]];
    }
    const auto [value, weight] = marginalised(sample, active);
    values.push_back(value);
    weights.push_back(weight * size);
    std::size_t k = 0;
    for (; k < features.size(); ++k) {
      if (++digit[k] < midpoints_[static_cast<std::size_t>(features[k])].size()) break;
      digit[k] = 0;
    }
    if (k == features.size()) break;
  }
  return std::max(0.0, weighted(values, weights).second);
}

namespace {

double number_of(const ParamValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* x = std::get_if<double>(&v)) return *x;
  return 0.0;
}

}  // namespace

std::optional<ForestModel> ForestModel::fit(const SearchSpace& space, const std::vector<Trial>& trials,
                                            const ImportanceOptions& options) {
  std::vector<const Trial*> ok;
  for (const auto& t : trials)
    if (t.state == TrialState::Ok && t.objective && std::isfinite(*t.objective) &&
        t.params.size() == space.dimensions())
      ok.push_back(&t);
  if (ok.size() < 2) return std::nullopt;
  std::vector<double> y;
  for (const auto* t : ok) y.push_back(*t->objective);
  if (*std::max_element(y.begin(), y.end()) == *std::min_element(y.begin(), y.end())) return std::nullopt;

  // Columns: a numeric parameter on its own scale, a choice one column per value.
  ForestModel m;
  m.space_ = &space;
  m.columns_.resize(space.dimensions());
  m.in_model_.assign(space.dimensions(), true);
  std::vector<std::vector<double>> X;
  for (std::size_t j = 0; j < space.dimensions(); ++j) {
    const Parameter& p = space.parameters()[j];
    if (std::any_of(ok.begin(), ok.end(), [&](const Trial* t) { return is_absent(t->params[j]); })) {
      m.in_model_[j] = false;
      m.left_out_.push_back(p.name);
      continue;
    }
    if (p.cardinality() == 1 || (p.kind == ParamKind::Bound && !(p.low < p.high)))
      continue;  // one value: importance 0
    if (p.kind == ParamKind::Choice) {
      for (const auto& c : p.choices) {
        m.columns_[j].push_back(static_cast<int>(X.size()));
        X.emplace_back();
        for (const auto* t : ok) X.back().push_back(std::get<std::string>(t->params[j]) == c ? 1.0 : 0.0);
        m.bounds_.emplace_back(0.0, 1.0);
      }
      continue;
    }
    m.columns_[j].push_back(static_cast<int>(X.size()));
    X.emplace_back();
    for (const auto* t : ok) X.back().push_back(number_of(t->params[j]));
    if (p.kind == ParamKind::Number)
      m.bounds_.emplace_back(*std::min_element(p.numbers.begin(), p.numbers.end()),
                             *std::max_element(p.numbers.begin(), p.numbers.end()));
    else
      m.bounds_.emplace_back(p.low, p.high);
  }
  if (X.empty()) return std::nullopt;
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<std::size_t> pick(0, ok.size() - 1);
  for (int k = 0; k < options.trees; ++k) {
    std::vector<std::size_t> rows(ok.size());
    for (auto& r : rows) r = pick(rng);  // a bootstrap sample
    m.trees_.emplace_back(RegressionTree::fit(X, y, rows, rng()), m.bounds_);
  }
  return m;
}

std::vector<ParamImportance> ForestModel::importance() const {
  std::vector<ParamImportance> out(space_->dimensions());
  for (std::size_t j = 0; j < space_->dimensions(); ++j) out[j] = {space_->parameters()[j].name, 0, 0};
  double total = 0;
  for (std::size_t j = 0; j < columns_.size(); ++j) {
    if (columns_[j].empty()) continue;
    std::vector<double> fractions;
    for (const auto& tree : trees_)
      if (tree.variance() > 0) fractions.push_back(tree.marginal_variance(columns_[j]) / tree.variance());
    if (fractions.empty()) continue;
    double mean = 0, sq = 0;
    for (double f : fractions) mean += f;
    mean /= static_cast<double>(fractions.size());
    for (double f : fractions) sq += (f - mean) * (f - mean);
    out[j].importance = mean;
    out[j].spread = std::sqrt(sq / static_cast<double>(fractions.size()));
    total += mean;
  }
  if (!(total > 0)) return {};
  for (std::size_t j = out.size(); j-- > 0;)
    if (!models(j)) out.erase(out.begin() + static_cast<std::ptrdiff_t>(j));
  for (auto& p : out) p.importance /= total, p.spread /= total;
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.importance > b.importance; });
  return out;
}

double ForestModel::marginal(const std::vector<std::pair<std::size_t, ParamValue>>& fixed) const {
  std::vector<double> sample(bounds_.size(), 0.0);
  std::vector<bool> active(bounds_.size(), false);
  for (const auto& [j, v] : fixed) {
    const Parameter& p = space_->parameters()[j];
    for (std::size_t k = 0; k < columns_[j].size(); ++k) {
      const auto c = static_cast<std::size_t>(columns_[j][k]);
      active[c] = true;
      sample[c] =
          p.kind == ParamKind::Choice ? (std::get<std::string>(v) == p.choices[k] ? 1.0 : 0.0) : number_of(v);
    }
  }
  double sum = 0;
  for (const auto& tree : trees_) sum += tree.marginal_prediction(sample, active);
  return trees_.empty() ? 0 : sum / static_cast<double>(trees_.size());
}

std::vector<ParamImportance> parameter_importance(const SearchSpace& space, const std::vector<Trial>& trials,
                                                  const ImportanceOptions& options) {
  const auto model = ForestModel::fit(space, trials, options);
  return model ? model->importance() : std::vector<ParamImportance>{};
}

}  // namespace tune
