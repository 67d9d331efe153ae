// SPDX-License-Identifier: GPL-2.0-or-later
// A replay's studies and jobs as CSV rows, for a site's own analysis.
#include <ostream>

#include "simulation/summary.hpp"

namespace tune::sim {

void write_studies_csv(std::ostream& out, const Workload& w, const SimResult& r) {
  out << "study,account,target,reached,best,results,last_improvement,last_improvement_time,first_lowered,"
         "first_lowered_time,lag,lag_seconds,max_level,lowerings,false_lowerings,converged\n";
  const auto csv = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (std::size_t i = 0; i < r.studies.size() && i < w.studies.size(); ++i) {
    const StudyResult& x = r.studies[i];
    const SimStudy& st = w.studies[i];
    const auto num = [](double v) {
      std::ostringstream o;
      o << v;
      return o.str();
    };
    const auto since = [&](double t) { return t < 0 ? std::string() : num(t - x.submitted); };
    out << csv(st.name) << ',' << csv(st.account) << ',' << (st.target ? num(*st.target) : std::string())
        << ',' << since(x.reached) << ',' << (x.best ? num(*x.best) : std::string()) << ',' << x.trials
        << ',';
    if (x.last_improvement >= 0)
      out << x.last_improvement << ',' << since(x.last_improvement_time) << ',';
    else
      out << ",,";
    if (!x.lowered_at.empty())
      out << x.lowered_at.front() << ',' << since(x.lowered_time.front()) << ',';
    else
      out << ",,";
    if (x.reached < 0 && st.target && x.last_improvement >= 0 && !x.lowered_at.empty())
      out << x.lowered_at.front() - x.last_improvement << ','
          << x.lowered_time.front() - x.last_improvement_time << ',';
    else
      out << ",,";
    out << x.max_level << ',' << x.lowered_at.size() << ',' << x.false_lowerings << ',' << since(x.converged)
        << '\n';
  }
}

void write_jobs_csv(std::ostream& out, const Workload& w, const SimResult& r, const Topology* t) {
  const bool studies = !r.study_jobs.empty();
  out << "job,account,user,gpus,cpus,submit,start,end,wait,runtime,time_limit,timed_out,backfilled";
  out << (t ? ",nodes" : "") << (studies ? ",kind,study,cancelled,ended_by_study\n" : "\n");
  auto csv = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  static const char* kinds[] = {"trace", "appcore", "trial", "study"};
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const SimJob& j = job_of(w, r, i);
    const JobResult& x = r.jobs[i];
    out << csv(j.name) << ',' << csv(j.account) << ',' << csv(j.user) << ',' << j.gpus << ',' << j.cpus << ','
        << j.submit << ',';
    if (x.start < 0)
      out << ",,,";
    else
      out << x.start << ',' << x.end << ',' << x.start - j.submit << ',';
    out << (j.kind == SimJob::Kind::Trace ? j.runtime : std::max(0.0, x.end - x.start)) << ',' << j.time_limit
        << ',' << (x.timed_out ? 1 : 0) << ',' << (x.backfilled ? 1 : 0);
    if (t) {
      std::string names;
      for (int n : x.nodes) names += (names.empty() ? "" : " ") + t->nodes[n].name;
      out << ',' << csv(names);
    }
    if (studies)
      out << ',' << kinds[static_cast<int>(j.kind)] << ','
          << (j.study >= 0 ? csv(w.studies[static_cast<std::size_t>(j.study)].name) : std::string()) << ','
          << (x.cancelled ? 1 : 0) << ',' << (x.ended_by_study ? 1 : 0);
    out << "\n";
  }
}

}  // namespace tune::sim
