// SPDX-License-Identifier: GPL-2.0-or-later
// A trial's launch, its reports and its result as JSON: what both transports
// carry (MPI messages between ranks, the trial-jobs channel over TCP). The
// readers throw nlohmann::json::exception or std::invalid_argument on a
// malformed document; callers that read from the network catch them.
#pragma once

#include <nlohmann/json.hpp>

#include "trial/trial_process.hpp"

namespace tune::wire {

nlohmann::json to_json(const TrialLaunch& l);
TrialLaunch launch_from_json(const nlohmann::json& j);
nlohmann::json to_json(const TrialRun& r);
TrialRun run_from_json(const nlohmann::json& j);
nlohmann::json to_json(std::uint64_t trial, const tune::Report& r);
tune::Report report_from_json(const nlohmann::json& j);

}  // namespace tune::wire
