// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/ordering.hpp"

#include "simulation/fifo_ordering.hpp"
#include "simulation/multifactor_ordering.hpp"
#include "simulation/sched_tune_ordering.hpp"

namespace tune::sim {
namespace {

template <class O>
std::unique_ptr<Ordering> make(const OrderingSpec& spec, const OrderingSetup& setup) {
  return std::make_unique<O>(spec, setup);
}

constexpr PriorityType kBasic = PriorityType::Basic;
constexpr PriorityType kMultifactor = PriorityType::Multifactor;

}  // namespace

const char* priority_type_name(PriorityType t) {
  return t == PriorityType::Multifactor ? "priority/multifactor" : "priority/basic";
}

const char* tune_plugin_for(PriorityType t) {
  return t == PriorityType::Multifactor ? "site_factor/tune" : "sched/tune";
}

const Registry<OrderingSpec>& ordering_policies() {
  using L = Lowering;
  static const Registry<OrderingSpec> registry(
      "priority policy",
      {
          {"fifo", {}, "priority/basic: submission order", kBasic, L::None, "", make<FifoOrdering>},
          {"multifactor",
           {"fairshare"},
           "priority/multifactor: age + fair share (Fair Tree, or classic 2^(-U/S) with NO_FAIR_TREE)",
           kMultifactor,
           L::None,
           "",
           make<MultifactorOrdering>},
          {"tune",
           {},
           "sched/tune: DRF fair share and the adaptive priority",
           kBasic,
           L::Tune,
           "sched/tune",
           make<SchedTuneOrdering>},
          {"multifactor+tune",
           {},
           "priority/multifactor with site_factor/tune's SITE term",
           kMultifactor,
           L::Tune,
           "site_factor/tune",
           make<MultifactorOrdering>},
          {"drf",
           {"tune-fairshare"},
           "sched/tune with its adaptive priority off: DRF fair share alone, the yield's baseline",
           kBasic,
           L::None,
           "sched/tune",
           make<SchedTuneOrdering>},
          {"oracle",
           {},
           "fifo, a study that never meets its target lowered from its first job",
           kBasic,
           L::Oracle,
           "",
           make<FifoOrdering>,
           OracleSight::Fate},
          {"multifactor+oracle",
           {},
           "multifactor, such a study's jobs at priority 1 from its first",
           kMultifactor,
           L::Oracle,
           "",
           make<MultifactorOrdering>,
           OracleSight::Fate},
          {"drf+oracle",
           {},
           "drf, such a study's jobs below every other from its first",
           kBasic,
           L::Oracle,
           "sched/tune",
           make<SchedTuneOrdering>,
           OracleSight::Fate},
          {"final-best-oracle",
           {},
           "fifo, such a study lowered once its results hold its final best (its last improvement)",
           kBasic,
           L::Oracle,
           "",
           make<FifoOrdering>,
           OracleSight::FinalBest},
          {"multifactor+final-best-oracle",
           {},
           "multifactor, the same at priority 1",
           kMultifactor,
           L::Oracle,
           "",
           make<MultifactorOrdering>,
           OracleSight::FinalBest},
          {"drf+final-best-oracle",
           {},
           "drf, the same below every other",
           kBasic,
           L::Oracle,
           "sched/tune",
           make<SchedTuneOrdering>,
           OracleSight::FinalBest},
          {"multifactor+late-oracle",
           {},
           "multifactor, such a study at priority 1 from 5 results after its last improvement",
           kMultifactor,
           L::Oracle,
           "",
           make<MultifactorOrdering>,
           OracleSight::FinalBestLate},
          {"drf+late-oracle",
           {},
           "drf, the same below every other",
           kBasic,
           L::Oracle,
           "sched/tune",
           make<SchedTuneOrdering>,
           OracleSight::FinalBestLate},
          {"evidence-oracle",
           {},
           "fifo, such a study lowered once its results hold its final best twice",
           kBasic,
           L::Oracle,
           "",
           make<FifoOrdering>,
           OracleSight::Results},
          {"multifactor+evidence-oracle",
           {},
           "multifactor, the same at priority 1",
           kMultifactor,
           L::Oracle,
           "",
           make<MultifactorOrdering>,
           OracleSight::Results},
          {"reports-oracle",
           {},
           "fifo, such a study lowered once the trials it started hold its final best twice",
           kBasic,
           L::Oracle,
           "",
           make<FifoOrdering>,
           OracleSight::Reports},
          {"multifactor+reports-oracle",
           {},
           "multifactor, the same at priority 1",
           kMultifactor,
           L::Oracle,
           "",
           make<MultifactorOrdering>,
           OracleSight::Reports},
      });
  return registry;
}

const OrderingSpec& ordering_policy(std::string_view name) {
  return ordering_policies().at(name);
}

Ordering::Ordering(const OrderingSpec& spec, const OrderingSetup& setup)
    : spec_(spec), capacity_(setup.capacity) {}

bool Ordering::oracle_lowers(OrderingHost& host, int j) const {
  if (spec_.lowering != Lowering::Oracle) return false;
  const int s = host.job(j).study;
  return s >= 0 && host.plateau_shows(s, spec_.sight);
}

void Ordering::plugin_pass(PriorityPolicy& plugin, OrderingHost& host, const std::vector<int>& jobs,
                           std::vector<double>& prio, std::vector<std::int64_t>* site) const {
  for (const auto& d : plugin.pass(host.now(), capacity_, host.views_of(jobs))) {
    const int j = static_cast<int>(d.id - 1);
    if (d.priority) prio[j] = *d.priority;
    if (d.site && site) (*site)[j] = *d.site;
    if (d.signal) host.yield(j);
  }
  host.record_levels(plugin.studies(), plugin.changes());
}

}  // namespace tune::sim
