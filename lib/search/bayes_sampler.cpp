// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/bayes_sampler.hpp"

#include <LBFGSB.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "search/draws.hpp"

namespace tune {
namespace {

constexpr int kCandidates = 1000;  // random points scored before local search
constexpr int kStarts = 5;         // local searches from the best of them
constexpr int kNearBest = 5;       // observed trials whose neighbourhoods are sampled too
constexpr int kPerNeighbourhood = 40;
constexpr double kTrustStart = 0.8, kTrustMax = 1.6, kTrustMin = 0.01;  // trust region side, in the unit cube

}  // namespace

// Running trials keep this far apart (Euclidean, in the unit cube): once the
// model has converged, EI peaks within a hair of a running trial however much
// the believed value lowers it there, and 8 runners would test one point.
constexpr double kSeparation = 2e-3;

struct BayesSampler::Model {
  GaussianProcess gp;
  double best;                           // smallest observed y (imputed points excluded)
  std::vector<Eigen::VectorXd> running;  // unit-cube points of the pending trials
  // The trust region: where proposals may go (unit cube; the interval
  // parameters' coordinates are limited, the discrete ones are free).
  Eigen::VectorXd lo, hi;

  bool near_running(const Eigen::VectorXd& u) const {
    for (const auto& r : running)
      if ((u - r).norm() < kSeparation) return true;
    return false;
  }
  double ei(const Eigen::VectorXd& f) const {
    const auto p = gp.predict(f);
    return expected_improvement(p.mean, std::sqrt(p.var), best).ei;
  }
};

class BayesSampler::CompanionStandIn final : public Sampler {
 public:
  explicit CompanionStandIn(BayesSampler& owner) : owner_(owner) {}
  std::string_view name() const override { return owner_.companion_name(); }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment> pending) override {
    std::lock_guard g(owner_.companion_lock_);
    return owner_.companion().propose(trial, pending);
  }
  void observe(const Observation& done) override {
    std::lock_guard g(owner_.companion_lock_);
    owner_.tpe_.observe(done);
    owner_.cmaes_.observe(done);
  }

 private:
  BayesSampler& owner_;
};

BayesSampler::~BayesSampler() = default;

Sampler* BayesSampler::own_stand_in() {
  if (!stand_in_) stand_in_ = std::make_unique<CompanionStandIn>(*this);
  return stand_in_.get();
}

BayesSampler::BayesSampler(const SearchSpace& space, std::uint64_t seed, bool minimize)
    : space_(space),
      seed_(seed),
      minimize_(minimize),
      initial_(std::clamp<std::uint64_t>(2 * space.dimensions() + 1, 5, 20)),
      design_(static_cast<int>(space.dimensions()), seed),
      tpe_(space, seed, minimize),
      cmaes_(space, seed, minimize) {
  for (const auto& p : space_.parameters())
    feature_dims_ += p.kind == ParamKind::Choice ? static_cast<int>(p.choices.size()) : 1;
}

Eigen::VectorXd BayesSampler::encode(const Assignment& a) const {
  const auto& ps = space_.parameters();
  Eigen::VectorXd u(static_cast<Eigen::Index>(ps.size()));
  // An inactive parameter's coordinate is a placeholder: features() ignores it.
  for (std::size_t i = 0; i < ps.size(); ++i)
    u(static_cast<Eigen::Index>(i)) = is_absent(a[i]) ? 0.5 : ps[i].encode(a[i]);
  return u;
}

Assignment BayesSampler::decode(const Eigen::VectorXd& u) const {
  Assignment out;
  const auto& ps = space_.parameters();
  for (std::size_t i = 0; i < ps.size(); ++i) out.push_back(ps[i].decode(u(static_cast<Eigen::Index>(i))));
  return space_.prune_inactive(std::move(out));
}

// In a conditional space, an inactive parameter's features hold one fixed
// value whatever its coordinate: -0.5 (outside [0, 1], so no active value
// looks like "absent"; no category for a choice). The trials of a branch
// without it agree there, so a coordinate the program never saw adds no
// made-up variation for the kernel to explain. Against the centre 0.5 (an
// active value of 0.5 then looks inactive) and the random coordinate left
// in (one irrelevant noise dimension per inactive parameter), measured on
// search_bench's mlp-conditional: docs/results/study-features.md.
Eigen::VectorXd BayesSampler::features(const Eigen::VectorXd& u) const {
  Eigen::VectorXd f = Eigen::VectorXd::Zero(feature_dims_);
  Eigen::Index at = 0;
  const auto& ps = space_.parameters();
  std::vector<bool> on;
  if (space_.conditional()) {
    Assignment raw;
    for (std::size_t i = 0; i < ps.size(); ++i) raw.push_back(ps[i].decode(u(static_cast<Eigen::Index>(i))));
    on = space_.active(raw);
  }
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const auto& p = ps[i];
    const double x = u(static_cast<Eigen::Index>(i));
    if (!on.empty() && !on[i]) {
      if (p.kind == ParamKind::Choice)
        at += static_cast<Eigen::Index>(p.choices.size());
      else
        f(at++) = -0.5;
      continue;
    }
    switch (p.kind) {
      case ParamKind::Bound: f(at++) = std::clamp(x, 0.0, 1.0); break;
      case ParamKind::Int:
      case ParamKind::Number: f(at++) = p.encode(p.decode(x)); break;  // rounded to a value that exists
      case ParamKind::Choice: {
        const std::string chosen = std::get<std::string>(p.decode(x));
        for (const auto& c : p.choices) f(at++) = c == chosen ? 1.0 : 0.0;
        break;
      }
    }
  }
  return f;
}

void BayesSampler::observe(const Observation& done) {
  if (!stand_in_) {  // once lent, the stand-in feeds the companions
    tpe_.observe(done);
    cmaes_.observe(done);
  }
  if (done.pruned) {
    pruned_.push_back(encode(done.params));
  } else if (done.objective && std::isfinite(*done.objective)) {
    // A trial whose study did not say what it knew counts as proposed with
    // every earlier result known.
    const Point p{encode(done.params), minimize_ ? *done.objective : -*done.objective, false,
                  std::min(done.known.value_or(points_.size()), points_.size())};
    replicates_.note_result(points_, p);
    points_.push_back(p);
  }
  // Failed trials teach nothing reliable (a crash may be transient): left out.
}

Assignment BayesSampler::companion_proposal(std::uint64_t trial, std::span<const Assignment> pending) {
  std::lock_guard g(companion_lock_);
  return *companion().propose(trial, pending);
}

std::string BayesSampler::note() const {
  const std::string over = std::to_string(static_cast<int>(100 * kNoisyShare)) + "%";
  const std::string under = std::to_string(static_cast<int>(50 * kNoisyShare)) + "%";
  if (by_companion_)
    return std::string("bayes: the results look too noisy for the Gaussian process (") +
           (by_replicates_ ? "trials run twice differ by" : "its fit puts") + " over " + over +
           " of their variance in noise): proposing with " + std::string(companion_name()) +
           " until both the trials run twice and a fit put "
           "under " +
           under + " there";
  if (ever_by_companion_)
    return "bayes: the Gaussian process proposes again (the trials run twice and its latest fit put under " +
           under + " of the variance in noise)";
  return {};
}

std::vector<BayesSampler::Point> BayesSampler::model_points(std::mt19937_64& rng) const {
  std::vector<Point> data = points_;
  if (!replicates_.pairs().empty()) {
    // The model sees a replicated point once, at the mean of its two
    // results: two equal rows would only make its fit ill-conditioned.
    std::vector<bool> drop(data.size(), false);
    for (const auto& r : replicates_.pairs()) {
      data[r.first].y = (data[r.first].y + data[r.again].y) / 2;
      drop[r.again] = true;
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < data.size(); ++i)
      if (!drop[i]) data[kept++] = data[i];
    data.resize(kept);
  }
  if (!data.empty()) {
    // A pruned trial was stopped for looking worse than its peers: the model
    // believes it no better than the worst finished trial.
    double worst = data.front().y;
    for (const auto& p : data) worst = std::max(worst, p.y);
    for (const auto& u : pruned_) data.push_back({u, worst, true});
  }
  if (data.size() <= kModelCap) return data;
  std::vector<std::size_t> order(data.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return data[a].y < data[b].y; });
  std::vector<Point> kept;
  for (std::size_t i = 0; i < kModelCap / 2; ++i) kept.push_back(data[order[i]]);
  // An even spread over the rest, with a random offset.
  const std::size_t rest = order.size() - kModelCap / 2, want = kModelCap - kModelCap / 2;
  const double stride = static_cast<double>(rest) / static_cast<double>(want);
  const double offset = unit_draw(rng) * stride;
  for (std::size_t k = 0; k < want; ++k)
    kept.push_back(
        data[order[kModelCap / 2 + std::min(rest - 1, static_cast<std::size_t>(offset + k * stride))]]);
  return kept;
}

std::optional<Assignment> BayesSampler::propose(std::uint64_t trial, std::span<const Assignment> pending) {
  auto rng = trial_rng(seed_, trial, 0xba7e5u);
  Assignment out;
  // A running trial at a point already measured is a replicate in flight. A
  // sampler rebuilt for every proposal (ParEGO's, for several objectives)
  // cannot remember asking for it; it must not ask again.
  for (const auto& a : pending)
    for (const auto& p : points_)
      if (same_point(encode(a), p.u)) replicates_.note_in_flight();
  if (replicates_.due(trial, initial_, !points_.empty())) {  // the best trial not yet replicated, again
    if (const auto best = replicates_.ask(points_)) return decode(points_[*best].u);
  }
  if (!costly(trial)) {  // the initial design
    const auto p = design_.point(trial);
    out = decode(Eigen::Map<const Eigen::VectorXd>(p.data(), static_cast<Eigen::Index>(p.size())));
  } else {
    out = decode(model_proposal(trial, pending, rng));
  }
  // Discrete spaces run out of new points: never hand out an exact repeat of
  // a finished or running trial while a random draw can find a new one.
  const auto taken = [&](const Assignment& a) {
    for (const auto& p : pending)
      if (p == a) return true;
    for (const auto& p : points_)
      if (decode(p.u) == a) return true;
    for (const auto& u : pruned_)
      if (decode(u) == a) return true;
    return false;
  };
  for (int attempt = 0; taken(out) && attempt < 100; ++attempt) {
    Eigen::VectorXd r(static_cast<Eigen::Index>(space_.dimensions()));
    for (Eigen::Index i = 0; i < r.size(); ++i) r(i) = unit_draw(rng);
    out = decode(r);
  }
  return out;
}

double BayesSampler::trust_length() const {
  // Replayed from the finished trials in the order they finished: doubled
  // after 3 improvements in a row, halved after max(4, d) stalls in a row,
  // widened again (a restart of the local search) once it falls below 1/100
  // of the cube.
  const int patience = std::max<int>(4, static_cast<int>(space_.dimensions()));
  // An improvement beats the best by a thousandth of the results' range so
  // far (not of the best's size: the objective's units and offset must not matter).
  double side = kTrustStart, best = std::numeric_limits<double>::infinity(), worst = -best;
  int wins = 0, losses = 0;
  // With several runners the trials proposed beside one another from the
  // same results finish one by one. Once one has moved the best, the others
  // could not have known it; counted as stalls they closed the region in
  // the middle of a descent (sphere 5-d, 8 runners: side 0.1 after 34
  // results, 2 units from the optimum, and the descent then limited to
  // steps of half the side), and between two improvements they broke the
  // run that would have widened it. A result counts only if its trial was
  // proposed once the best result was known. With one runner every trial
  // was: nothing changes.
  std::size_t best_at = 0;  // index of the result that set the best
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const double y = points_[i].y;
    const bool better = std::isfinite(worst) ? y < best - 1e-3 * (worst - best) : true;
    best = std::min(best, y), worst = std::max(worst, y);
    if (better) best_at = i;
    if (i < initial_) continue;
    if (better)
      ++wins, losses = 0;
    else if (points_[i].known > best_at)
      ++losses, wins = 0;
    if (wins >= 3) side = std::min(kTrustMax, 2 * side), wins = 0;
    if (losses >= patience) side /= 2, losses = 0;
    if (side < kTrustMin) side = kTrustStart;
  }
  return side;
}

Eigen::VectorXd BayesSampler::model_proposal(std::uint64_t trial, std::span<const Assignment> pending,
                                             std::mt19937_64& rng) {
  const auto data = model_points(rng);
  const Eigen::Index n = static_cast<Eigen::Index>(data.size());
  Eigen::MatrixXd X(n, feature_dims_);
  Eigen::VectorXd y(n);
  double best = std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < n; ++i) {
    X.row(i) = features(data[static_cast<std::size_t>(i)].u).transpose();
    y(i) = data[static_cast<std::size_t>(i)].y;
  }
  // Output warping: log(y - min + (median - min)) is close to linear from the
  // best trial to the median and compresses the tail above it, so a few very
  // bad trials (an ill-conditioned objective, a diverging run, multiplicative
  // noise) do not flatten the model where the good trials are. Monotone: the
  // order of the trials, and so the best, is unchanged.
  warp_objective(y);
  for (Eigen::Index i = 0; i < n; ++i)
    if (!data[static_cast<std::size_t>(i)].imputed) best = std::min(best, y(i));

  // Hyperparameters from at most kFitCap points: the first (best, when capped) ones.
  const Eigen::Index fit_n = std::min<Eigen::Index>(n, kFitCap);
  // Refitted while the data is small, then each time it has grown by a tenth:
  // with 8 runners finishing together, 8 proposals in a row share one fit.
  if (!hyper_ || static_cast<double>(n) >= 1.1 * static_cast<double>(fitted_on_) || n < 30) {
    hyper_ = GaussianProcess::fit(X.topRows(fit_n), y.head(fit_n),
                                  hyper_.value_or(GpHyper::initial(feature_dims_)));
    fitted_on_ = static_cast<std::size_t>(n);
  }
  noise_share_ = std::exp(hyper_->log_noise) / (std::exp(hyper_->log_noise) + std::exp(hyper_->log_signal));
  // Hysteresis: back to the model only below half the share, so a study
  // whose fits hover around the limit does not flip at every proposal.
  // The replicates' measurement counts from the first one's result on, the
  // fit's from kNoisyMinTrials results.
  const double limit = by_companion_ ? kNoisyShare / 2 : kNoisyShare;
  const auto replicated = replicates_.share();
  by_replicates_ = replicated && *replicated > limit;
  by_companion_ = by_replicates_ || (points_.size() >= kNoisyMinTrials && noise_share_ > limit);
  ever_by_companion_ = ever_by_companion_ || by_companion_;
  if (by_companion_) return encode(companion_proposal(trial, pending));
  // The portfolio: one proposal in portfolio_every() from the companion,
  // fed the same trials. It explores where the model's trust region has
  // closed on one basin of a multimodal problem, and the region moves to
  // whatever it finds better.
  if (trial % portfolio_every() == portfolio_every() - 1) return encode(companion_proposal(trial, pending));
  if (noise_share_ > kNoisyShare && !replicated) {  // too few results to call them noisy: the design goes on
    const auto p = design_.point(trial);
    return Eigen::Map<const Eigen::VectorXd>(p.data(), static_cast<Eigen::Index>(p.size()));
  }

  // Kriging believer: running trials join the data at their predicted value,
  // clipped so that none is believed better than the best observed. A running
  // trial at a point already measured (the replicate) adds nothing the model
  // does not know, and a second equal row would only make the fit ill-conditioned.
  if (!pending.empty()) {
    const GaussianProcess believed(X, y, *hyper_);
    std::vector<Eigen::VectorXd> rows;
    for (const auto& a : pending) {
      const Eigen::VectorXd f = features(encode(a));
      bool measured = false;
      for (Eigen::Index i = 0; i < n && !measured; ++i) measured = same_point(X.row(i).transpose(), f);
      if (!measured) rows.push_back(f);
    }
    X.conservativeResize(n + static_cast<Eigen::Index>(rows.size()), Eigen::NoChange);
    y.conservativeResize(X.rows());
    for (std::size_t k = 0; k < rows.size(); ++k) {
      X.row(n + static_cast<Eigen::Index>(k)) = rows[k].transpose();
      y(n + static_cast<Eigen::Index>(k)) = std::max(believed.predict(rows[k]).mean, best);
    }
  }
  Model model{GaussianProcess(X, y, *hyper_), best, {}, {}, {}};
  // With noisy results the smallest observed value is a lucky draw that no
  // proposal can improve on; the incumbent is the model's lowest mean at the
  // finished trials (the smallest observed when the fitted noise is nil).
  double incumbent = std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < n; ++i)
    if (!data[static_cast<std::size_t>(i)].imputed)
      incumbent = std::min(incumbent, model.gp.predict(X.row(i).transpose()).mean);
  if (std::isfinite(incumbent)) model.best = incumbent;
  for (const auto& a : pending) model.running.push_back(encode(a));
  // Trust region (after TuRBO, Eriksson et al. 2019): a box of side
  // trust_length() around the best finished trial, on the interval parameters.
  const Eigen::Index d = static_cast<Eigen::Index>(space_.dimensions());
  model.lo = Eigen::VectorXd::Zero(d);
  model.hi = Eigen::VectorXd::Ones(d);
  const double side = trust_length();
  if (side < kTrustMax && !points_.empty()) {
    const Point* centre = &*std::min_element(points_.begin(), points_.end(),
                                             [](const Point& a, const Point& b) { return a.y < b.y; });
    for (Eigen::Index j = 0; j < d; ++j)
      if (space_.parameters()[static_cast<std::size_t>(j)].kind == ParamKind::Bound) {
        model.lo(j) = std::max(0.0, centre->u(j) - side / 2);
        model.hi(j) = std::min(1.0, centre->u(j) + side / 2);
      }
  }
  return maximise_ei(model, data, rng);
}

Eigen::VectorXd BayesSampler::maximise_ei(const Model& model, const std::vector<Point>& data,
                                          std::mt19937_64& rng) const {
  const Eigen::Index d = static_cast<Eigen::Index>(space_.dimensions());
  // Candidates: uniform points, and points near the best trials, where EI
  // tends to peak once the model is confident.
  std::vector<std::size_t> order(data.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return data[a].y < data[b].y; });
  const int near = std::min<int>(kNearBest, static_cast<int>(order.size()));
  const Eigen::Index m = kCandidates + near * kPerNeighbourhood;
  Eigen::MatrixXd U(m, d);
  for (Eigen::Index c = 0; c < kCandidates; ++c)
    for (Eigen::Index j = 0; j < d; ++j) U(c, j) = model.lo(j) + (model.hi(j) - model.lo(j)) * unit_draw(rng);
  for (int b = 0; b < near; ++b)
    for (int k = 0; k < kPerNeighbourhood; ++k) {
      const double radius = k % 2 ? 0.02 : 0.1;
      const Eigen::Index row = kCandidates + b * kPerNeighbourhood + k;
      for (Eigen::Index j = 0; j < d; ++j)
        U(row, j) = std::clamp(data[order[static_cast<std::size_t>(b)]].u(j) + radius * normal_draw(rng),
                               model.lo(j), model.hi(j));
    }
  Eigen::MatrixXd F(m, feature_dims_);
  for (Eigen::Index c = 0; c < m; ++c) F.row(c) = features(U.row(c).transpose()).transpose();
  Eigen::VectorXd mean, var;
  model.gp.predict(F, mean, var);
  std::vector<std::pair<double, Eigen::Index>> scored;
  for (Eigen::Index c = 0; c < m; ++c)
    scored.emplace_back(model.near_running(U.row(c).transpose())
                            ? 0.0
                            : expected_improvement(mean(c), std::sqrt(var(c)), model.best).ei,
                        c);
  const auto starts = std::min<std::size_t>(kStarts, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(starts), scored.end(),
                    [](const auto& a, const auto& b) {
                      return a.first > b.first || (a.first == b.first && a.second < b.second);
                    });
  Eigen::VectorXd best_u = U.row(scored.front().second).transpose();
  double best_ei = scored.front().first;
  for (std::size_t s = 0; s < starts; ++s) {
    Eigen::VectorXd u = U.row(scored[s].second).transpose();
    const double ei = local_search(model, u);
    if (ei > best_ei) {
      best_ei = ei;
      best_u = u;
    }
  }
  return best_u;
}

// Alternates L-BFGS-B over the continuous parameters with a sweep of
// neighbouring values of the discrete ones, until neither improves EI.
double BayesSampler::local_search(const Model& model, Eigen::VectorXd& u) const {
  const auto& ps = space_.parameters();
  std::vector<Eigen::Index> cont;          // indices of interval parameters in u
  std::vector<Eigen::Index> cont_feature;  // ... and of their features
  Eigen::Index at = 0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (ps[i].kind == ParamKind::Bound) {
      cont.push_back(static_cast<Eigen::Index>(i));
      cont_feature.push_back(at);
    }
    at += ps[i].kind == ParamKind::Choice ? static_cast<Eigen::Index>(ps[i].choices.size()) : 1;
  }
  double current = model.ei(features(u));
  LBFGSpp::LBFGSBParam<double> param;
  param.max_iterations = 30;
  param.epsilon = 1e-6;
  param.max_linesearch = 20;
  LBFGSpp::LBFGSBSolver<double> solver(param);
  for (int round = 0; round < 4; ++round) {
    bool improved = false;
    if (!cont.empty()) {
      const Eigen::Index c = static_cast<Eigen::Index>(cont.size());
      Eigen::VectorXd v(c), lo(c), hi(c);
      for (Eigen::Index k = 0; k < c; ++k) {
        const Eigen::Index j = cont[static_cast<std::size_t>(k)];
        lo(k) = model.lo(j), hi(k) = model.hi(j);
        v(k) = std::clamp(u(j), lo(k), hi(k));
      }
      Eigen::VectorXd trial_u = u;
      // Maximise EI = minimise -EI; gradients by the chain rule through the GP.
      auto objective = [&](const Eigen::VectorXd& x, Eigen::VectorXd& g) {
        for (Eigen::Index k = 0; k < c; ++k) trial_u(cont[static_cast<std::size_t>(k)]) = x(k);
        const auto p = model.gp.predict(features(trial_u), true);
        const double sd = std::sqrt(p.var);
        const auto imp = expected_improvement(p.mean, sd, model.best);
        g.resize(c);
        for (Eigen::Index k = 0; k < c; ++k) {
          const Eigen::Index f = cont_feature[static_cast<std::size_t>(k)];
          const double d_sd = sd > 1e-12 ? p.d_var(f) / (2 * sd) : 0.0;
          g(k) = -(imp.d_mean * p.d_mean(f) + imp.d_sd * d_sd);
        }
        return -imp.ei;
      };
      double value = -current;
      try {
        solver.minimize(objective, v, value, lo, hi);
      } catch (const std::exception&) {
        Eigen::VectorXd g;
        value = objective(v, g);  // the line search gave up; v is still a valid point
      }
      Eigen::VectorXd moved = u;
      for (Eigen::Index k = 0; k < c; ++k) moved(cont[static_cast<std::size_t>(k)]) = v(k);
      if (-value > current * (1 + 1e-9) && !model.near_running(moved)) {
        u = moved;
        current = -value;
        improved = true;
      }
    }
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const auto& p = ps[i];
      if (p.kind == ParamKind::Bound) continue;
      const Eigen::Index j = static_cast<Eigen::Index>(i);
      // Neighbouring values: every other choice; integers and listed numbers
      // 1, 2, 4, ... values away.
      std::vector<ParamValue> tries;
      const ParamValue now = p.decode(u(j));
      if (p.kind == ParamKind::Int) {
        const auto v = std::get<std::int64_t>(now);
        for (std::int64_t step = 1; step <= static_cast<std::int64_t>(p.high - p.low); step *= 2)
          for (std::int64_t w : {v - step, v + step})
            if (w >= p.low && w <= p.high) tries.emplace_back(w);
      } else {
        const std::size_t levels = p.cardinality();
        std::size_t at_level = 0;
        for (std::size_t l = 0; l < levels; ++l)
          if ((p.kind == ParamKind::Number ? ParamValue{p.numbers[l]} : ParamValue{p.choices[l]}) == now)
            at_level = l;
        for (std::size_t l = 0; l < levels; ++l) {
          const std::size_t dist = l > at_level ? l - at_level : at_level - l;
          if (p.kind == ParamKind::Choice || (dist & (dist - 1)) == 0)
            tries.push_back(p.kind == ParamKind::Number ? ParamValue{p.numbers[l]}
                                                        : ParamValue{p.choices[l]});
        }
      }
      for (const auto& value : tries) {
        if (value == now) continue;
        Eigen::VectorXd cand = u;
        cand(j) = p.encode(value);
        const double ei = model.ei(features(cand));
        if (ei > current * (1 + 1e-9) && !model.near_running(cand)) {
          current = ei;
          u = cand;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return current;
}

}  // namespace tune
