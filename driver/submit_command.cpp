// SPDX-License-Identifier: GPL-2.0-or-later
#include "submit_command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "appcore.hpp"
#include "command/objective_flags.hpp"
#include "command/submit_notes.hpp"
#include "command/text_input.hpp"
#include "libslurm/slurm_lookups.hpp"
#include "libslurm/slurm_reach.hpp"
#include "run_command.hpp"
#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "space/search_space.hpp"
#include "study/warm_start.hpp"

namespace tune {
namespace fs = std::filesystem;

void add_submit_options(CLI::App& s, SubmitOptions& o) {
  add_study_flags(s, o, StudyCommand::Submit);
  s.add_option("--runners-per-node", o.runners_per_node,
               "runners (MPI tasks) per node at most (default: all on one node); the AppCore is an extra "
               "process on the first")
      ->check(CLI::PositiveNumber);
  s.add_option("--appcore-cpus,--app-core-cpus", o.appcore_cpus,
               "CPUs of the AppCore job (--trial-jobs; in MPI mode it shares the first node's CPUs)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  s.add_option("--appcore-mem,--app-core-memory", o.appcore_mem,
               "memory of the AppCore job (--trial-jobs; in MPI mode it shares the first node's)");
  s.add_option("--time", o.time, "the job's time limit (sbatch --time); the study drains 2 minutes before");
  s.add_option("--history", o.history, "HDF5 history (default: NAME.h5 in the working directory)");
  s.add_option("--workdir", o.workdir, "directory the job runs in (default: the current one)");
  s.add_flag("--dry-run", o.dry_run, "print the script instead of writing and submitting it");
}

int submit_study(const SubmitOptions& in) {
  SubmitOptions o = in;
  check_study_flags(o, StudyCommand::Submit);
  if (o.command.empty() && o.program.empty()) {
    std::cerr << "tune submit: error: no program: give it after -- or with --program\n";
    return kExitUsage;
  }
  {  // validate the space and the enqueued sets now, not in the queue
    std::ifstream f(o.space_file);
    std::stringstream text;
    text << f.rdbuf();
    const SearchSpace space = SearchSpace::parse(text.str(), o.space_file);
    if (!o.enqueue.empty()) (void)read_enqueued(o.enqueue, space, *o.trials);
    try {
      check_objective_source(o.objective, o.metric_regex);
      const auto objectives = parse_objective_flags(o.objective, o.direction, o.target);
      // A sampler that refuses the space or the objectives (a grid too large,
      // cmaes with several) says so now, not from the queue.
      SamplerOptions options{.minimize = objectives.minimize, .settings = policy_settings(o)};
      if (objectives.objectives.size() > 1)
        for (const auto& obj : objectives.objectives) options.objectives_minimize.push_back(obj.minimize);
      (void)make_sampler(o.algo, space, options);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    check_placeholders(o.command.empty() ? split_command(o.program) : o.command, space);
  }
  if (!o.enqueue.empty()) o.enqueue = fs::absolute(o.enqueue).string();
  if (!o.warm_start.empty()) o.warm_start = fs::absolute(o.warm_start).string();
  if (!o.setup.empty()) {
    o.setup = fs::absolute(o.setup).string();
    try {
      o.setup_text = setup_lines(o.setup);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  if (o.name.empty()) o.name = fs::path(o.space_file).stem().string();
  o.workdir = fs::absolute(o.workdir.empty() ? fs::current_path() : fs::path(o.workdir)).string();
  if (o.history.empty()) o.history = o.name + ".h5";
  o.history = fs::absolute(fs::path(o.workdir) / o.history).lexically_normal().string();
  o.space_file = fs::absolute(o.space_file).string();
  if (fs::exists(o.history) && !o.dry_run) {
    std::cerr << "tune submit: error: " << o.history
              << " already holds a study; give another --name (or --history), or resume it with the script "
                 "beside it\n";
    return kExitUsage;
  }
  const std::string binary = fs::read_symlink("/proc/self/exe").string();
  const std::time_t now = std::time(nullptr);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
  const std::string script = sbatch_script(o, binary, when);
  if (o.dry_run) {
    std::cout << script;
    return 0;
  }
  if (const auto why = slurm_unreachable()) {
    std::cerr << "tune submit: error: " << *why
              << "\n  (tune submit --dry-run prints the script without a cluster)\n";
    return kExitUsage;
  }
  const std::string path = fs::path(o.history).replace_extension(".sbatch").string();
  // A study submitted before from the same script, still queued (its history
  // not yet written) or running: rewriting its script would change what a
  // requeue of that job runs.
  if (const auto job = queued_job_of_script(path)) {
    std::cerr << "tune submit: error: study '" << o.name << "' is still queued or running as job " << *job
              << " from " << path << "; give this one another --name (or --history), or wait for job " << *job
              << " to end (scancel " << *job << " ends it)\n";
    return kExitUsage;
  }
  for (const auto& note : time_notes(o, partition_times(o.partition)))
    std::cerr << "tune submit: " << note << "\n";
  {
    std::ofstream f(path);
    f << script;
    if (!f) throw std::runtime_error(path + ": cannot write the sbatch script");
  }
  fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  // sbatch --parsable prints "jobid[;cluster]".
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    execlp("sbatch", "sbatch", "--parsable", path.c_str(), static_cast<char*>(nullptr));
    std::perror("tune submit: cannot run sbatch");
    _exit(127);
  }
  close(out[1]);
  std::string reply;
  char buf[256];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) reply.append(buf, n);
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "tune submit: error: sbatch refused " << path
              << " (its message is above); fix the flags and run "
              << "tune submit again, or edit the script and run sbatch on it\n";
    return kExitUsage;
  }
  const std::string job = reply.substr(0, reply.find_first_of(";\n"));
  std::cout << "submitted job " << job << "\n"
            << "  script:  " << path << "\n"
            << "  history: " << o.history << "\n"
            << "  follow:  tune status " << o.history << "\n";
  return 0;
}

}  // namespace tune
