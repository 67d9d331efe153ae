// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/pbt_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include "search/draws.hpp"
#include "search/random_sampler.hpp"

namespace tune {

namespace {

constexpr std::uint32_t kSalt = 0x9b7;  // PBT's draws apart from other samplers'

double oriented(double v, bool minimize) {
  if (!std::isfinite(v)) return std::numeric_limits<double>::infinity();
  return minimize ? v : -v;
}

}  // namespace

PbtSampler::PbtSampler(const SearchSpace& space, std::uint64_t seed, bool minimize, Options o)
    : space_(space), seed_(seed), minimize_(minimize), o_(o) {
  if (o_.population < 2) throw std::invalid_argument("--population must be at least 2");
  if (o_.interval < 1) throw std::invalid_argument("--pbt-interval must be at least 1");
}

const PbtSampler::Segment* PbtSampler::newest(std::uint32_t member) const {
  if (member >= latest_.size()) return nullptr;
  return &segments_.at(latest_[member]);
}

std::optional<std::uint64_t> PbtSampler::newest_finished(std::uint32_t member) const {
  if (member >= latest_.size()) return std::nullopt;
  // A member's segments run one after another: its newest, or the one it started from.
  const std::uint64_t id = latest_[member];
  const Segment& s = segments_.at(id);
  if (s.finished) return id;
  if (s.from) {
    const auto f = segments_.find(*s.from);
    if (f != segments_.end() && f->second.finished) {
      // Its own previous segment, unless it took another member's checkpoint:
      // then the newest finished of its own is the one before, not needed any more.
      if (f->second.member == member) return *s.from;
    }
  }
  return std::nullopt;
}

bool PbtSampler::done(std::uint32_t member) const {
  const Segment* s = newest(member);
  return s && s->finished && s->ended_training;
}

std::int64_t PbtSampler::last_step(std::uint64_t id) const {
  const Segment& s = segments_.at(id);
  if (!s.values.empty()) return s.values.rbegin()->first;
  return std::max<std::int64_t>(0, s.step_limit - o_.interval);  // where it started
}

std::optional<double> PbtSampler::value_at(std::uint64_t id, std::int64_t step) const {
  // The checkpoint's history: this segment's reports, then those of the one it started from.
  for (std::optional<std::uint64_t> at = id; at;) {
    const auto it = segments_.find(*at);
    if (it == segments_.end()) break;
    if (const auto v = it->second.values.find(step); v != it->second.values.end())
      return oriented(v->second, minimize_);
    at = it->second.from;
  }
  return std::nullopt;
}

bool PbtSampler::waiting() const {
  if (latest_.size() < o_.population) return false;
  bool running = false;
  for (std::uint32_t m = 0; m < latest_.size(); ++m) {
    const Segment& s = segments_.at(latest_[m]);
    if (!s.finished) running = true;
    if (s.finished && !s.ended_training) return false;  // ready
  }
  return running;
}

Assignment PbtSampler::explore(const Assignment& from, std::uint64_t trial) const {
  auto rng = trial_rng(seed_, trial, kSalt + 1);
  const auto& ps = space_.parameters();
  Assignment out(ps.size());
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const Parameter& p = ps[i];
    const double fresh = unit_draw(rng), coin = unit_draw(rng), pick = unit_draw(rng);
    // An inactive parameter (its branch not taken) gets a draw: explore may take the branch.
    if (i >= from.size() || is_absent(from[i]) || coin < o_.resample) {
      out[i] = p.decode(fresh);
      continue;
    }
    const bool up = pick < 0.5;
    switch (p.kind) {
      case ParamKind::Bound:
      case ParamKind::Int: {
        const double v = p.kind == ParamKind::Int ? static_cast<double>(std::get<std::int64_t>(from[i]))
                                                  : std::get<double>(from[i]);
        double moved;
        if (p.low > 0) {
          moved = std::clamp(v * (up ? 1.2 : 0.8), p.low, p.high);
        } else {
          const double u = std::clamp(p.encode(from[i]) + (up ? 0.1 : -0.1), 0.0, 1.0);
          moved = p.kind == ParamKind::Int ? static_cast<double>(std::get<std::int64_t>(p.decode(u)))
                                           : std::get<double>(p.decode(u));
        }
        if (p.kind == ParamKind::Int) {
          auto n = static_cast<std::int64_t>(std::llround(moved));
          if (n == static_cast<std::int64_t>(v)) n += up ? 1 : -1;  // an integer moves by one at least
          n = std::clamp<std::int64_t>(n, static_cast<std::int64_t>(p.low),
                                       static_cast<std::int64_t>(p.high));
          out[i] = n;
        } else {
          out[i] = moved;
        }
        break;
      }
      case ParamKind::Number: {
        const auto it = std::find(p.numbers.begin(), p.numbers.end(), std::get<double>(from[i]));
        auto k = static_cast<std::ptrdiff_t>(it - p.numbers.begin());
        const auto last = static_cast<std::ptrdiff_t>(p.numbers.size()) - 1;
        k = std::clamp<std::ptrdiff_t>(k + (up ? 1 : -1), 0, last);
        out[i] = p.numbers[static_cast<std::size_t>(k)];
        break;
      }
      case ParamKind::Choice: out[i] = from[i]; break;
    }
  }
  return space_.prune_inactive(std::move(out));
}

std::optional<Assignment> PbtSampler::propose(std::uint64_t trial, std::span<const Assignment>) {
  if (latest_.size() < o_.population) {  // a new member, from scratch, random
    auto rng = trial_rng(seed_, trial, kSalt);
    decided_[trial] = {std::nullopt, static_cast<std::uint32_t>(latest_.size()), o_.interval};
    note_.clear();
    return uniform_assignment(space_, rng);
  }
  // The member that has waited longest since its segment finished.
  std::optional<std::uint32_t> next;
  for (std::uint32_t m = 0; m < latest_.size(); ++m) {
    const Segment& s = segments_.at(latest_[m]);
    if (!s.finished || s.ended_training) continue;
    if (!next || s.finished_order < segments_.at(latest_[*next]).finished_order) next = m;
  }
  if (!next) return std::nullopt;  // every member has trained to its end
  const std::uint32_t m = *next;
  // The members ranked, best first, by their value at the step this member
  // has reached (their lineage's report there): members ahead of it are
  // not favoured for having trained longer; those behind are left out.
  const std::uint64_t own = latest_[m];
  const std::int64_t at_step = last_step(own);
  std::vector<std::pair<double, std::uint32_t>> ranked;
  for (std::uint32_t k = 0; k < latest_.size(); ++k) {
    const auto f = newest_finished(k);
    if (!f || (k != m && last_step(*f) < at_step)) continue;
    const Segment& seg = segments_.at(*f);
    double score = std::numeric_limits<double>::infinity();
    if (seg.score) score = k == m ? *seg.score : value_at(*f, at_step).value_or(*seg.score);
    ranked.emplace_back(score, k);
  }
  std::sort(ranked.begin(), ranked.end());
  const auto quantile = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::floor(o_.quantile * static_cast<double>(ranked.size()))));
  Lineage l{own, m, 0};
  Assignment params = segments_.at(own).params;
  note_.clear();
  if (ranked.size() >= 2) {
    const auto at = std::find_if(ranked.begin(), ranked.end(), [&](const auto& r) { return r.second == m; });
    const auto rank = static_cast<std::size_t>(at - ranked.begin());
    std::vector<std::uint32_t> better;
    for (std::size_t k = 0; k < quantile && k < ranked.size(); ++k) {
      const std::uint32_t b = ranked[k].second;
      const auto f = newest_finished(b);
      if (b != m && !done(b) && f && segments_.at(*f).score && ranked[k].first < at->first)
        better.push_back(b);
    }
    if (rank + quantile >= ranked.size() && !better.empty()) {  // exploit and explore
      auto rng = trial_rng(seed_, trial, kSalt);
      const std::uint32_t b =
          better[static_cast<std::size_t>(unit_draw(rng) * static_cast<double>(better.size()))];
      const std::uint64_t source = *newest_finished(b);
      l.from = source;
      params = explore(segments_.at(source).params, trial);
      note_ = "pbt: member " + std::to_string(m) + " takes member " + std::to_string(b) +
              "'s checkpoint (trial " + std::to_string(source) + ") and explores its parameters";
    }
  }
  l.step_limit = last_step(*l.from) + o_.interval;
  decided_[trial] = l;
  return params;
}

Lineage PbtSampler::lineage(std::uint64_t trial) {
  const auto it = decided_.find(trial);
  if (it == decided_.end()) return {};
  Lineage l = it->second;
  decided_.erase(it);
  return l;
}

void PbtSampler::proposed(std::uint64_t id, const Assignment& params, const Lineage& l) {
  if (!l.member || !l.step_limit) return;  // not one of the population's (a stand-in's, an old study's)
  Segment s;
  s.member = *l.member;
  s.params = params;
  s.from = l.from;
  s.step_limit = *l.step_limit;
  segments_[id] = std::move(s);
  if (*l.member >= latest_.size()) latest_.resize(*l.member + 1, id);
  latest_[*l.member] = id;
}

void PbtSampler::observe_progress(const Progress& r) {
  const auto it = segments_.find(r.trial);
  if (it == segments_.end() || r.step > it->second.step_limit) return;
  it->second.values[r.step] = r.value;
}

void PbtSampler::observe(const Observation& o) {
  const auto it = segments_.find(o.trial);
  if (it == segments_.end() || it->second.finished) return;
  Segment& s = it->second;
  s.finished = true;
  s.finished_order = finished_count_++;
  const bool failed = !o.objective && !o.pruned;
  if (!failed) {
    if (!s.values.empty())
      s.score = oriented(s.values.rbegin()->second, minimize_);
    else if (o.objective)
      s.score = oriented(*o.objective, minimize_);
  }
  // Short of its step limit, its training is over; unless no step was ever
  // reported in its lineage (a program that reports none: nothing to tell).
  const bool steps =
      !s.values.empty() || (s.from && segments_.count(*s.from) && !segments_.at(*s.from).values.empty());
  s.ended_training = o.objective && !o.pruned && steps && last_step(o.trial) < s.step_limit;
}

bool PbtSampler::needs_checkpoint(std::uint64_t trial) const {
  const auto it = segments_.find(trial);
  if (it == segments_.end() || !it->second.finished) return false;
  for (const auto& [id, s] : segments_)
    if (!s.finished && s.from == trial) return true;  // a segment starting from it may still copy it
  const std::uint32_t m = it->second.member;
  return newest_finished(m) == trial && !done(m);
}

}  // namespace tune
