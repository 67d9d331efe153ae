// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/resume_check.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "study/warm_start.hpp"

namespace tune {

namespace fs = std::filesystem;

void check_resume(const ResumeFlags& o, const StudyInfo& s) {
  if (!o.space_file.empty()) {
    std::ifstream in(o.space_file);
    if (!in)
      throw ResumeMismatch("--space " + o.space_file +
                           ": cannot read the file (drop --space to continue the study in " + o.history +
                           ")");
    std::stringstream text;
    text << in.rdbuf();
    if (SearchSpace::parse(text.str(), o.space_file).to_json() != s.space.to_json())
      throw ResumeMismatch(
          "--space " + o.space_file + " differs from the space of the study in " + o.history +
          "; drop --space to continue that study, or start a new study in another --history");
  }
  // The search algorithm's own settings: one typed (not its default) that
  // differs from the study's would silently not apply.
  if (const SamplerEntry* e = samplers().find(s.sampler))
    for (const SettingSpec& spec : e->settings)
      if (o.settings.has(spec.key) && o.settings.at(spec.key) != spec.fallback &&
          s.sampler_settings.has(spec.key) && o.settings.at(spec.key) != s.sampler_settings.at(spec.key))
        throw ResumeMismatch(spec.flag + " " + setting_text(o.settings.at(spec.key)) +
                             " differs from the study in " + o.history + " (" +
                             setting_text(s.sampler_settings.at(spec.key)) +
                             "); drop it to continue that study");
  PrunerOptions given = o.prune;
  given.minimize = s.minimize;  // the direction is checked below, on its own
  if (o.prune.rule != "none" && given.to_json() != s.pruner.to_json())
    throw ResumeMismatch("the --prune settings differ from the study in " + o.history + " (" +
                         s.pruner.to_json().dump() + "); drop them to continue with the study's own");
  // Warm starts are fixed when a study is created; the same flags again
  // (tune submit's requeue passes them) are fine.
  if (!o.enqueue.empty()) {
    std::vector<Assignment> given;
    try {
      given = read_enqueued(o.enqueue, s.space);
    } catch (const WarmStartError& e) {
      throw ResumeMismatch(e.what());
    }
    if ((given.empty() ? std::string() : enqueued_to_json(given, s.space)) != s.enqueued)
      throw ResumeMismatch(
          "--enqueue " + o.enqueue + " differs from the parameter sets the study in " + o.history +
          " was created with; drop --enqueue to continue it (enqueued sets are fixed at creation)");
  }
  if (!o.warm_start.empty() && fs::absolute(o.warm_start).string() != s.imported_from)
    throw ResumeMismatch("--warm-start " + o.warm_start + ": the study in " + o.history + " was created " +
                         (s.imported_from.empty() ? std::string("without one") : "from " + s.imported_from) +
                         "; drop --warm-start to continue it (imported trials are fixed at creation)");
  const ObjectiveFlags& flags = o.objective_flags;
  if (!o.objective.empty() && objective_text(flags.objectives) != objective_text(s.objectives))
    throw ResumeMismatch("--objective " + o.objective + " differs from the study in " + o.history + " (" +
                         (s.objectives.empty() ? std::string("one objective, reported as objective=")
                                               : objective_text(s.objectives)) +
                         "); drop it to continue that study");
  if (direction_text(flags.objectives, flags.minimize) != direction_text(s.objectives, s.minimize))
    throw ResumeMismatch("--direction " + o.direction + " differs from the study in " + o.history + " (" +
                         direction_text(s.objectives, s.minimize) + ")");
}

}  // namespace tune
