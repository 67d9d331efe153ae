// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/yield_protocol.hpp"

namespace tune {

WrapEnd wrap_end(int exit_code, bool terminated, const std::optional<std::string>& job_id) {
  WrapEnd end{false, exit_code, ""};
  if (exit_code != kExitInterrupted || terminated) return end;
  if (!job_id || job_id->empty()) {
    end.message =
        "tune: study interrupted; not in a Slurm job, so nothing is requeued: run it again with --resume";
    return end;
  }
  end.requeue = true;
  end.message = "tune: study interrupted; requeueing job " + *job_id + " to resume it";
  return end;
}

}  // namespace tune
