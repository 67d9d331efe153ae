// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/workload.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <map>
#include <optional>
#include <random>
#include <sstream>

#include "priority/job_facts.hpp"
#include "simulation/text.hpp"

namespace tune::sim {
namespace {

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == sep)
      out.push_back(cur), cur.clear();
    else if (c != '\r')
      cur += c;
  }
  out.push_back(cur);
  return out;
}

struct Where {
  const std::string& source;
  int line;
  [[noreturn]] void fail(const std::string& what, const std::string& fix) const {
    throw WorkloadError(source + ":" + std::to_string(line) + ": " + what + "; " + fix);
  }
};

double number(const std::string& s, const Where& w, const std::string& field) {
  try {
    std::size_t used = 0;
    const double v = std::stod(trim(s), &used);
    if (used != trim(s).size() || !std::isfinite(v)) throw std::invalid_argument("x");
    return v;
  } catch (const std::exception&) {
    w.fail(field + " '" + s + "' is not a number", "fix or remove the line");
  }
}

// Timelimit, Elapsed: see slurm_duration in text.hpp.
double duration_of(const std::string& s, const Where& w, const std::string& field) {
  const auto v = slurm_duration(s);
  if (!v) w.fail(field + " '" + s + "' is not a Slurm duration", "use [D-]HH:MM:SS, MM:SS or MM");
  return *v;
}

// sacct prints local time without a zone (2026-11-22T10:04:05). Read as if
// UTC: only differences matter, and they are exact except across a
// daylight-saving change.
std::optional<double> slurm_time(const std::string& s, const Where& w, const std::string& field) {
  const std::string t = trim(s);
  if (t.empty() || t == "Unknown" || t == "None") return std::nullopt;
  std::tm tm{};
  std::istringstream in(t);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) w.fail(field + " '" + s + "' is not a time", "sacct prints YYYY-MM-DDTHH:MM:SS");
  return static_cast<double>(timegm(&tm));
}

// 4000M, 8G, 1.5T, 512K -> MB
double slurm_mem(const std::string& s, const Where& w) {
  std::string t = trim(s);
  if (t.empty()) return 0;
  while (!t.empty() && (t.back() == 'n' || t.back() == 'c')) t.pop_back();  // old per-node/per-cpu suffixes
  double mult = 1;
  if (!t.empty() && std::isalpha(static_cast<unsigned char>(t.back()))) {
    switch (std::toupper(static_cast<unsigned char>(t.back()))) {
      case 'K': mult = 1.0 / 1024; break;
      case 'M': mult = 1; break;
      case 'G': mult = 1024; break;
      case 'T': mult = 1024 * 1024; break;
      default: w.fail("memory '" + s + "' has an unknown unit", "use K, M, G or T");
    }
    t.pop_back();
  }
  return number(t, w, "memory") * mult;
}

std::map<std::string, int> columns(const std::vector<std::string>& header) {
  std::map<std::string, int> m;
  for (std::size_t i = 0; i < header.size(); ++i) m[lower(trim(header[i]))] = static_cast<int>(i);
  return m;
}

int need(const std::map<std::string, int>& cols, const std::string& name, const std::string& source,
         const std::string& format) {
  const auto it = cols.find(name);
  if (it == cols.end())
    throw WorkloadError(source + ":1: the " + format + " header has no '" + name +
                        "' column; see tune-simulate(1), INPUTS");
  return it->second;
}

// --- sacct --parsable2 -X -----------------------------------------------------
void read_sacct(std::istream& in, Workload& w) {
  std::string line;
  std::getline(in, line);
  const auto header = split(line, '|');
  const auto cols = columns(header);
  const int c_submit = need(cols, "submit", w.source, "sacct"),
            c_start = need(cols, "start", w.source, "sacct"), c_end = need(cols, "end", w.source, "sacct");
  auto opt = [&](const char* n) {
    const auto it = cols.find(n);
    return it == cols.end() ? -1 : it->second;
  };
  const int c_id = opt("jobid"), c_name = opt("jobname"), c_user = opt("user"), c_account = opt("account"),
            c_limit = opt("timelimit"), c_nodes = opt("nnodes"), c_cpus = opt("ncpus"),
            c_tres = opt("alloctres"), c_mem = opt("reqmem"), c_comment = opt("comment");
  int n = 1, unknown = 0;
  while (std::getline(in, line)) {
    ++n;
    if (trim(line).empty()) continue;
    Where where{w.source, n};
    auto f = split(line, '|');
    // A '|' inside a Comment (the last column, as tune-simulate(1) gives it)
    // or a job name splits it: fold the extra fields back.
    if (f.size() > header.size() && c_comment == static_cast<int>(header.size()) - 1) {
      while (f.size() > header.size())
        f[c_comment] += "|" + f[c_comment + 1], f.erase(f.begin() + c_comment + 1);
    } else if (f.size() > header.size() && c_name >= 0) {
      const std::size_t extra = f.size() - header.size();
      for (std::size_t k = 0; k < extra; ++k)
        f[c_name] += "|" + f[c_name + 1], f.erase(f.begin() + c_name + 1);
    }
    if (f.size() != header.size())
      where.fail("has " + std::to_string(f.size()) + " fields, the header " + std::to_string(header.size()),
                 "use the sacct command in tune-simulate(1)");
    const auto submit = slurm_time(f[c_submit], where, "Submit");
    const auto start = slurm_time(f[c_start], where, "Start");
    const auto end = slurm_time(f[c_end], where, "End");
    if (!submit || !start || !end ||
        *end < *start) {  // never started (cancelled while pending) or still running
      ++unknown;
      continue;
    }
    SimJob j;
    j.name = c_id >= 0 ? f[c_id] : std::to_string(n - 1);
    if (c_name >= 0 && c_id < 0) j.name = f[c_name];
    j.user = c_user >= 0 ? f[c_user] : "";
    j.account = tenant_of(c_account >= 0 ? trim(f[c_account]) : std::string(), j.user, "default");
    j.submit = *submit;
    j.recorded_start = *start;
    j.runtime = *end - *start;
    if (c_limit >= 0) {
      const std::string l = trim(f[c_limit]);
      if (!l.empty() && l != "UNLIMITED" && l != "Partition_Limit" && l != "INVALID")
        j.time_limit = duration_of(l, where, "Timelimit");
    }
    if (c_nodes >= 0) j.nodes = static_cast<int>(number(f[c_nodes], where, "NNodes"));
    if (c_cpus >= 0) j.cpus = std::max(1, static_cast<int>(number(f[c_cpus], where, "NCPUS")));
    if (c_tres >= 0)
      for (const auto& kv : split(f[c_tres], ',')) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos) continue;
        const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
        if (k == "gres/gpu")
          j.gpus = static_cast<int>(number(v, where, "AllocTRES gres/gpu"));
        else if (k == "mem")
          j.mem_mb = slurm_mem(v, where);
      }
    if (j.mem_mb == 0 && c_mem >= 0) j.mem_mb = slurm_mem(f[c_mem], where);
    if (c_comment >= 0) j.comment = f[c_comment];
    w.jobs.push_back(j);
  }
  w.skipped = unknown;
  w.skipped_why = "no Start or End (never started, or still running)";
}

// --- Standard Workload Format ------------------------------------------------
void read_swf(std::istream& in, Workload& w) {
  std::string line;
  int n = 0, skipped = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::string t = trim(line);
    if (t.empty() || t[0] == ';') continue;
    Where where{w.source, n};
    std::istringstream s(t);
    std::vector<double> f;
    std::string x;
    while (s >> x) f.push_back(number(x, where, "field " + std::to_string(f.size() + 1)));
    if (f.size() < 18)
      where.fail("has " + std::to_string(f.size()) + " fields, SWF has 18", "fix or remove the line");
    const double run = f[3], procs = f[4] > 0 ? f[4] : f[7];
    if (run < 0 || procs <= 0 || f[1] < 0) {
      ++skipped;
      continue;
    }
    SimJob j;
    j.name = std::to_string(static_cast<long long>(f[0]));
    j.submit = f[1];
    if (f[2] >= 0) j.recorded_start = f[1] + f[2];
    j.runtime = run;
    j.cpus = static_cast<int>(procs);
    if (f[8] > 0) j.time_limit = f[8];
    if (f[9] > 0) j.mem_mb = f[9] * procs / 1024;  // KB per processor
    j.user = f[11] >= 0 ? std::to_string(static_cast<long long>(f[11])) : "";
    j.account =
        tenant_of(f[12] >= 0 ? "group" + std::to_string(static_cast<long long>(f[12])) : std::string(),
                  j.user, "default");
    w.jobs.push_back(j);
  }
  w.skipped = skipped;
  w.skipped_why = "run time or processors unknown (-1)";
}

// --- CSV traces -----------------------------------------------------------------
void read_csv(std::istream& in, Workload& w, const std::string& format) {
  std::string line;
  std::getline(in, line);
  const auto header = split(line, ',');
  const auto cols = columns(header);
  auto opt = [&](const char* name) {
    const auto it = cols.find(name);
    return it == cols.end() ? -1 : it->second;
  };
  int n = 1, skipped = 0;
  while (std::getline(in, line)) {
    ++n;
    if (trim(line).empty()) continue;
    Where where{w.source, n};
    const auto f = split(line, ',');
    if (f.size() != header.size())
      where.fail("has " + std::to_string(f.size()) + " fields, the header " + std::to_string(header.size()),
                 "fix or remove the line");
    auto get = [&](const char* name) { return number(f[need(cols, name, w.source, format)], where, name); };
    SimJob j;
    if (format == "tiresias") {
      j.name = trim(f[need(cols, "job_id", w.source, format)]);
      j.gpus = static_cast<int>(get("num_gpu"));
      j.submit = get("submit_time");
      j.runtime = get("duration");
    } else if (format == "openb") {
      j.name = trim(f[need(cols, "name", w.source, format)]);
      j.nodes = 1;  // a pod runs on one node
      j.cpus = std::max(1, static_cast<int>(std::ceil(get("cpu_milli") / 1000)));
      j.mem_mb = get("memory_mib");
      // A GPU-sharing task (gpu_milli < 1000) gets a whole GPU: Slurm has no
      // fractional GPUs without shards or MPS.
      j.gpus = static_cast<int>(get("num_gpu"));
      if (opt("creation_time") < 0) {  // the multi-GPU variant: sizes only
        w.timed = false;
        w.jobs.push_back(j);
        continue;
      }
      if (trim(f[opt("scheduled_time")]).empty()) {  // deleted while pending: it never ran
        ++skipped;
        continue;
      }
      if (const int q = opt("qos"); q >= 0 && !trim(f[q]).empty()) j.account = trim(f[q]);
      j.submit = get("creation_time");
      j.runtime = get("deletion_time") - get("scheduled_time");
    } else {  // philly
      j.submit = get("submit_time");
      j.runtime = get("duration");
      j.gpus = static_cast<int>(get("num_gpu"));
      const int c_id = opt("job_id");
      j.name = c_id >= 0 ? trim(f[c_id]) : std::to_string(n - 1);
      if (const int c = opt("user"); c >= 0) j.user = trim(f[c]);
      const int c_acct = opt("account");
      j.account = tenant_of(c_acct >= 0 ? trim(f[c_acct]) : std::string(), j.user, j.account);
      if (const int c = opt("time_limit"); c >= 0 && !trim(f[c]).empty())
        j.time_limit = number(f[c], where, "time_limit");
      if (const int c = opt("num_cpu"); c >= 0)
        j.cpus = std::max(1, static_cast<int>(number(f[c], where, "num_cpu")));
      if (const int c = opt("num_node"); c >= 0) j.nodes = static_cast<int>(number(f[c], where, "num_node"));
    }
    if (j.runtime < 0 || j.gpus < 0 || j.submit < 0)
      where.fail("has a negative time or GPU count", "fix or remove the line");
    w.jobs.push_back(j);
  }
  w.skipped = skipped;
  w.skipped_why = "never scheduled in the trace (no scheduled_time)";
}

std::string detect(const std::string& first_line) {
  const std::string l = lower(first_line);
  if (l.rfind(";", 0) == 0) return "swf";
  if (l.find('|') != std::string::npos && l.find("submit") != std::string::npos) return "sacct";
  if (l.rfind("job_id,num_gpu,submit_time", 0) == 0) return "tiresias";
  if (l.rfind("name,cpu_milli,memory_mib,num_gpu", 0) == 0) return "openb";
  if (l.find("submit_time") != std::string::npos && l.find("duration") != std::string::npos &&
      l.find("num_gpu") != std::string::npos)
    return "philly";
  // SWF without a comment header: 18 numbers.
  std::istringstream s(first_line);
  std::string x;
  int k = 0;
  while (s >> x) ++k;
  if (k == 18) return "swf";
  return "";
}

}  // namespace

Workload parse_workload(const std::string& text, const std::string& source, const std::string& format) {
  Workload w;
  w.source = source;
  const std::string first = text.substr(0, text.find('\n'));
  const std::string f = format.empty() ? detect(first) : format;
  if (f.empty())
    throw WorkloadError(
        source + ":1: unknown workload format (header '" + first.substr(0, 60) +
        "'); use sacct --parsable2 output, SWF, or a Tiresias, Philly-style or openb CSV, or name it "
        "with --format");
  std::istringstream in(text);
  if (f == "sacct")
    read_sacct(in, w);
  else if (f == "swf")
    read_swf(in, w);
  else if (f == "tiresias" || f == "openb" || f == "philly")
    read_csv(in, w, f);
  else
    throw WorkloadError("unknown workload format '" + f + "': use sacct, swf, philly, tiresias or openb");
  w.source = source + " (" + f + ")";
  if (!w.timed) return w;
  if (w.jobs.empty())
    throw WorkloadError(
        source + ": holds no job that ran" +
        (w.skipped ? " (" + std::to_string(w.skipped) + " skipped: " + w.skipped_why + ")" : std::string()));
  std::stable_sort(w.jobs.begin(), w.jobs.end(),
                   [](const SimJob& a, const SimJob& b) { return a.submit < b.submit; });
  const double t0 = w.jobs.front().submit;
  for (auto& j : w.jobs) {
    j.submit -= t0;
    if (j.recorded_start >= 0) j.recorded_start -= t0;
  }
  return w;
}

Workload read_workload(const std::string& path, const std::string& format) {
  std::ifstream in(path);
  if (!in) throw WorkloadError(path + ": cannot read the file");
  std::stringstream s;
  s << in.rdbuf();
  return parse_workload(s.str(), path, format);
}

void borrow_times(Workload& w, const Workload& donor, std::uint64_t seed) {
  std::map<int, std::vector<const SimJob*>> by_gpus;
  for (const auto& j : donor.jobs) by_gpus[j.gpus].push_back(&j);
  std::mt19937_64 rng(seed);
  for (auto& j : w.jobs) {
    auto it = by_gpus.find(j.gpus);
    if (it == by_gpus.end()) it = by_gpus.lower_bound(j.gpus);  // the next larger size, else the largest
    if (it == by_gpus.end()) it = std::prev(by_gpus.end());
    const SimJob* d = it->second[std::uniform_int_distribution<std::size_t>(0, it->second.size() - 1)(rng)];
    j.submit = d->submit, j.runtime = d->runtime;
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(),
                   [](const SimJob& a, const SimJob& b) { return a.submit < b.submit; });
  w.timed = true;
  w.source += ", times drawn from " + donor.source + " by GPU count (seed " + std::to_string(seed) + ")";
}

Workload jitter_arrivals(const Workload& w, double seconds, std::uint64_t seed) {
  Workload out = w;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> shift(0, seconds);
  for (auto& j : out.jobs) j.submit += shift(rng), j.recorded_start = -1;
  for (auto& s : out.studies) s.submit += shift(rng);
  std::stable_sort(out.jobs.begin(), out.jobs.end(),
                   [](const SimJob& a, const SimJob& b) { return a.submit < b.submit; });
  return out;
}

void apply_time_limits(Workload& w, double factor) {
  for (auto& j : w.jobs)
    if (j.time_limit <= 0) j.time_limit = std::max(60.0, std::ceil(j.runtime * factor / 60) * 60);
  for (auto& s : w.studies) {
    double longest = 0, total = 0;
    for (const auto& t : s.trials) longest = std::max(longest, t.duration), total += t.duration;
    if (s.trial_time_limit <= 0) s.trial_time_limit = std::max(60.0, std::ceil(longest * factor / 60) * 60);
    if (s.time_limit <= 0)
      s.time_limit =
          std::max(60.0, std::ceil((total / std::max(1, s.parallel) + longest) * factor / 60) * 60);
    // Users give an AppCore room for a study slowed by others.
    if (s.appcore_time_limit <= 0)
      s.appcore_time_limit = std::max(s.time_limit, std::ceil(total / 60) * 60 + 3600);
  }
}

std::pair<double, double> load_window(const Workload& w) {
  const std::size_t n = w.jobs.size();
  if (n < 40) return {w.jobs.front().submit, w.jobs.back().submit};
  return {w.jobs[n / 40].submit, w.jobs[n - 1 - n / 40].submit};
}

ResourceLoad offered_loads(const Workload& w, int cluster_gpus, int cluster_cpus, double cluster_mem_mb) {
  ResourceLoad out;
  if (w.jobs.empty()) return out;
  const auto [first, last] = load_window(w);
  const double span = last - first;
  if (span <= 0) return out;
  // What the jobs would hold during the arrivals if none waited: a job that
  // runs past the last arrival counts only up to it.
  double gpu = 0, cpu = 0, mem = 0;
  for (const auto& j : w.jobs) {
    const double run = std::min(j.runtime, j.time_limit > 0 ? j.time_limit : j.runtime);
    const double held = std::max(0.0, std::min(j.submit + run, last) - std::max(j.submit, first));
    gpu += j.gpus * held, cpu += j.cpus * held, mem += j.mem_mb * held;
  }
  if (cluster_gpus > 0) out.gpus = gpu / (cluster_gpus * span);
  if (cluster_cpus > 0) out.cpus = cpu / (cluster_cpus * span);
  if (cluster_mem_mb > 0) out.mem = mem / (cluster_mem_mb * span);
  return out;
}

double offered_load(const Workload& w, int cluster_gpus, int cluster_cpus) {
  bool any_gpu = false;
  for (const auto& j : w.jobs) any_gpu |= j.gpus > 0;
  const ResourceLoad l = offered_loads(w, cluster_gpus, cluster_cpus, 0);
  return any_gpu ? l.gpus : l.cpus;
}

double factor_for_load(const Workload& w, double target, int cluster_gpus, int cluster_cpus) {
  double lo = 1e-3, hi = 1e6;
  for (int i = 0; i < 60; ++i) {
    const double mid = std::sqrt(lo * hi);
    (offered_load(compress(w, mid), cluster_gpus, cluster_cpus) < target ? lo : hi) = mid;
  }
  return std::sqrt(lo * hi);
}

Workload compress(const Workload& w, double factor) {
  Workload out = w;
  for (auto& j : out.jobs) {
    j.submit /= factor;
    if (factor != 1) j.recorded_start = -1;
  }
  for (auto& s : out.studies) s.submit /= factor;
  return out;
}

}  // namespace tune::sim
