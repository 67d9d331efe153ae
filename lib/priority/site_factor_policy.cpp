// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority/site_factor_policy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "priority/job_summary.hpp"

namespace tune {

std::int64_t SiteFactorPolicy::site_factor(double base, int level, std::optional<double> lowest_other) const {
  if (level <= 0 || !(base > 0)) return 0;
  base = std::min(base, 4294967295.0);
  double to;
  if (c_.lowering == SiteLowering::Band) {
    to = band_priority(level);
    if (lowest_other) to = std::min(to, std::floor(*lowest_other) - 1);
    to = std::max(1.0, to);
  } else {
    to = base - std::floor(base * (1 - std::pow(c_.adaptive.yield_factor, level)));
  }
  return std::max(kMostNegative, -static_cast<std::int64_t>(std::max(0.0, base - to)));
}

std::vector<SiteDecision> SiteFactorPolicy::pass(double now, const std::vector<JobView>& jobs) {
  last_pass_ = now;
  tracker_.update(now, jobs, c_.adaptive, c_.adaptive_enabled);
  // The lowest priority among the waiting jobs of no yielding study (tune's
  // at level 0 and everyone else's): the band goes below it.
  std::optional<double> lowest_other;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    if (j.state == JobView::State::Pending && j.waiting && tracker_.level(i) == 0)
      lowest_other = std::min(lowest_other.value_or(j.base_priority), j.base_priority);
  }
  std::vector<SiteDecision> out(jobs.size());
  given_.clear();
  study_newest_.clear();
  std::unordered_map<std::string, bool> spent;  // studies back at level 0: credit used up?
  std::unordered_map<std::string, double> newest_eligible;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    const auto& member = tracker_.of(i);
    SiteDecision& d = out[i];
    d.id = j.id;
    JobSummary summary;
    summary.tenant = j.tenant;
    if (member.state) summary.study = member.key, summary.level = tracker_.level(i);
    if (j.state == JobView::State::Pending) {
      if (member.state && j.may_set) {
        const std::string id = StudyTracker::study_id(j.uid, member.key);
        const int level = tracker_.level(i);
        std::int64_t site = site_factor(j.base_priority, level, lowest_other);
        if (level > 0) {
          held_share_.emplace(id, std::max(0.0, j.fairshare));
        } else if (const auto held = held_share_.find(id); held != held_share_.end()) {
          // Back at level 0: no more fair share than when it began to yield.
          const double credit = std::floor(j.fairshare - held->second);
          site = credit > 0 ? std::max(kMostNegative,
                                       -static_cast<std::int64_t>(std::min(credit, j.base_priority - 1)))
                            : 0;
          auto [it, fresh] = spent.emplace(id, true);
          it->second = it->second && credit <= 0;
        }
        d.site = site;
        summary.site = site;
        given_[j.id] = site;
        auto [it, fresh] = newest_eligible.emplace(id, j.eligible);
        if (fresh || j.eligible >= it->second) {
          it->second = j.eligible;
          study_newest_[id] = site;
        }
      }
    } else {
      d.signal = tracker_.signal_for(i, j, now, c_.yield);
    }
    d.summary = format_summary(summary);
  }
  // A study whose fair share has fallen back to where it was (it has run),
  // or that the tracker forgot, owes nothing more.
  for (const auto& [id, done] : spent)
    if (done) held_share_.erase(id);
  for (auto it = held_share_.begin(); it != held_share_.end();)
    it = tracker_.studies().count(it->first) ? std::next(it) : held_share_.erase(it);
  return out;
}

std::optional<std::int64_t> SiteFactorPolicy::site_for(std::uint32_t job_id, std::uint32_t uid,
                                                       const std::string& comment) const {
  if (const auto it = given_.find(job_id); it != given_.end()) return it->second;
  if (!c_.adaptive_enabled || comment.find("tune:") == std::string::npos) return std::nullopt;
  const auto record = parse_progress(comment);
  if (!record) return std::nullopt;
  const std::string id = StudyTracker::study_id(uid, record->study);
  if (c_.lowering == SiteLowering::Band) {
    // Its priority is not known yet, and a trial job of a yielding study is
    // often submitted the moment its predecessor ends, the scheduler's next
    // pass seconds away: it waits at the bottom (Slurm's floor of 1) until
    // the next pass puts it in the band.
    const auto s = tracker_.studies().find(id);
    if (s != tracker_.studies().end() && s->second.yield.level() > 0) return kMostNegative;
  }
  const auto it = study_newest_.find(id);
  if (it == study_newest_.end() || it->second >= 0) return std::nullopt;
  return it->second;
}

nlohmann::json SiteFactorPolicy::save() const {
  nlohmann::json given = nlohmann::json::object();
  for (const auto& [id, site] : given_) given[std::to_string(id)] = site;
  nlohmann::json held = nlohmann::json::object();
  for (const auto& [id, share] : held_share_) held[id] = share;
  return {{"version", 1},
          {"host", "site_factor/tune"},
          {"last_pass", last_pass_},
          {"studies", tracker_.save(c_.adaptive)},
          {"given", given},
          {"held_share", held}};
}

void SiteFactorPolicy::restore(const nlohmann::json& j) {
  try {
    if (!j.is_object() || j.value("version", 0) != 1 || j.value("host", "") != "site_factor/tune")
      throw std::runtime_error("not a version 1 site_factor/tune state");
    const auto& last = j.at("last_pass");
    if (!last.is_number() || !std::isfinite(last.get<double>())) throw std::runtime_error("bad last_pass");
    StudyTracker tracker;
    tracker.restore(j.at("studies"), c_.adaptive);
    std::unordered_map<std::uint32_t, std::int64_t> given;
    for (const auto& [id, v] : j.at("given").items()) {
      if (id.empty() || id.size() > 10 || id.find_first_not_of("0123456789") != std::string::npos)
        throw std::runtime_error("bad job id " + id);
      const auto site = v.get<std::int64_t>();
      // Never positive, whatever the file says: the term only ever lowers.
      if (site > 0 || site < kMostNegative) throw std::runtime_error("bad term of job " + id);
      given[static_cast<std::uint32_t>(std::stoul(id))] = site;
    }
    std::unordered_map<std::string, double> held;
    if (j.contains("held_share"))  // absent in the state of earlier versions
      for (const auto& [id, v] : j.at("held_share").items()) {
        if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
          throw std::runtime_error("bad held fair share of study " + id);
        held[id] = v.get<double>();
      }
    tracker_ = std::move(tracker);
    given_ = std::move(given);
    held_share_ = std::move(held);
    study_newest_.clear();
    last_pass_ = last.get<double>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed state: ") + e.what());
  }
}

}  // namespace tune
