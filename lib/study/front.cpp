// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/front.hpp"

#include "search/pareto.hpp"

namespace tune {

std::vector<double> minimisation_form(const StudyInfo& study, const std::vector<double>& values) {
  std::vector<double> out = values;
  for (std::size_t i = 0; i < out.size() && i < study.objectives.size(); ++i)
    if (!study.objectives[i].minimize) out[i] = -out[i];
  return out;
}

std::vector<Trial> pareto_trials(const StudyInfo& study, const std::vector<Trial>& trials) {
  std::vector<const Trial*> ok;
  std::vector<ObjectivePoint> points;
  for (const auto& t : trials)
    if (t.state == TrialState::Ok && !study.objectives.empty() &&
        t.values.size() == study.objectives.size()) {
      ok.push_back(&t);
      points.push_back(minimisation_form(study, t.values));
    }
  std::vector<Trial> out;
  for (auto i : pareto_front(points)) out.push_back(*ok[i]);
  return out;
}

}  // namespace tune
