// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/study_answer.hpp"

#include <algorithm>

#include "history/direction.hpp"
#include "search/pareto.hpp"
#include "study/front.hpp"

namespace tune {

void StudyAnswer::note_report(std::uint64_t trial, const Report& report) {
  for (const auto& o : history_.study().objectives) {
    if (o.name == "objective" && report.objective) latest_[trial][o.name] = *report.objective;
    for (const auto& [key, value] : report.metrics)
      if (key == o.name) latest_[trial][o.name] = value;
  }
}

std::optional<std::vector<double>> StudyAnswer::take_values(std::uint64_t trial,
                                                            std::vector<std::string>& missing) {
  std::vector<double> out;
  const auto it = latest_.find(trial);
  for (const auto& o : history_.study().objectives) {
    if (it == latest_.end() || !it->second.count(o.name)) {
      missing.push_back(o.name);
      continue;
    }
    out.push_back(it->second.at(o.name));
  }
  latest_.erase(trial);
  if (!missing.empty()) return std::nullopt;
  return out;
}

bool StudyAnswer::meets_targets(const Trial& t) const {
  const auto& objectives = history_.study().objectives;
  if (t.state != TrialState::Ok || t.values.size() != objectives.size() ||
      targets_.size() != objectives.size())
    return false;
  for (std::size_t i = 0; i < objectives.size(); ++i)
    if (!meets_target(objectives[i].minimize, t.values[i], targets_[i])) return false;
  return true;
}

void StudyAnswer::note_ok(const Trial& t) {
  if (t.objective &&
      (!best_ || better(history_.study().minimize, *t.objective, *history_.trials()[*best_].objective)))
    best_ = t.id;
  if (!targets_.empty() && meets_targets(t)) targets_met_ = true;
  const StudyInfo& info = history_.study();
  if (!info.multi_objective() || t.values.size() != info.objectives.size()) return;
  // The front changes only by this trial: kept out if a member dominates
  // it, else in, and the members it dominates out.
  auto p = minimisation_form(info, t.values);
  for (const auto& [id, q] : front_)
    if (dominates(q, p)) return;
  std::erase_if(front_, [&](const auto& member) { return dominates(p, member.second); });
  const auto at =
      std::find_if(front_.begin(), front_.end(), [&](const auto& member) { return member.first > t.id; });
  front_.emplace(at, t.id, std::move(p));
}

}  // namespace tune
