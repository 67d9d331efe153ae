// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Posts the study's progress record (lib/estimators/progress_record) in the
// Comment of the Slurm job `tune run` runs in, for sched/tune to read: only
// when it changed, at most once per interval, keeping the user's own text.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "estimators/progress_record.hpp"
#include "estimators/study_progress.hpp"

namespace tune {

class ProgressPoster {
 public:
  using Source = std::function<ProgressRecord()>;
  // `source` builds the record from the trials (it reads them all, so it is
  // called at most once per interval, not per result). Inactive outside a
  // Slurm job (no SLURM_JOB_ID).
  explicit ProgressPoster(Source source, double min_interval = 30);
  bool active() const { return job_id_ != 0; }
  // The trials changed: post the record when the interval has passed.
  void changed(double now);
  // Post a changed record if the interval has passed.
  void tick(double now);
  // Post a record not yet posted, whatever the interval (the study ends).
  void flush(double now);

 private:
  bool post(const ProgressRecord& r);

  Source source_;
  unsigned job_id_ = 0;
  double min_interval_;
  double last_post_ = -1e300;
  bool changed_ = false;
  std::optional<ProgressRecord> posted_;
  bool warned_ = false;
};

}  // namespace tune
