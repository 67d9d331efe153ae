// SPDX-License-Identifier: GPL-2.0-or-later
// The C face of lib/priority's PriorityPolicy for the plugins' shim: the
// policy named by the plugin that hosts it (priority_policies(): sched/tune's
// SchedTunePolicy, site_factor/tune's SiteFactorPolicy).
#include "tune_policy.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>

#include "../c_boundary.hpp"
#include "placement/gpu_request.hpp"
#include "priority/job_facts.hpp"
#include "priority/priority_policy.hpp"
#include "priority/sched_tune_policy.hpp"

struct tune_policy {
  tune_policy(const tune::PriorityPolicyEntry& s, tune::PolicyConfig c)
      : spec(s), policy(s.make(std::move(c))) {}
  const tune::PriorityPolicyEntry& spec;
  std::unique_ptr<tune::PriorityPolicy> policy;
  std::vector<tune::JobView> jobs;  // reused between passes
  // Taken by every call, last: slurmctld threads ask tune_policy_site_for
  // while the agent passes or re-reads the file.
  mutable std::mutex lock;
};

static_assert(TUNE_BAND_LOW == tune::kSlurmBandLow, "tune_policy.h and lib/priority disagree on the band");

using tune::c_boundary;

extern "C" {

tune_policy_t* tune_policy_load(const char* conf_path, const char* policy, char* err, size_t errlen) {
  return c_boundary<tune_policy_t*>(err, errlen, nullptr, [&] {
    const tune::PriorityPolicyEntry& spec = tune::priority_policy(policy);
    return new tune_policy(spec, tune::load_policy_config(conf_path, spec.rules));
  });
}

int tune_policy_files(const char* policy, const char** conf_name, const char** state_name) {
  return c_boundary(nullptr, 0, -1, [&] {
    const tune::PriorityPolicyEntry& spec = tune::priority_policy(policy);
    *conf_name = spec.conf_file.c_str();  // the registry lives as long as the plugin
    *state_name = spec.state_file.c_str();
    return 0;
  });
}

int tune_policy_reconfigure(tune_policy_t* p, const char* conf_path, char* err, size_t errlen) {
  return c_boundary(err, errlen, -1, [&] {
    auto c = tune::load_policy_config(conf_path, p->spec.rules);
    std::lock_guard g(p->lock);
    p->policy->reconfigure(std::move(c));
    return 0;
  });
}

void tune_policy_free(tune_policy_t* p) {
  delete p;
}

const char* tune_policy_state_holds(const tune_policy_t* p) {
  return p->spec.state_holds.c_str();
}

double tune_policy_interval(const tune_policy_t* p) {
  std::lock_guard g(p->lock);
  return p->policy->config().interval;
}

const char* tune_policy_state_file(const tune_policy_t* p) {
  std::lock_guard g(p->lock);
  return p->policy->config().state_file.c_str();
}

int tune_policy_restore(tune_policy_t* p, const char* path, char* err, size_t errlen) {
  return c_boundary(err, errlen, -1, [&] {
    std::ifstream in(path);
    if (!in) {
      if (errno == ENOENT) return 1;
      throw std::runtime_error(std::string(path) + ": " + std::strerror(errno));
    }
    std::stringstream text;
    text << in.rdbuf();
    try {
      const auto state = nlohmann::json::parse(text.str());
      std::lock_guard g(p->lock);
      p->policy->restore(state);
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string(path) + ": " + e.what());
    }
    return 0;
  });
}

int tune_policy_save(const tune_policy_t* p, const char* path, char* err, size_t errlen) {
  return c_boundary(err, errlen, -1, [&] {
    std::string text;
    {
      std::lock_guard g(p->lock);
      text = p->policy->save().dump() + "\n";
    }
    const std::string tmp = std::string(path) + ".new";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) throw std::runtime_error(tmp + ": " + std::strerror(errno));
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int e = errno;
        ::close(fd);
        throw std::runtime_error(tmp + ": " + std::strerror(e));
      }
      done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) throw std::runtime_error(tmp + ": " + std::strerror(errno));
    if (::rename(tmp.c_str(), path) != 0)
      throw std::runtime_error(std::string(path) + ": " + std::strerror(errno));
    return 0;
  });
}

int tune_policy_pass(tune_policy_t* p, double now, double cap_cpus, double cap_mem_mb, double cap_gpus,
                     const tune_job_t* jobs, size_t n, tune_decision_t* out, char* err, size_t errlen) {
  return c_boundary(err, errlen, -1, [&] {
    std::lock_guard g(p->lock);
    auto& v = p->jobs;
    v.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const tune_job_t& j = jobs[i];
      tune::JobFacts f;
      f.id = j.job_id, f.uid = j.user_id;
      f.account = j.account ? j.account : "", f.user_name = j.user_name ? j.user_name : "";
      f.comment = j.comment ? j.comment : "", f.reason = j.reason ? j.reason : "";
      f.running = j.running != 0, f.held = j.held != 0, f.admin_set = j.admin_set != 0;
      f.eligible = j.eligible, f.started = j.started;
      f.request = {j.cpus, j.mem_mb, j.gpus};
      f.base_priority = j.base_priority;
      f.fairshare = j.fairshare;
      f.accounts_validated = j.accounts_validated != 0;
      v[i] = tune::job_view(f, p->policy->config().fairshare.tenant);
    }
    const auto decisions = p->policy->pass(now, {cap_cpus, cap_mem_mb, cap_gpus}, v);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& d = decisions[i];
      out[i] = tune_decision_t{};
      out[i].set_priority = d.priority.has_value();
      out[i].priority = d.priority ? tune::slurm_priority(*d.priority, p->policy->max_points()) : 0;
      out[i].set_site = d.site.has_value();
      out[i].site = d.site.value_or(0);
      out[i].signal = d.signal;
      std::snprintf(out[i].summary, sizeof out[i].summary, "%s", d.summary.c_str());
    }
    return 0;
  });
}

int tune_may_set_priority(int pending, int held, int admin_set) {
  return tune::may_set_priority(pending != 0, held != 0, admin_set != 0);
}

int tune_policy_change(tune_policy_t* p, size_t i, char* buf, size_t len) {
  return c_boundary(nullptr, 0, 0, [&] {
    std::lock_guard g(p->lock);
    const auto& changes = p->policy->changes();
    if (i >= changes.size() || len == 0) return 0;
    const auto& c = changes[i];
    const char* by = c.judged        ? p->policy->config().adaptive.rule().label()
                     : c.to < c.from ? "relaxed, nobody else waits"
                                     : "others wait again";
    if (c.chance >= 0)
      std::snprintf(buf, len, "study %s: yield level %d -> %d at %lld results, %s %.3g", c.study.c_str(),
                    c.from, c.to, static_cast<long long>(c.results), by, c.chance);
    else
      std::snprintf(buf, len, "study %s: yield level %d -> %d at %lld results, %s", c.study.c_str(), c.from,
                    c.to, static_cast<long long>(c.results), by);
    return 1;
  });
}

size_t tune_merge_summary(const char* system_comment, const char* summary, char* buf, size_t len) {
  char err[8];
  return c_boundary<size_t>(err, sizeof err, 0, [&]() -> size_t {
    const auto merged = tune::merge_summary(system_comment ? system_comment : "", summary ? summary : "");
    if (!merged) return 0;
    if (merged->size() < len) std::memcpy(buf, merged->c_str(), merged->size() + 1);
    return merged->size();
  });
}

double tune_gpu_count(int per_job, int per_node, int per_task, int per_socket, int nodes, int tasks) {
  return tune::gpu_count({per_job, per_node, per_task, per_socket}, nodes, tasks);
}

int tune_policy_site_for(tune_policy_t* p, uint32_t job_id, uint32_t user_id, const char* comment,
                         int64_t* site) {
  return c_boundary(nullptr, 0, 0, [&] {
    std::lock_guard g(p->lock);
    const auto v = p->policy->site_for(job_id, user_id, comment ? comment : "");
    if (!v) return 0;
    *site = *v;
    return 1;
  });
}

}  // extern "C"
