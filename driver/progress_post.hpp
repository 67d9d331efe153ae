#pragma once
// Posts the study's progress record (lib/adaptive/progress_record) in the
// Comment of the Slurm job `tune run` runs in, for sched/tune to read: only
// when it changed, at most once per interval, keeping the user's own text.
#include <optional>
#include <string>
#include <vector>

#include "adaptive/progress_record.hpp"
#include "history/trial.hpp"

namespace tune {

// The study's key in the record: its name (key characters only) and a hash
// of the history's absolute path, so that two studies of one name differ and
// a requeued or resumed job keeps its key.
std::string study_key(const std::string& name, const std::string& history_path);

// The record for a study's trials: results so far and the best values first.
ProgressRecord progress_of(const std::string& key, const std::vector<Trial>& trials, bool minimize,
                           std::size_t top = 10);

class ProgressPoster {
 public:
  // Inactive outside a Slurm job (no SLURM_JOB_ID).
  explicit ProgressPoster(double min_interval = 30);
  bool active() const { return job_id_ != 0; }
  // Remember the newest record; post it when the interval has passed.
  void update(ProgressRecord r, double now);
  // Post the newest record if it is new and the interval has passed.
  void tick(double now);
  // Post a record not yet posted, whatever the interval (the study ends).
  void flush(double now);

 private:
  bool post(const ProgressRecord& r);

  unsigned job_id_ = 0;
  double min_interval_;
  double last_post_ = -1e300;
  std::optional<ProgressRecord> posted_, newest_;
  bool warned_ = false;
};

}  // namespace tune
