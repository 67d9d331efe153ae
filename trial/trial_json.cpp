// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial/trial_json.hpp"

#include <charconv>
#include <vector>

namespace tune::wire {

using nlohmann::json;

namespace {
// Shortest text that reads back as the same double, NaN and inf included
// (JSON numbers have neither).
std::string exact(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
}  // namespace

json to_json(const TrialLaunch& l) {
  json env = json::array();
  for (const auto& [k, v] : l.env) env.push_back({k, v});
  return {{"trial", l.trial},
          {"argv", l.argv},
          {"env", env},
          {"trial_dir", l.trial_dir},
          {"params_json", l.params_json},
          {"time_limit", l.time_limit},
          {"grace", l.grace},
          {"metric_regex", l.metric_regex},
          {"reports_in_file", l.reports_in_file},
          {"checkpoint_dir", l.checkpoint_dir},
          {"checkpoint_from", l.checkpoint_from},
          {"from_trial", l.from_trial ? json(*l.from_trial) : json(nullptr)}};
}

TrialLaunch launch_from_json(const json& j) {
  TrialLaunch l;
  l.trial = j.at("trial").get<std::uint64_t>();
  l.argv = j.at("argv").get<std::vector<std::string>>();
  for (const auto& kv : j.at("env"))
    l.env.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
  l.trial_dir = j.at("trial_dir").get<std::string>();
  l.params_json = j.at("params_json").get<std::string>();
  l.time_limit = j.at("time_limit").get<double>();
  l.grace = j.at("grace").get<double>();
  l.metric_regex = j.at("metric_regex").get<std::string>();
  l.reports_in_file = j.value("reports_in_file", false);
  l.checkpoint_dir = j.value("checkpoint_dir", std::string());
  l.checkpoint_from = j.value("checkpoint_from", std::string());
  if (const auto it = j.find("from_trial"); it != j.end() && !it->is_null())
    l.from_trial = it->get<std::uint64_t>();
  return l;
}

json to_json(const TrialRun& r) {
  json j = {{"trial", r.trial},
            {"exited", r.exited},
            {"exit_code", r.exit_code},
            {"signal", r.signal},
            {"timed_out", r.timed_out},
            {"interrupted", r.interrupted},
            {"pruned", r.pruned},
            {"bad_report_lines", r.bad_report_lines},
            {"first_report_error", r.first_report_error},
            {"last_step", r.last_step},
            {"start_time", r.start_time},
            {"end_time", r.end_time},
            {"peak_rss_kb", r.peak_rss_kb},
            {"time_limit", r.time_limit}};
  if (r.launch_error) j["launch_error"] = *r.launch_error;
  for (const auto& [key, f] :
       {std::pair{"storage_fault", &r.storage_fault}, {"output_fault", &r.output_fault}})
    if (*f) j[key] = {{"error", (*f)->error}, {"path", (*f)->path}, {"what", (*f)->what}};
  // JSON has no NaN: send the objective as text so NaN stays NaN.
  if (r.objective) j["objective"] = exact(*r.objective);
  return j;
}

TrialRun run_from_json(const json& j) {
  TrialRun r;
  r.trial = j.at("trial").get<std::uint64_t>();
  r.exited = j.at("exited").get<bool>();
  r.exit_code = j.at("exit_code").get<std::int32_t>();
  r.signal = j.at("signal").get<std::int32_t>();
  r.timed_out = j.at("timed_out").get<bool>();
  r.interrupted = j.at("interrupted").get<bool>();
  r.pruned = j.value("pruned", false);
  r.bad_report_lines = j.at("bad_report_lines").get<std::size_t>();
  r.first_report_error = j.at("first_report_error").get<std::string>();
  r.last_step = j.at("last_step").get<std::int64_t>();
  r.start_time = j.at("start_time").get<double>();
  r.end_time = j.at("end_time").get<double>();
  r.peak_rss_kb = j.at("peak_rss_kb").get<std::int64_t>();
  r.time_limit = j.at("time_limit").get<double>();
  if (j.contains("launch_error")) r.launch_error = j["launch_error"].get<std::string>();
  for (const auto& [key, f] :
       {std::pair{"storage_fault", &r.storage_fault}, {"output_fault", &r.output_fault}})
    if (j.contains(key)) {
      const auto& v = j[key];
      *f = StorageFault{v.at("error").get<int>(), v.at("path").get<std::string>(),
                        v.at("what").get<std::string>()};
    }
  if (j.contains("objective")) r.objective = std::stod(j["objective"].get<std::string>());
  return r;
}

json to_json(std::uint64_t trial, const tune::Report& r) {
  json metrics = json::array();
  for (const auto& [k, v] : r.metrics) metrics.push_back({k, exact(v)});
  json j = {{"trial", trial}, {"metrics", metrics}};
  if (r.step) j["step"] = *r.step;
  if (r.objective) j["objective"] = exact(*r.objective);
  return j;
}

tune::Report report_from_json(const json& j) {
  tune::Report r;
  if (j.contains("step")) r.step = j["step"].get<std::int64_t>();
  if (j.contains("objective")) r.objective = std::stod(j["objective"].get<std::string>());
  for (const auto& kv : j.at("metrics"))
    r.metrics.emplace_back(kv.at(0).get<std::string>(), std::stod(kv.at(1).get<std::string>()));
  return r;
}

}  // namespace tune::wire
