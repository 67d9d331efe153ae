// SPDX-License-Identifier: GPL-2.0-or-later
// The few parts of libslurm's public API that differ between the Slurm
// series tune builds against (22.05, 24.11, 26.05; configure tests which one
// this libslurm has, see tune_config.h). Everything tune does through
// libslurm goes through these or through calls every series shares.
#pragma once

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "priority/queue_view.hpp"
#include "tune_config.h"

extern "C" {
// Exported by libslurm (slurm_xlator.h aliases), not declared in its public header.
char* slurm_job_state_string(std::uint32_t inx);
#if HAVE_SLURM_JOB_STATE_REASON_STRING
char* slurm_job_state_reason_string(enum job_state_reason inx);  // 24.11 and 26.05
#else
char* slurm_job_reason_string(enum job_state_reason inx);  // 22.05
#endif
}

namespace tune::slurm_compat {

// The message of the last failed libslurm call. libslurm sets errno (its
// slurm_get_errno(), gone in 24.11, only ever returned errno).
inline std::string last_error() {
  return slurm_strerror(errno);
}

// The controller's configuration as slurm_load_ctl_conf answers it, freed
// by slurm_free_ctl_conf or (26.05) slurm_free_conf.
inline void free_conf(slurm_conf_t* conf) {
#if HAVE_DECL_SLURM_FREE_CONF
  slurm_free_conf(conf);
#else
  slurm_free_ctl_conf(conf);
#endif
}

inline const char* state_string(std::uint32_t state) {
  return slurm_job_state_string(state);
}

inline const char* reason_string(std::uint32_t reason) {
#if HAVE_SLURM_JOB_STATE_REASON_STRING
  return slurm_job_state_reason_string(static_cast<job_state_reason>(reason));
#else
  return slurm_job_reason_string(static_cast<job_state_reason>(reason));
#endif
}

// The id of a job slurm_submit_batch_job started (26.05 answers with a step id).
template <class Response>
std::uint32_t submitted_job_id(const Response& r) {
  if constexpr (requires { r.step_id.job_id; })
    return r.step_id.job_id;
  else
    return r.job_id;
}

namespace detail {
template <class R, class A, class B, class C>
B second_parameter(R (*)(A, B, C));
}  // namespace detail

// One job's record. slurm_load_job takes the job id, or (26.05) a
// slurm_step_id_t naming the whole job.
// (Templates, so that only the branch this Slurm takes is compiled.)
template <class Info = job_info_msg_t>
int load_job(Info** info, std::uint32_t id, std::uint16_t show_flags) {
  using Declared = decltype(detail::second_parameter(&slurm_load_job));
  using Id = std::conditional_t<sizeof(Info) != 0, Declared, Declared>;  // dependent: one branch compiled
  if constexpr (std::is_integral_v<Id>) {
    return slurm_load_job(info, id, show_flags);
  } else {
    Id whole{};  // as SLURM_STEP_ID_INITIALIZER: no step, no component
    whole.job_id = id;
    whole.step_het_comp = NO_VAL;
    whole.step_id = NO_VAL;
    return slurm_load_job(info, whole, show_flags);
  }
}

// The job an update names (job_desc_msg_t.job_id; step_id.job_id in 26.05).
template <class Desc = job_desc_msg_t>
void set_job_id(Desc& desc, std::uint32_t id) {
  if constexpr (requires { desc.step_id.job_id; })
    desc.step_id.job_id = id;
  else
    desc.job_id = id;
}

// Signal a whole job (slurm_kill_job takes a slurm_step_id_t in 26.05;
// slurm_kill_job2, by the id as text, is the same in every series).
inline bool kill_job(std::uint32_t id, std::uint16_t signal) {
  return slurm_kill_job2(std::to_string(id).c_str(), signal, 0, nullptr) == SLURM_SUCCESS;
}

// A job's tres_per_node for N GPUs, as this Slurm's own sbatch writes it.
// Slurm 23.11 changed the form from gres:gpu:N to gres/gpu:N (SchedMD commit
// 53ec8d6697, "it should be TRESType/TRESName"), and from then on slurmctld
// reads only the new one; the public API offers nothing to ask, so this one
// follows the version of the libslurm tune is built against.
inline std::string gpus_per_node_tres(int gpus) {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
  return "gres/gpu:" + std::to_string(gpus);
#else
  return "gres:gpu:" + std::to_string(gpus);
#endif
}

// One pending job's priority factors (lib/priority/queue_view's struct).
using PriorityFactors = tune::PriorityFactors;

namespace detail {
template <class Object>
PriorityFactors factors_of(const Object& o) {
  PriorityFactors f;
  if constexpr (requires { o.step_id.job_id; })
    f.job_id = o.step_id.job_id;  // 26.05
  else
    f.job_id = o.job_id;
  if (o.partition) f.partition = o.partition;
  auto fill = [&f](const auto& p) {
    f.age = p.priority_age, f.fairshare = p.priority_fs, f.job_size = p.priority_js;
    f.partition_factor = p.priority_part, f.qos = p.priority_qos, f.assoc = p.priority_assoc;
    for (std::uint32_t i = 0; p.priority_tres && i < p.tres_cnt; ++i) f.tres += p.priority_tres[i];
    f.site = static_cast<std::int64_t>(p.priority_site) - static_cast<std::int64_t>(NICE_OFFSET);
    f.nice = static_cast<std::int64_t>(p.nice) - static_cast<std::int64_t>(NICE_OFFSET);
  };
  if constexpr (requires { o.prio_factors; }) {  // 24.11 and 26.05: NULL when set by hand
    if (o.prio_factors)
      fill(*o.prio_factors);
    else
      f.direct = true;
  } else {  // 22.05: the factors in the object
    fill(o);
    f.direct = o.direct_prio > 0;
  }
  return f;
}
}  // namespace detail

// The priority factors of every pending job (what sprio shows), one entry
// per job and partition; false when slurmctld cannot answer (priority/basic
// answers with none). 22.05 takes filters, later series none.
template <class Response = priority_factors_response_msg_t>
bool load_priority_factors(std::vector<PriorityFactors>& out) {
  Response* resp = nullptr;
  int rc;
  if constexpr (requires(Response * *r) { slurm_load_job_prio(r, std::uint16_t{0}); })
    rc = slurm_load_job_prio(&resp, 0);
  else
    rc = slurm_load_job_prio(&resp, nullptr, nullptr, nullptr, 0);
  if (rc != SLURM_SUCCESS) return false;
  if (resp && resp->priority_factors_list) {
    auto* it = slurm_list_iterator_create(resp->priority_factors_list);
    while (const auto* o = static_cast<const priority_factors_object_t*>(slurm_list_next(it)))
      out.push_back(detail::factors_of(*o));
    slurm_list_iterator_destroy(it);
  }
  slurm_free_priority_factors_response_msg(resp);
  return true;
}

}  // namespace tune::slurm_compat
