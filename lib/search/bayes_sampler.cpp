// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/bayes_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "search/bayes_model.hpp"
#include "search/draws.hpp"

namespace tune {
namespace {

constexpr double kTrustStart = 0.8, kTrustMax = 1.6, kTrustMin = 0.01;  // trust region side, in the unit cube

}  // namespace

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
  // While it is small, each fit starts afresh rather than from the last one,
  // so a resumed study (no last fit) proposes what the uninterrupted one does.
  if (!hyper_ || static_cast<double>(n) >= 1.1 * static_cast<double>(fitted_on_) || n < 30) {
    hyper_ = GaussianProcess::fit(
        X.topRows(fit_n), y.head(fit_n),
        n < 30 ? GpHyper::initial(feature_dims_) : hyper_.value_or(GpHyper::initial(feature_dims_)));
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

}  // namespace tune
