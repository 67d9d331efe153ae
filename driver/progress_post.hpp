#pragma once
// Posts the study's progress record (lib/adaptive/progress_record) in the
// Comment of the Slurm job `tune run` runs in, for sched/tune to read: only
// when it changed, at most once per interval, keeping the user's own text.
#include <optional>
#include <string>
#include <vector>

#include "adaptive/progress_record.hpp"
#include "study/progress.hpp"

namespace tune {

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
