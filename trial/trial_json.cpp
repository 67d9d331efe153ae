// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial/trial_json.hpp"

#include <charconv>
#include <cmath>
#include <vector>

#include "trial_jobs/channel_frame.hpp"

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
// The text of a number as exact() wrote it (NaN and inf included); what
// else a peer wrote there is refused, as std::stod's own errors would be.
double number_text(const std::string& text) {
  double v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size())
    throw FieldError("\"" + text.substr(0, 40) + "\" is not a number");
  return v;
}

// The array of strings at `key`.
std::vector<std::string> strings(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array()) throw FieldError(std::string("\"") + key + "\" is not a list");
  std::vector<std::string> out;
  for (const auto& v : *it) {
    if (!v.is_string()) throw FieldError(std::string("\"") + key + "\" holds something not a string");
    out.push_back(v.get<std::string>());
  }
  return out;
}

// The array of [string, string] pairs at `key`.
const json& pairs(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array()) throw FieldError(std::string("\"") + key + "\" is not a list");
  for (const auto& kv : *it)
    if (!kv.is_array() || kv.size() != 2 || !kv[0].is_string() || !kv[1].is_string())
      throw FieldError(std::string("\"") + key + "\" holds something not a pair of strings");
  return *it;
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
  l.trial = field<std::uint64_t>(j, "trial");
  l.argv = strings(j, "argv");
  for (const auto& kv : pairs(j, "env"))
    l.env.emplace_back(kv[0].get<std::string>(), kv[1].get<std::string>());
  l.trial_dir = field<std::string>(j, "trial_dir");
  l.params_json = field<std::string>(j, "params_json");
  l.time_limit = field<double>(j, "time_limit");
  l.grace = field<double>(j, "grace");
  l.metric_regex = field<std::string>(j, "metric_regex");
  l.reports_in_file = field_or<bool>(j, "reports_in_file", false);
  l.checkpoint_dir = field_or<std::string>(j, "checkpoint_dir", "");
  l.checkpoint_from = field_or<std::string>(j, "checkpoint_from", "");
  if (const auto it = j.find("from_trial"); it != j.end() && !it->is_null())
    l.from_trial = field<std::uint64_t>(j, "from_trial");
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
  r.trial = field<std::uint64_t>(j, "trial");
  r.exited = field<bool>(j, "exited");
  r.exit_code = field<std::int32_t>(j, "exit_code");
  r.signal = field<std::int32_t>(j, "signal");
  r.timed_out = field<bool>(j, "timed_out");
  r.interrupted = field<bool>(j, "interrupted");
  r.pruned = field_or<bool>(j, "pruned", false);
  r.bad_report_lines = field<std::size_t>(j, "bad_report_lines");
  r.first_report_error = field<std::string>(j, "first_report_error");
  r.last_step = field<std::int64_t>(j, "last_step");
  r.start_time = field<double>(j, "start_time");
  r.end_time = field<double>(j, "end_time");
  r.peak_rss_kb = field<std::int64_t>(j, "peak_rss_kb");
  r.time_limit = field<double>(j, "time_limit");
  if (j.contains("launch_error")) r.launch_error = field<std::string>(j, "launch_error");
  for (const auto& [key, f] :
       {std::pair{"storage_fault", &r.storage_fault}, {"output_fault", &r.output_fault}})
    if (j.contains(key)) {
      const auto& v = j[key];
      *f = StorageFault{field<int>(v, "error"), field<std::string>(v, "path"), field<std::string>(v, "what")};
    }
  if (j.contains("objective")) r.objective = number_text(field<std::string>(j, "objective"));
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
  if (j.contains("step")) r.step = field<std::int64_t>(j, "step");
  if (j.contains("objective")) r.objective = number_text(field<std::string>(j, "objective"));
  for (const auto& kv : pairs(j, "metrics"))
    r.metrics.emplace_back(kv[0].get<std::string>(), number_text(kv[1].get<std::string>()));
  return r;
}

}  // namespace tune::wire
