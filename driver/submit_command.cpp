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
#include "prune_flags.hpp"
#include "run_command.hpp"
#include "search/sampler.hpp"
#include "space/search_space.hpp"
#include "study/objective_flags.hpp"
#include "study/text_input.hpp"
#include "study/warm_start.hpp"
#include "trial_jobs/slurm_reach.hpp"

namespace tune {
namespace {

namespace fs = std::filesystem;

// Megabytes from Slurm's memory forms (512, 512M, 4G, 1T).
std::string q(const std::string& s) { return shell_quote(s); }

}  // namespace

void add_submit_options(CLI::App& s, SubmitOptions& o) {
  add_study_flags(s, o, StudyCommand::Submit);
  s.add_option("--parallel", o.parallel, "trials at once: MPI runners, or trial jobs with --trial-jobs")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  s.add_option("--runners-per-node", o.runners_per_node,
               "MPI tasks per node, rank 0 counted on the first (default: all on one node)")
      ->check(CLI::PositiveNumber);
  s.add_option("--appcore-cpus,--app-core-cpus", o.appcore_cpus, "CPUs of the AppCore task (rank 0)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  s.add_option("--appcore-mem,--app-core-memory", o.appcore_mem, "memory of the AppCore task");
  s.add_option("--time", o.time, "the job's time limit (sbatch --time); the study drains 2 minutes before");
  s.add_option("--partition,-p", o.partition, "Slurm partition");
  s.add_option("--account,-A", o.account, "Slurm account");
  s.add_option("--qos", o.qos, "Slurm QOS");
  s.add_option("--reservation", o.reservation, "Slurm reservation");
  s.add_option("--history", o.history, "HDF5 history (default: NAME.h5 in the working directory)");
  s.add_option("--workdir", o.workdir, "directory the job runs in (default: the current one)");
  s.add_flag("--dry-run", o.dry_run, "print the script instead of writing and submitting it");
}

std::string sbatch_script(const SubmitOptions& o, const std::string& tune_binary) {
  const long mem_mb = parse_megabytes(o.mem_per_trial, "--mem-per-trial");
  if (!o.appcore_mem.empty()) parse_megabytes(o.appcore_mem, "--appcore-mem");
  if (!o.time.empty()) parse_duration(o.time, "--time");
  if (!o.trial_time_limit.empty()) parse_duration(o.trial_time_limit, "--trial-time-limit");
  const int cpus = std::max(o.cpus_per_trial, o.appcore_cpus);
  const long mem_per_cpu = (mem_mb + cpus - 1) / cpus;
  const int tasks = o.parallel + 1;
  const int per_node = o.runners_per_node > 0 ? std::min(o.runners_per_node, tasks) : tasks;
  const int nodes = (tasks + per_node - 1) / per_node;
  std::ostringstream s;
  const std::time_t now = std::time(nullptr);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
  s << "#!/bin/bash\n"
    << "# Written by `tune submit` on " << when << ". Edit it and submit it again with sbatch if you like.\n";
  if (o.trial_jobs) {
    // The AppCore alone: it holds no GPU and submits every trial as a job of its own.
    s << "# This job is the AppCore (search, history); every trial is a Slurm job of its own (" << o.name << ".trial).\n"
      << "#SBATCH --job-name=" << o.name << "\n"
      << "#SBATCH --ntasks=1\n"
      << "#SBATCH --cpus-per-task=" << o.appcore_cpus << "\n"
      << "#SBATCH --mem=" << (o.appcore_mem.empty() ? std::string("1G") : o.appcore_mem) << "\n";
  } else {
    s << "# Rank 0 of the MPI job is the AppCore (search, history); every other rank runs trials.\n"
      << "#SBATCH --job-name=" << o.name << "\n"
      << "#SBATCH --ntasks=" << tasks << "\n"
      << "#SBATCH --nodes=" << nodes << "\n"
      << "#SBATCH --ntasks-per-node=" << per_node << "\n"
      << "#SBATCH --cpus-per-task=" << cpus << "\n"
      << "#SBATCH --mem-per-cpu=" << mem_per_cpu << "M\n";
    // Per node, not per task: mpirun's daemons run as one step task per node and
    // a step inherits a job's per-task GPU count, so they would see one share.
    // Each runner takes its own share of its node's GPUs (--gpus-per-trial).
    if (o.gpus_per_trial > 0) s << "#SBATCH --gpus-per-node=" << per_node * o.gpus_per_trial << "\n";
  }
  if (!o.time.empty()) s << "#SBATCH --time=" << o.time << "\n#SBATCH --signal=B:USR1@120\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  if (!o.account.empty()) s << "#SBATCH --account=" << o.account << "\n";
  if (!o.qos.empty()) s << "#SBATCH --qos=" << o.qos << "\n";
  if (!o.reservation.empty()) s << "#SBATCH --reservation=" << o.reservation << "\n";
  s << "#SBATCH --output=" << fs::path(o.history).replace_extension("").string() << "-%j.out\n"
    << "#SBATCH --requeue\n"
    << "#SBATCH --open-mode=append\n"
    << "#SBATCH --chdir=" << o.workdir << "\n"
    << "set -u\n"
    << "history=" << q(o.history) << "\n"
    << "# A requeued job finds its history and continues the study.\n"
    << "resume=()\n"
    << "[ -e \"$history\" ] && resume=(--resume)\n"

    << "# tune wrap passes SIGUSR1 (a yield sched/tune asks, the warning before the\n"
    << "# time limit) on to the study, which drains and exits 75, and then requeues\n"
    << "# this job to resume it; after SIGTERM (scancel, preemption) it does not.\n"
    << "exec " << q(tune_binary) << " wrap -- " << (o.trial_jobs ? "" : "mpirun -np \"$SLURM_NTASKS\" ") << q(tune_binary) << " run --history \"$history\" \"${resume[@]}\" \\\n"
    << "  --name " << q(o.name) << " --space " << q(o.space_file) << study_run_arguments(o, q);
  if (o.trial_jobs) {
    s << " --parallel " << o.parallel;
    for (const auto& [flag, v] : std::vector<std::pair<const char*, std::string>>{
             {"--partition", o.partition}, {"--account", o.account}, {"--qos", o.qos}, {"--reservation", o.reservation}})
      if (!v.empty()) s << " " << flag << " " << q(v);
  }
  s << " \\\n  --";
  const auto words = o.command.empty() ? split_command(o.program) : o.command;
  for (const auto& w : words) s << " " << q(w);
  s << "\n";
  return s.str();
}

int submit_study(const SubmitOptions& in) {
  SubmitOptions o = in;
  check_study_flags(o);
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
      (void)parse_objective_flags(o.objective, o.direction, o.target);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    check_placeholders(o.command.empty() ? split_command(o.program) : o.command, space);
  }
  if (!o.enqueue.empty()) o.enqueue = fs::absolute(o.enqueue).string();
  if (!o.warm_start.empty()) o.warm_start = fs::absolute(o.warm_start).string();
  if (o.name.empty()) o.name = fs::path(o.space_file).stem().string();
  o.workdir = fs::absolute(o.workdir.empty() ? fs::current_path() : fs::path(o.workdir)).string();
  if (o.history.empty()) o.history = o.name + ".h5";
  o.history = fs::absolute(fs::path(o.workdir) / o.history).lexically_normal().string();
  o.space_file = fs::absolute(o.space_file).string();
  if (fs::exists(o.history) && !o.dry_run) {
    std::cerr << "tune submit: error: " << o.history
              << " already holds a study; give another --history or --name, or resume it with the script beside it\n";
    return kExitUsage;
  }
  const std::string binary = fs::read_symlink("/proc/self/exe").string();
  const std::string script = sbatch_script(o, binary);
  if (o.dry_run) {
    std::cout << script;
    return 0;
  }
  if (const auto why = slurm_unreachable()) {
    std::cerr << "tune submit: error: " << *why << "\n  (tune submit --dry-run prints the script without a cluster)\n";
    return kExitUsage;
  }
  const std::string path = fs::path(o.history).replace_extension(".sbatch").string();
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
    std::cerr << "tune submit: error: sbatch refused " << path << " (its message is above); fix the flags and run "
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
