// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "report/svg_chart.hpp"

namespace tune::sim {
namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// Seconds as a short human figure: 42s, 13.5m, 4.2h, 3.1d.
std::string dur(double s) {
  if (s < 0) return "-";
  if (s < 100) return fmt("%.0fs", s);
  if (s < 6000) return fmt("%.1fm", s / 60);
  if (s < 3 * 86400) return fmt("%.1fh", s / 3600);
  return fmt("%.1fd", s / 86400);
}

const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                         "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

}  // namespace

Stats stats_of(std::vector<double> v) {
  Stats s;
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / v.size();
  s.median = v[v.size() / 2];
  s.p95 = v[std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(0.95 * v.size())) - 1)];
  s.max = v.back();
  return s;
}

Summary summarise(const std::string& label, const Cluster& c, const Workload& w, const SimResult& r) {
  Summary s;
  s.label = label;
  s.never_fit = r.never_fit;
  std::vector<double> wait, jct, one, multi;
  std::map<int, std::vector<double>> by_gpus;
  std::map<std::string, std::vector<double>> by_account, slowdown;
  double first = w.jobs.empty() ? (w.studies.empty() ? 0 : w.studies.front().submit) : w.jobs.front().submit;
  for (const auto& st : w.studies) first = std::min(first, st.submit);
  double last = first, gpu_work = 0, cpu_work = 0, bound = 0;
  double last_arrival_end = 0, gpu_window = 0, cpu_window = 0;
  std::pair<double, double> win{first, first};
  if (!w.jobs.empty())
    win = load_window(w);
  else
    for (const auto& x : r.jobs) win.second = std::max(win.second, x.end);  // studies alone: their whole run
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const SimJob& j = job_of(w, r, i);
    const JobResult& x = r.jobs[i];
    if (x.cancelled) continue;
    ++s.jobs;
    if (x.start < 0) continue;
    ++s.started;
    s.timed_out += x.timed_out;
    s.backfilled += x.backfilled;
    const double run = x.end - x.start, wt = x.start - j.submit;
    wait.push_back(wt);
    jct.push_back(x.end - j.submit);
    by_gpus[j.gpus].push_back(wt);
    by_account[j.account].push_back(wt);
    slowdown[j.account].push_back((wt + run) / std::max(run, 10.0));
    if (j.gpus == 1) one.push_back(wt);
    if (j.gpus > 1) multi.push_back(wt);
    last = std::max(last, x.end);
    gpu_work += run * j.gpus;
    cpu_work += run * j.cpus;
    const double held = std::max(0.0, std::min(x.end, win.second) - std::max(x.start, win.first));
    gpu_window += held * j.gpus, cpu_window += held * j.cpus;
    bound += run;
    last_arrival_end = std::max(last_arrival_end, j.submit + run);
  }
  s.wait = stats_of(wait);
  if (!wait.empty()) {
    std::vector<double> sorted = wait;
    std::sort(sorted.begin(), sorted.end());
    for (int q = 0; q <= 100; ++q)
      s.wait_percentiles.push_back(sorted[std::min(sorted.size() - 1, q * (sorted.size() - 1) / 100)]);
  }
  s.completion = stats_of(jct);
  s.wait_one_gpu = stats_of(one);
  s.wait_multi_gpu = stats_of(multi);
  for (auto& [g, v] : by_gpus) s.wait_by_gpus[g] = stats_of(v);
  for (auto& [a, v] : by_account) s.wait_by_account[a] = stats_of(v);
  s.makespan = last - first;
  const double window = std::max(1e-9, win.second - win.first);
  s.gpu_utilisation = c.gpus() > 0 ? gpu_window / (c.gpus() * window) : 0;
  s.cpu_utilisation = c.cpus() > 0 ? cpu_window / (c.cpus() * window) : 0;
  double fsum = 0;
  int fn = 0;
  double qsum = 0;
  int qn = 0;
  for (const auto& x : r.samples) {
    if (x.fragmentation >= 0) fsum += x.fragmentation, ++fn;
    if (x.pending > 0) qsum += x.busy_gpus, ++qn;
  }
  s.fragmentation = fn ? fsum / fn : -1;
  s.gpu_use_queued = qn && c.gpus() > 0 ? qsum / qn / c.gpus() : -1;
  double a = 0, b = 0;
  for (auto& [acct, v] : slowdown) {
    const double x = 1.0 / stats_of(v).mean;
    a += x, b += x * x;
  }
  s.jain = b > 0 ? a * a / (slowdown.size() * b) : 1;
  s.completion_bound = s.started ? bound / s.started : 0;
  const bool gpus = c.gpus() > 0 && gpu_work > 0;
  s.makespan_bound =
      std::max(last_arrival_end - first, gpus ? gpu_work / c.gpus() : cpu_work / std::max(1, c.cpus()));
  s.seconds = r.seconds;
  s.events = r.events;
  s.events_per_second = r.seconds > 0 ? r.events / r.seconds : 0;
  s.priority_seconds = r.priority_seconds;

  std::vector<double> reached, all, bounds;
  for (std::size_t i = 0; i < r.studies.size() && i < w.studies.size(); ++i) {
    const StudyResult& x = r.studies[i];
    ++s.studies;
    s.yields += x.yields;
    s.study_trials += x.trials;
    s.interrupted += x.interrupted;
    s.max_level = std::max(s.max_level, x.max_level);
    s.judgements += x.judgements;
    s.lowerings += static_cast<int>(x.lowered_at.size());
    s.false_lowerings += x.false_lowerings;
    if (x.reached < 0 && x.last_improvement >= 0 && w.studies[i].target) {
      if (x.lowered_at.empty())
        ++s.never_lowered;
      else
        s.lags.push_back(x.lowered_at.front() - x.last_improvement);
    }
    if (x.reached >= 0) {
      reached.push_back(x.reached - x.submitted);
      if (const auto b = alone_time_to_target(w.studies[i])) bounds.push_back(*b);
    }
    all.push_back((x.reached >= 0 ? x.reached : x.ended) - x.submitted);
  }
  // GPU-seconds of each hour window, all jobs and the plateaued studies'.
  if (!r.studies.empty() && !w.studies.empty()) {
    double t0 = w.studies.front().submit;
    for (const auto& st : w.studies) t0 = std::min(t0, st.submit);
    for (const double h : Summary::kShareHours) {
      const double hi = t0 + h * 3600, lo = hi - 3600;
      double total = 0, plateau = 0;
      for (std::size_t j = 0; j < r.jobs.size(); ++j) {
        const JobResult& x = r.jobs[j];
        const SimJob& job = j < w.jobs.size() ? w.jobs[j] : r.study_jobs[j - w.jobs.size()];
        if (x.start < 0 || job.gpus <= 0) continue;
        const double end = x.end < 0 ? hi : x.end;
        const double held = std::max(0.0, std::min(end, hi) - std::max(x.start, lo)) * job.gpus;
        total += held;
        if (job.study >= 0 && static_cast<std::size_t>(job.study) < r.studies.size() &&
            r.studies[static_cast<std::size_t>(job.study)].reached < 0 &&
            w.studies[static_cast<std::size_t>(job.study)].target)
          plateau += held;
      }
      s.plateau_gpu_share.push_back(total > 0 ? plateau / total : -1);
    }
  }
  s.time_to_target = stats_of(reached);
  s.study_time_all = stats_of(all).mean;
  s.time_to_target_bound = stats_of(bounds).mean;
  return s;
}

std::string format_table(const std::vector<Summary>& rows) {
  std::ostringstream o;
  char b[512];
  std::snprintf(b, sizeof b, "%-26s %7s %8s %8s %8s %8s %9s %9s %9s %7s %7s %6s %6s %6s %9s\n", "POLICY",
                "JOBS", "WAIT", "WAIT-P95", "WAIT-MAX", "JCT", "JCT-BOUND", "1GPU-WAIT", "nGPU-WAIT",
                "GPU-USE", "USE-Q", "FRAG", "JAIN", "BF%", "MAKESPAN");
  o << b;
  for (const auto& s : rows) {
    std::snprintf(b, sizeof b, "%-26s %7d %8s %8s %8s %8s %9s %9s %9s %6.1f%% %7s %6s %6.3f %5.1f%% %9s\n",
                  s.label.c_str(), s.started, dur(s.wait.mean).c_str(), dur(s.wait.p95).c_str(),
                  dur(s.wait.max).c_str(), dur(s.completion.mean).c_str(), dur(s.completion_bound).c_str(),
                  s.wait_one_gpu.n ? dur(s.wait_one_gpu.mean).c_str() : "-",
                  s.wait_multi_gpu.n ? dur(s.wait_multi_gpu.mean).c_str() : "-", 100 * s.gpu_utilisation,
                  s.gpu_use_queued < 0 ? "-" : fmt("%.1f%%", 100 * s.gpu_use_queued).c_str(),
                  s.fragmentation < 0 ? "-" : fmt("%.3f", s.fragmentation).c_str(), s.jain,
                  s.started ? 100.0 * s.backfilled / s.started : 0.0, dur(s.makespan).c_str());
    o << b;
  }
  return o.str();
}

std::string format_by_gpus(const std::vector<Summary>& rows) {
  std::set<int> sizes;
  for (const auto& s : rows)
    for (const auto& [g, st] : s.wait_by_gpus) sizes.insert(g);
  std::ostringstream o;
  char b[256];
  std::snprintf(b, sizeof b, "%-26s", "MEAN WAIT BY GPUS");
  o << b;
  for (int g : sizes) {
    std::snprintf(b, sizeof b, " %8s", (std::to_string(g) + "-GPU").c_str());
    o << b;
  }
  o << "\n";
  for (const auto& s : rows) {
    std::snprintf(b, sizeof b, "%-26s", s.label.c_str());
    o << b;
    for (int g : sizes) {
      const auto it = s.wait_by_gpus.find(g);
      std::snprintf(b, sizeof b, " %8s", it == s.wait_by_gpus.end() ? "-" : dur(it->second.mean).c_str());
      o << b;
    }
    o << "\n";
  }
  return o.str();
}

std::string format_studies(const std::vector<Summary>& rows) {
  std::ostringstream o;
  char b[512];
  std::snprintf(b, sizeof b, "%-38s %8s %10s %10s %10s %10s %8s %8s %7s %6s  %-32s %s\n", "STUDIES",
                "REACHED", "TTT", "TTT-ALL", "TTT-BOUND", "TTT-MAX", "TRIALS", "CUT", "YIELDS", "LEVEL",
                "FALSE-LOWERED/LOWERED (JUDGED)", "LAG");
  o << b;
  for (const auto& s : rows) {
    char lowered[96] = "-";
    if (s.judgements > 0)
      std::snprintf(
          lowered, sizeof lowered, "%d/%d %s (%d)", s.false_lowerings, s.lowerings,
          s.lowerings
              ? (std::to_string(static_cast<int>(std::lround(100.0 * s.false_lowerings / s.lowerings))) + "%")
                    .c_str()
              : "-",
          s.judgements);
    std::string lag = "-";
    if (!s.lags.empty()) {
      std::vector<std::int64_t> l = s.lags;
      std::sort(l.begin(), l.end());
      lag = std::to_string(l[l.size() / 2]) + " [" + std::to_string(l.front()) + ", " +
            std::to_string(l.back()) + "]";
    }
    if (s.never_lowered > 0 && s.judgements > 0) lag += " " + std::to_string(s.never_lowered) + " never";
    std::snprintf(b, sizeof b, "%-38s %8s %10s %10s %10s %10s %8d %8d %7d %6d  %-32s %s\n", s.label.c_str(),
                  (std::to_string(s.time_to_target.n) + "/" + std::to_string(s.studies)).c_str(),
                  s.time_to_target.n ? dur(s.time_to_target.mean).c_str() : "-",
                  dur(s.study_time_all).c_str(),
                  s.time_to_target.n ? dur(s.time_to_target_bound).c_str() : "-",
                  s.time_to_target.n ? dur(s.time_to_target.max).c_str() : "-", s.study_trials, s.interrupted,
                  s.yields, s.max_level, lowered, s.judgements > 0 ? lag.c_str() : "-");
    o << b;
  }
  return o.str();
}

std::string format_plateau_share(const std::vector<Summary>& rows) {
  std::ostringstream o;
  char b[256];
  o << "GPU SHARE OF THE STUDIES THAT NEVER MET THEIR TARGET, in the hour before (hours after the first "
       "study)\n";
  std::snprintf(b, sizeof b, "%-38s", "POLICY");
  o << b;
  for (const double h : Summary::kShareHours) {
    std::snprintf(b, sizeof b, " %7gh", h);
    o << b;
  }
  o << "\n";
  for (const auto& s : rows) {
    std::snprintf(b, sizeof b, "%-38s", s.label.c_str());
    o << b;
    for (const double v : s.plateau_gpu_share) {
      if (v < 0)
        std::snprintf(b, sizeof b, " %8s", "-");
      else
        std::snprintf(b, sizeof b, " %8.2f", v);
      o << b;
    }
    o << "\n";
  }
  return o.str();
}

std::string format_study_detail(const Workload& w, const std::vector<std::string>& labels,
                                const std::vector<const SimResult*>& results) {
  std::ostringstream o;
  char b[256];
  std::snprintf(b, sizeof b, "%-24s %10s", "TIME TO TARGET", "ALONE");
  o << b;
  for (const auto& l : labels) {
    std::snprintf(b, sizeof b, " %22s", l.c_str());
    o << b;
  }
  o << "\n";
  for (std::size_t i = 0; i < w.studies.size(); ++i) {
    const auto alone = alone_time_to_target(w.studies[i]);
    std::snprintf(b, sizeof b, "%-24s %10s",
                  (w.studies[i].name + " (" + w.studies[i].account + ")").substr(0, 24).c_str(),
                  alone ? dur(*alone).c_str() : "-");
    o << b;
    for (const auto* r : results) {
      const StudyResult& x = r->studies[i];
      std::string cell = x.reached >= 0 ? dur(x.reached - x.submitted)
                         : x.killed     ? "AppCore limit"
                                        : "not reached";
      if (x.max_level > 0) cell += " L" + std::to_string(x.max_level);
      if (x.yields > 0) cell += " Y" + std::to_string(x.yields);
      std::snprintf(b, sizeof b, " %22s", cell.c_str());
      o << b;
    }
    o << "\n";
  }
  return o.str();
}

std::string format_replicates(const std::vector<std::vector<Summary>>& reps) {
  std::string out;
  char buf[512];
  bool studies = false;
  for (const auto& r : reps)
    for (const auto& s : r) studies |= s.studies > 0;
  std::snprintf(buf, sizeof buf, "%-20s %26s %26s %26s %22s %22s", "POLICY", "WAIT", "1GPU-WAIT", "nGPU-WAIT",
                "GPU-USE", "JAIN");
  out += buf;
  if (studies) {
    std::snprintf(buf, sizeof buf, " %26s %26s", "TTT", "TTT-ALL");
    out += buf;
  }
  out += "\n";
  for (const auto& r : reps) {
    if (r.empty()) continue;
    auto cell = [&](auto get, int kind) {  // 0: seconds, 1: percent, 2: plain
      double lo = get(r.front()), hi = lo, sum = 0;
      for (const auto& s : r) {
        const double v = get(s);
        lo = std::min(lo, v), hi = std::max(hi, v), sum += v;
      }
      const double mean = sum / r.size();
      if (kind == 1) {
        std::snprintf(buf, sizeof buf, "%.1f%% [%.1f, %.1f]", 100 * mean, 100 * lo, 100 * hi);
        return std::string(buf);
      }
      if (kind == 2) {
        std::snprintf(buf, sizeof buf, "%.3f [%.3f, %.3f]", mean, lo, hi);
        return std::string(buf);
      }
      return dur(mean) + " [" + dur(lo) + ", " + dur(hi) + "]";
    };
    std::snprintf(buf, sizeof buf, "%-20s %26s %26s %26s %22s %22s\n", r.front().label.c_str(),
                  cell([](const Summary& s) { return s.wait.mean; }, 0).c_str(),
                  cell([](const Summary& s) { return s.wait_one_gpu.mean; }, 0).c_str(),
                  cell([](const Summary& s) { return s.wait_multi_gpu.mean; }, 0).c_str(),
                  cell([](const Summary& s) { return s.gpu_utilisation; }, 1).c_str(),
                  cell([](const Summary& s) { return s.jain; }, 2).c_str());
    out += buf;
    if (studies) {
      out.pop_back();  // the row's newline
      std::snprintf(buf, sizeof buf, " %26s %26s\n",
                    cell([](const Summary& s) { return s.time_to_target.mean; }, 0).c_str(),
                    cell([](const Summary& s) { return s.study_time_all; }, 0).c_str());
      out += buf;
    }
  }
  if (studies) {  // each replicate's figure, for a paired test across policies (bench/simulate_paired.py)
    out += "\nTTT BY REPLICATE (seconds; replicate 1 first; nan: no study reached its target)\n";
    for (const auto& r : reps) {
      if (r.empty()) continue;
      out += r.front().label;
      for (const auto& s : r) {
        if (s.time_to_target.n == 0) {
          out += " nan";
          continue;
        }
        std::snprintf(buf, sizeof buf, " %.1f", s.time_to_target.mean);
        out += buf;
      }
      out += "\n";
    }
  }
  return out;
}

std::string html_page(const std::string& title, const std::vector<Summary>& rows,
                      const std::vector<const SimResult*>& results) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" << xml_escape(title)
    << "</"
       "title>\n<style>body{font-family:sans-serif;margin:1.5em;color:#222}pre{background:#f6f6f6;padding:."
       "8em}"
       "figure{display:inline-block;margin:.5em}</style></head><body>\n<h1>"
    << xml_escape(title) << "</h1>\n<pre>" << xml_escape(format_table(rows)) << "\n"
    << xml_escape(format_by_gpus(rows)) << "</pre>\n";
  Chart by, busy, cdf;
  by.title = "Mean wait by GPU count", by.x_label = "GPUs per job", by.y_label = "mean wait (s)";
  cdf.title = "Wait by percentile of jobs", cdf.x_label = "percentile of jobs", cdf.y_label = "wait (min)";
  busy.title = "GPUs busy over time", busy.x_label = "time (h)", busy.y_label = "GPUs busy";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ChartSeries s;
    s.label = rows[i].label;
    s.color = kColors[i % 8];
    ChartSeries b = s;
    s.markers = true;
    for (const auto& [g, st] : rows[i].wait_by_gpus) s.x.push_back(g), s.y.push_back(st.mean);
    by.series.push_back(s);
    ChartSeries c = b;
    for (std::size_t q = 0; q < rows[i].wait_percentiles.size(); ++q)
      c.x.push_back(static_cast<double>(q)), c.y.push_back(rows[i].wait_percentiles[q] / 60);
    cdf.series.push_back(c);
    const auto& samples = results[i]->samples;
    const std::size_t step = std::max<std::size_t>(1, samples.size() / 600);
    for (std::size_t k = 0; k < samples.size(); k += step)
      b.x.push_back(samples[k].time / 3600), b.y.push_back(samples[k].busy_gpus);
    busy.series.push_back(b);
  }
  o << "<figure>" << render_svg(by) << "</figure>\n";
  o << "<figure>" << render_svg(cdf) << "</figure>\n";
  o << "<figure>" << render_svg(busy) << "</figure>\n</body></html>\n";
  return o.str();
}

}  // namespace tune::sim
