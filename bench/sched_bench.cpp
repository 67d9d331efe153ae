// SPDX-License-Identifier: GPL-2.0-or-later
// sched/tune's policy pass over N pending jobs from 100 tenants (a tenth of
// them study jobs with a progress record, 1,000 running jobs), beside a plain
// sort of the same jobs by submit time in the same run. Aim: a pass under
// 10 ms at 10,000 jobs and under 100 ms at 100,000.
//   sched_bench [N...]   (default 10000 100000)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "priority/sched_tune_policy.hpp"

using namespace tune;
using Clock = std::chrono::steady_clock;

static double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoul(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {10000, 100000};
  std::printf("%-9s %12s %12s %8s   %s\n", "jobs", "pass ms", "sort ms", "ratio", "aim");
  for (const std::size_t n : sizes) {
    std::mt19937_64 rng(n);
    std::vector<JobView> jobs(n + 1000);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      JobView& j = jobs[i];
      const auto tenant = static_cast<std::uint32_t>(rng() % 100);
      j.id = static_cast<std::uint32_t>(i + 1);
      j.uid = 1000 + tenant;
      j.tenant = "account" + std::to_string(tenant);
      j.eligible = static_cast<double>(rng() % 100000);
      j.request = {static_cast<double>(1 + rng() % 16), static_cast<double>(1000 + rng() % 64000),
                   static_cast<double>(rng() % 3)};
      if (i >= n) j.state = JobView::State::Running, j.started = j.eligible;
      if (i % 10 == 0)
        j.comment = "notes tune:study=s" + std::to_string(i % 700) +
                    ";n=" + std::to_string(20 + rng() % 200) + ";dir=min;top=0.1,0.11,0.12,0.13,0.14,0.15";
    }
    PolicyConfig c;
    SchedTunePolicy policy(c);
    const Resources cluster{100000, 4e8, 8000};
    policy.pass(100000, cluster, jobs);  // warm: studies and tenants exist
    std::vector<double> pass_ms, sort_ms;
    for (int rep = 0; rep < 7; ++rep) {
      auto t0 = Clock::now();
      const auto d = policy.pass(100000 + 30.0 * (rep + 1), cluster, jobs);
      pass_ms.push_back(ms_since(t0));
      if (d.size() != jobs.size()) return 1;
      std::vector<JobView> copy(jobs.begin(), jobs.begin() + static_cast<long>(n));
      t0 = Clock::now();
      std::sort(copy.begin(), copy.end(),
                [](const JobView& a, const JobView& b) { return a.eligible < b.eligible; });
      sort_ms.push_back(ms_since(t0));
    }
    std::sort(pass_ms.begin(), pass_ms.end());
    std::sort(sort_ms.begin(), sort_ms.end());
    const double p = pass_ms[3], s = sort_ms[3];
    const double aim = n <= 10000 ? 10 : 100;
    std::printf("%-9zu %12.2f %12.2f %8.1f   < %.0f ms: %s\n", n, p, s, p / s, aim,
                p < aim ? "met" : "NOT met");
  }
  return 0;
}
