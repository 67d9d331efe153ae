// SPDX-License-Identifier: GPL-2.0-or-later
// A tune simulate run of a planned experiment (experiment.hpp): every
// combination at every arrival factor, the tables printed, and the files
// asked for written (per-run CSVs, sprio-like traces, the HTML page), with
// replicates and validation against the recorded starts. The files go
// through a FileSink: the driver's writes them, the tests keep them.
#pragma once

#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

#include "simulation/experiment.hpp"

namespace tune::sim {

// A file it could not write, or a --validate that cannot compare.
struct ExperimentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunOutputs {
  std::string csv_dir, sprio_dir, html;  // empty: not written
  bool validate = false;                 // compare simulated starts with the recorded ones
  int replicates = 1;                    // runs per combination, arrivals jittered after the first
  double jitter = 60;                    // seconds
};

class FileSink {
 public:
  virtual ~FileSink() = default;
  // A stream into `path` (its directory made); a stream in a failed state
  // when it cannot be opened.
  virtual std::unique_ptr<std::ostream> open(const std::string& path) = 0;
};

// Runs `plan`, prints what it found on `text`, writes the asked-for files.
// Throws ExperimentError naming the file or the check that failed.
void run_experiment(const Experiment& plan, const RunOutputs& out, std::ostream& text, FileSink& files);

}  // namespace tune::sim
