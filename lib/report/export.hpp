// SPDX-License-Identifier: GPL-2.0-or-later
// What `tune export` writes of a study, for the tools people analyse results
// with: the trials as CSV (one row per trial, for pandas), the learning
// curves as CSV (one row per report), everything as JSON, and an Optuna
// journal (optuna.storages.JournalStorage over JournalFileStorage) that
// optuna.load_study opens, so that optuna-dashboard and
// optuna.visualization work on a tune study. Text from a history snapshot;
// no files here.
#pragma once

#include <ostream>
#include <string>

#include "history/history.hpp"

namespace tune {

void write_trials_csv(const HistorySnapshot& h, std::ostream& out);
void write_curves_csv(const HistorySnapshot& h, std::ostream& out);
void write_study_json(const HistorySnapshot& h, std::ostream& out);

// The journal: one study (directions from the objectives), one trial per
// tune trial in id order (Optuna's number = tune's id when ids are
// contiguous), each with its distributions, parameters (inactive ones
// left out), state (ok: COMPLETE, pruned: PRUNED, failed, timeout and
// invalid: FAIL, interrupted: WAITING, running: RUNNING), values, times
// (local time, as Optuna writes them), the values by step of the metric
// tune report draws the curves of (curve_metric: the pruning metric, else
// the one reported with a step most often) as intermediate values, and tune's own fields as user attributes
// (tune_id, tune_state, host, rank, exit_code, wall_time, message).
void write_optuna_journal(const HistorySnapshot& h, std::ostream& out);

}  // namespace tune
