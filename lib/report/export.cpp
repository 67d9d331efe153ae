// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/export.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "report/study_report.hpp"

namespace tune {
namespace {

using nlohmann::json;

std::string num(double v) {
  return to_string(ParamValue{v});
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

json finite_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

// Optuna's datetime: ISO 8601 in local time with microseconds, no zone.
std::string optuna_time(double epoch) {
  const auto whole = static_cast<std::time_t>(std::floor(epoch));
  long micros = std::lround((epoch - static_cast<double>(whole)) * 1e6);
  std::tm tm{};
  localtime_r(&whole, &tm);
  char date[32], out[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
  if (micros > 999999) micros = 999999;
  std::snprintf(out, sizeof out, "%s.%06ld", date, micros);
  return out;
}

// Optuna's distribution_to_json: a JSON text {"name": class, "attributes": {...}}.
std::string optuna_distribution(const Parameter& p) {
  json d;
  switch (p.kind) {
    case ParamKind::Bound:
      d = {{"name", "FloatDistribution"},
           {"attributes", {{"step", nullptr}, {"low", p.low}, {"high", p.high}, {"log", p.log}}}};
      break;
    case ParamKind::Int:
      d = {{"name", "IntDistribution"},
           {"attributes",
            {{"log", p.log},
             {"step", 1},
             {"low", static_cast<std::int64_t>(p.low)},
             {"high", static_cast<std::int64_t>(p.high)}}}};
      break;
    case ParamKind::Number:
      d = {{"name", "CategoricalDistribution"}, {"attributes", {{"choices", p.numbers}}}};
      break;
    case ParamKind::Choice:
      d = {{"name", "CategoricalDistribution"}, {"attributes", {{"choices", p.choices}}}};
      break;
  }
  return d.dump();
}

// Optuna's internal representation: the value, or a category's index.
json optuna_internal(const Parameter& p, const ParamValue& v) {
  if (p.kind == ParamKind::Number) {
    const double x = std::holds_alternative<double>(v) ? std::get<double>(v)
                                                       : static_cast<double>(std::get<std::int64_t>(v));
    return static_cast<std::int64_t>(std::find(p.numbers.begin(), p.numbers.end(), x) - p.numbers.begin());
  }
  if (p.kind == ParamKind::Choice)
    return static_cast<std::int64_t>(std::find(p.choices.begin(), p.choices.end(), std::get<std::string>(v)) -
                                     p.choices.begin());
  if (std::holds_alternative<std::int64_t>(v)) return std::get<std::int64_t>(v);
  return std::get<double>(v);
}

// optuna.trial.TrialState: RUNNING 0, COMPLETE 1, PRUNED 2, FAIL 3, WAITING 4.
int optuna_state(TrialState s) {
  switch (s) {
    case TrialState::Running: return 0;
    case TrialState::Ok: return 1;
    case TrialState::Pruned: return 2;
    case TrialState::Interrupted: return 4;  // runs again on --resume
    case TrialState::Failed:
    case TrialState::Timeout:
    case TrialState::Invalid: return 3;
  }
  return 3;
}

}  // namespace

void write_trials_csv(const HistorySnapshot& h, std::ostream& out) {
  const auto& ps = h.study.space.parameters();
  out << "id,state,objective";
  for (const auto& o : h.study.objectives) out << "," << csv_field(o.name);
  for (const auto& p : ps) out << "," << csv_field(p.name);
  out << ",start_time,end_time,wall_time,rank,host,exit_code,signal,peak_rss_kb,last_step,from,member,step_"
         "limit,"
         "message\n";
  for (const auto& t : h.trials) {
    out << t.id << "," << state_name(t.state) << "," << (t.objective ? num(*t.objective) : "");
    for (std::size_t k = 0; k < h.study.objectives.size(); ++k)
      out << "," << (k < t.values.size() ? num(t.values[k]) : "");
    for (const auto& v : t.params) out << "," << csv_field(to_string(v));
    out << "," << num(t.start_time) << "," << num(t.end_time) << "," << num(t.wall_time()) << "," << t.rank
        << "," << csv_field(t.host) << "," << t.exit_code << "," << t.signal << "," << t.peak_rss_kb << ","
        << t.last_step << "," << (t.from ? std::to_string(*t.from) : "") << ","
        << (t.member ? std::to_string(*t.member) : "") << ","
        << (t.step_limit ? std::to_string(*t.step_limit) : "") << "," << csv_field(t.message) << "\n";
  }
}

void write_curves_csv(const HistorySnapshot& h, std::ostream& out) {
  out << "trial,step,time,metric,value\n";
  for (const auto& r : h.reports)
    out << r.trial << "," << (r.step >= 0 ? std::to_string(r.step) : "") << "," << num(r.time) << ","
        << csv_field(r.metric) << "," << (std::isfinite(r.value) ? num(r.value) : "") << "\n";
}

void write_study_json(const HistorySnapshot& h, std::ostream& out) {
  const auto& ps = h.study.space.parameters();
  json trials = json::array();
  for (const auto& t : h.trials) {
    json params = json::object();
    for (std::size_t i = 0; i < ps.size(); ++i) params[ps[i].name] = to_json(t.params[i]);
    json values = json::object();
    for (std::size_t k = 0; k < h.study.objectives.size(); ++k)
      values[h.study.objectives[k].name] = k < t.values.size() ? json(t.values[k]) : json(nullptr);
    trials.push_back({{"id", t.id},
                      {"state", std::string(state_name(t.state))},
                      {"objective", t.objective ? json(*t.objective) : json(nullptr)},
                      {"objectives", values},
                      {"params", params},
                      {"start_time", t.start_time},
                      {"end_time", t.end_time},
                      {"wall_time", t.wall_time()},
                      {"rank", t.rank},
                      {"host", t.host},
                      {"exit_code", t.exit_code},
                      {"signal", t.signal},
                      {"peak_rss_kb", t.peak_rss_kb},
                      {"last_step", t.last_step},
                      {"from", t.from ? json(*t.from) : json(nullptr)},
                      {"member", t.member ? json(*t.member) : json(nullptr)},
                      {"step_limit", t.step_limit ? json(*t.step_limit) : json(nullptr)},
                      {"message", t.message}});
  }
  json reports = json::array();
  for (const auto& r : h.reports)
    reports.push_back({{"trial", r.trial},
                       {"step", r.step},
                       {"time", r.time},
                       {"metric", r.metric},
                       {"value", finite_or_null(r.value)}});
  const auto& s = h.study;
  json objectives = json::array();
  for (const auto& o : s.objectives)
    objectives.push_back({{"name", o.name}, {"direction", o.minimize ? "min" : "max"}});
  json study = {{"name", s.name},
                {"space", s.space.to_json()},
                {"sampler", s.sampler},
                {"seed", s.seed},
                {"direction", s.minimize ? "min" : "max"},
                {"objectives", objectives},
                {"command", s.command},
                {"program_version", s.program_version},
                {"created", s.created},
                {"tune_version", s.tune_version}};
  if (!s.ended.empty()) study["ended"] = s.ended;
  out << json{{"study", study}, {"trials", trials}, {"reports", reports}}.dump(2) << "\n";
}

void write_optuna_journal(const HistorySnapshot& h, std::ostream& out) {
  // JournalStorage replays these lines (JournalOperation: CREATE_STUDY 0,
  // SET_STUDY_USER_ATTR 2, CREATE_TRIAL 4); a worker id no live Optuna
  // process has.
  const std::string worker = "tune-export";
  const auto& s = h.study;
  json directions = json::array();
  if (s.objectives.empty()) directions.push_back(s.minimize ? 1 : 2);
  for (const auto& o : s.objectives) directions.push_back(o.minimize ? 1 : 2);
  out << json{{"op_code", 0}, {"worker_id", worker}, {"study_name", s.name}, {"directions", directions}}
             .dump()
      << "\n";
  const std::string metric = curve_metric(h);
  const std::vector<std::pair<std::string, json>> attrs = {{"tune_command", s.command},
                                                           {"tune_sampler", s.sampler},
                                                           {"tune_seed", s.seed},
                                                           {"tune_created", s.created},
                                                           {"tune_version", s.tune_version},
                                                           {"tune_intermediate_metric", metric},
                                                           {"tune_objectives", [&] {
                                                              json names = json::array();
                                                              if (s.objectives.empty())
                                                                names.push_back("objective");
                                                              for (const auto& o : s.objectives)
                                                                names.push_back(o.name);
                                                              return names;
                                                            }()}};
  for (const auto& [key, value] : attrs)
    out << json{{"op_code", 2}, {"worker_id", worker}, {"study_id", 0}, {"user_attr", {{key, value}}}}.dump()
        << "\n";
  std::map<std::uint64_t, json> intermediate;
  for (const auto& r : h.reports)
    if (r.metric == metric && r.step >= 0 && std::isfinite(r.value))
      intermediate[r.trial][std::to_string(r.step)] = r.value;
  std::vector<const Trial*> trials;
  for (const auto& t : h.trials) trials.push_back(&t);
  std::sort(trials.begin(), trials.end(), [](const Trial* a, const Trial* b) { return a->id < b->id; });
  const auto& ps = s.space.parameters();
  for (const Trial* t : trials) {
    json distributions = json::object(), params = json::object();
    for (std::size_t i = 0; i < ps.size() && i < t->params.size(); ++i) {
      if (is_absent(t->params[i])) continue;
      distributions[ps[i].name] = optuna_distribution(ps[i]);
      params[ps[i].name] = optuna_internal(ps[i], t->params[i]);
    }
    const int state = optuna_state(t->state);
    json value = nullptr, values = nullptr;
    if (t->state == TrialState::Ok) {
      if (s.multi_objective()) {
        values = json::array();
        for (double v : t->values) values.push_back(v);
      } else if (t->objective) {
        value = *t->objective;
      }
    }
    json line = {{"op_code", 4},
                 {"worker_id", worker},
                 {"study_id", 0},
                 {"state", state},
                 {"value", value},
                 {"values", values},
                 {"datetime_start", t->start_time > 0 ? json(optuna_time(t->start_time)) : json(nullptr)},
                 {"distributions", distributions},
                 {"params", params},
                 {"user_attrs",
                  {{"tune_id", t->id},
                   {"tune_state", std::string(state_name(t->state))},
                   {"host", t->host},
                   {"rank", t->rank},
                   {"exit_code", t->exit_code},
                   {"wall_time", t->wall_time()},
                   {"message", t->message}}},
                 {"system_attrs", json::object()},
                 {"intermediate_values", intermediate.count(t->id) ? intermediate[t->id] : json::object()}};
    // Its lineage (population-based training), where it has one.
    if (t->from) line["user_attrs"]["tune_from"] = *t->from;
    if (t->member) line["user_attrs"]["tune_member"] = *t->member;
    if (t->step_limit) line["user_attrs"]["tune_step_limit"] = *t->step_limit;
    if (state != 0 && state != 4 && t->end_time > 0) line["datetime_complete"] = optuna_time(t->end_time);
    out << line.dump() << "\n";
  }
}

}  // namespace tune
