// SPDX-License-Identifier: GPL-2.0-or-later
// The HDF5 trial history of a study (schema in man/tune.1, HISTORY FILE).
//
// Only one process writes (rank 0); it writes every event as it happens and
// flushes, in HDF5's SWMR mode: the file is readable at every instant, so
// `tune status` can read it during a study and a writer killed with SIGKILL
// leaves a file that History::resume repairs without losing what was written.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "history/trial.hpp"
#include "history/writer_claim.hpp"
#include "search/pruner_options.hpp"
#include "space/search_space.hpp"
#include "trial_output/report_parser.hpp"

namespace tune {

class HistoryError : public std::runtime_error {
 public:
  explicit HistoryError(const std::string& what, int error = 0) : std::runtime_error(what), error_(error) {}
  // The errno behind it, when the file system gave one (0: none known).
  int error() const { return error_; }

 private:
  int error_;
};

// Whether errno `error` is the storage's fault rather than the file's or the
// caller's: a full file system (ENOSPC), a used-up quota (EDQUOT), one
// mounted read-only (EROFS) or failing (EIO).
bool storage_errno(int error);

// One objective of a study with named objectives (--objective loss,latency).
struct ObjectiveSpec {
  std::string name;
  bool minimize = true;
};
// A study's objectives as the flags spell them ("loss,latency", "min,max"),
// for messages and scripts.
std::string objective_text(const std::vector<ObjectiveSpec>& objectives);
std::string direction_text(const std::vector<ObjectiveSpec>& objectives, bool minimize);

struct StudyInfo {
  std::string name;
  SearchSpace space;
  std::string sampler = "random";
  std::uint64_t seed = 0;
  // The search algorithm's own settings (SamplerEntry::settings), complete:
  // {"grid_points": 5} for a grid, {} for random.
  Settings sampler_settings;
  bool minimize = true;  // the objective's direction (the first one's with named objectives)
  // Named objectives (--objective): each trial's value of each is the last
  // value it reported under that name. Empty: the one objective reported as
  // objective=. Two or more: a multi-objective study, whose answer is the
  // Pareto front of its ok trials.
  std::vector<ObjectiveSpec> objectives;
  bool multi_objective() const { return objectives.size() > 1; }
  std::string command;          // the trial program as the user gave it
  std::string program_version;  // what the user or the driver knows of the program's version
  std::string created;          // ISO 8601, UTC
  std::string tune_version;
  PrunerOptions pruner;  // early stopping (rule "none" when off)
  // Warm starts (study/warm_start.hpp), fixed at creation: trials 0..imported-1
  // came from the history imported_from; the next ones run the parameter sets
  // of `enqueued` (a JSON list of objects, "" for none) in order.
  std::uint64_t imported = 0;
  std::string imported_from;
  std::string enqueued;
  // --trials the study was created or last resumed with (0: no limit); a
  // resumed run without --trials runs to it.
  std::uint64_t trials = 0;
  // How its last run ended it for good (all trials done, target reached,
  // converged: the run's closing line); "" while it may go on. Written when
  // that run closed the file, removed by a run that continues the study.
  std::string ended;
};

// One intermediate metric value of one trial.
struct ReportRow {
  std::uint64_t trial = 0;
  std::int64_t step = -1;  // -1: the report had no step
  double time = 0;         // seconds since the epoch
  std::string metric;
  double value = 0;
};

class History {
 public:
  // Creates FILE for a new study. Refuses an existing file: nothing recorded
  // is ever overwritten. `claim`: FILE's writer claim, held by the caller for
  // at least as long as the History; without it the History takes its own.
  static History create(const std::string& path, const StudyInfo& study, const WriterClaim& claim);
  static History create(const std::string& path, const StudyInfo& study);
  // Opens FILE to continue its study. A file left by a killed writer is
  // repaired first (the old file is kept as FILE.before-recovery). `trials`:
  // a new trial budget (--trials again), kept for later resumes.
  // `continues`: the study goes on (every check of the run passed), so how
  // an earlier run ended it (StudyInfo::ended) no longer holds and is removed.
  static History resume(const std::string& path, std::optional<std::uint64_t> trials,
                        const WriterClaim& claim, bool continues = false);
  static History resume(const std::string& path, std::optional<std::uint64_t> trials = std::nullopt);

  History(History&&) noexcept;
  History& operator=(History&&) noexcept;
  ~History();

  const std::string& path() const;
  const StudyInfo& study() const;
  // Every trial so far; trials()[i].id == i.
  const std::vector<Trial>& trials() const;
  std::uint64_t report_rows() const;
  // Every intermediate value recorded so far, read back from the file.
  std::vector<ReportRow> reports() const;
  // True when resume had to repair the file.
  bool recovered() const;
  // What the repair could not keep (HistorySnapshot::warning), or "".
  const std::string& recovery_warning() const;

  // Records a new trial (t.id == trials().size()) or a change of an existing
  // one, and flushes it to disk.
  void put(const Trial& t);
  // Appends one report's values (metrics and objective) and flushes.
  void add_report(std::uint64_t trial, const Report& report, double time);
  // A write the storage refused (storage_errno: full, over quota, read-only,
  // failing) does not throw: the trial or report is kept in memory (trials()
  // has it) and written, in order, by the first retry() that succeeds; until
  // then stalled() gives the errno, and put() and add_report() only queue.
  // The file keeps everything flushed before, and opens.
  std::optional<int> stalled() const;
  // Writes what is queued and flushes: true when nothing is left queued.
  bool retry();
  // Closes the file cleanly (the destructor does too, swallowing errors).
  // With writes still queued it tries them once more, and throws a
  // HistoryError with the storage's errno if they fail: the file then holds
  // what was flushed before.
  void close();
  // close(), then keeps `how` as the way the study ended for good
  // (StudyInfo::ended). Throws as close() does; returns a message when the
  // file is closed whole but `how` could not be added to it.
  std::optional<std::string> close_ended(const std::string& how);

  struct Impl;  // opaque: the HDF5 handles and the in-memory copy

 private:
  explicit History(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Everything in FILE, read without writing: works while a study writes it
// (on this host or, through a shared file system, on another) and on a file
// whose writer was killed.
struct HistorySnapshot {
  StudyInfo study;
  std::vector<Trial> trials;
  std::vector<ReportRow> reports;
  // Empty when the file read consistently. Otherwise (another host was
  // writing it and some rows never read whole, or a killed writer's data
  // never reached the file server) what is shown instead: rows from an
  // earlier read, or the trials before the first unreadable row.
  std::string warning;
};
HistorySnapshot read_history(const std::string& path, bool with_reports = true);

}  // namespace tune
