// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/priority_trace.hpp"

#include <cmath>
#include <cstdio>

#include "simulation/sim_engine.hpp"

namespace tune::sim {

void write_trace_header(std::ostream& out) {
  out << "TIME PASS JOBID ACCOUNT STUDY LEVEL AGE FAIRSHARE SITE PRIORITY STARTED\n";
}

void write_trace_row(std::ostream& out, const TraceRow& r) {
  auto term = [](double v) {
    if (std::isnan(v)) return std::string("-");
    char b[32];
    std::snprintf(b, sizeof b, "%.0f", v);
    return std::string(b);
  };
  char t[32];
  std::snprintf(t, sizeof t, "%.0f", r.time);
  out << t << ' ' << r.pass << ' ' << r.job << ' ' << (r.account.empty() ? "-" : r.account) << ' '
      << (r.study.empty() ? "-" : r.study) << ' ' << (r.study.empty() ? "-" : std::to_string(r.level)) << ' '
      << term(r.terms.age) << ' ' << term(r.terms.fairshare) << ' ' << r.terms.site << ' ' << term(r.priority)
      << ' ' << (r.started ? 1 : 0) << '\n';
}

namespace detail {

std::vector<int> Sim::trace_queue() const {
  std::vector<int> q;
  if (!options_.trace) return q;
  q.reserve(pending_.size());
  for (const auto& k : pending_) q.push_back(k.idx);
  return q;
}

void Sim::trace_pass(const char* pass, const std::vector<int>& queue) {
  if (!options_.trace) return;
  bool any = false;
  for (int j : queue) any = any || res_[j].start == now_;
  if (!any) return;
  for (int j : queue) {
    TraceRow r;
    r.time = now_;
    r.pass = pass;
    r.job = static_cast<std::uint32_t>(j + 1);
    r.account = job(j).account;
    if (const int s = job(j).study; s >= 0) r.study = w_.studies[s].name, r.level = level_now_[s];
    r.terms = ordering_->terms(j);
    r.priority = prio_[j];
    r.started = res_[j].start == now_;
    write_trace_row(*options_.trace, r);
  }
}

}  // namespace detail
}  // namespace tune::sim
