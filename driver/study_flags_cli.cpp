// SPDX-License-Identifier: GPL-2.0-or-later
#include "study_flags_cli.hpp"

#include <type_traits>

#include "search/pruner.hpp"
#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"

namespace tune {

namespace {

// A flag's check as CLI11 applies (and --help shows) it; lib's
// check_study_flags applies the same list's checks to the parsed values.
void add_check(CLI::Option* o, const StudyFlag& flag, StudyCommand command) {
  switch (flag.check) {
    case FlagCheck::Algorithm: o->check(CLI::IsMember(samplers().names())); break;
    case FlagCheck::Pruner: o->check(CLI::IsMember(pruners().names())); break;
    case FlagCheck::Positive: o->check(CLI::PositiveNumber); break;
    case FlagCheck::NonNegative: o->check(CLI::NonNegativeNumber); break;
    case FlagCheck::Range: o->check(CLI::Range(flag.lo, flag.hi)); break;
    case FlagCheck::ExistingFile:
      if (command == StudyCommand::Submit) o->check(CLI::ExistingFile);
      break;
    case FlagCheck::Setting: {
      const SettingSpec spec = *flag.setting;
      o->check(CLI::Validator(
          [spec](std::string& v) {
            try {
              (void)read_setting(spec, v);
              return std::string();
            } catch (const std::invalid_argument& e) {
              return std::string(e.what());
            }
          },
          ""));
      o->type_name(spec.integer ? "INT" : "NUMBER");
      break;
    }
    case FlagCheck::None:
    case FlagCheck::Duration:  // parsed after the command line (lib/command/text_input)
    case FlagCheck::Size: break;
  }
}

}  // namespace

CLI::Option* add_study_flags(CLI::App& a, StudyFlags& f, StudyCommand command) {
  CLI::Option* trial_jobs = nullptr;
  std::vector<CLI::Option*> need_trial_jobs;
  for (const StudyFlag& flag : study_flags()) {
    CLI::Option* o = std::visit(
        [&](auto get) -> CLI::Option* {
          auto& value = get(f);
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, bool>)
            return a.add_flag(flag.names, value, flag.help_for(command));
          else if constexpr (std::is_same_v<T, std::vector<std::string>>)
            return a.add_option(flag.names, value, flag.help_for(command))->take_all();
          else
            return a.add_option(flag.names, value, flag.help_for(command));
        },
        flag.field);
    add_check(o, flag, command);
    if (flag.show_default) o->capture_default_str();
    if (command == StudyCommand::Submit && flag.required_on_submit) o->required();
    if (flag.scope == FlagScope::TrialJobsSwitch) trial_jobs = o;
    if (flag.needs_trial_jobs(command)) need_trial_jobs.push_back(o);
  }
  for (CLI::Option* o : need_trial_jobs) o->needs(trial_jobs);
  return trial_jobs;
}

}  // namespace tune
