// SPDX-License-Identifier: GPL-2.0-or-later
// One base for the rules that turn a study's progress records into its
// yield level (adaptive.estimator in sched_tune.conf): each rule a class of
// its own file (algorithm1.hpp, tail_estimator.hpp, stagnation_estimator.hpp),
// registered by name in estimators() (estimators.hpp). A rule owns its
// settings (read from the adaptive group and listed in sched_tune.conf(5)
// from settings()) and what it keeps of each study (its Memory, saved and
// restored by the rule itself), so adding one is its file and one registry
// line.
#pragma once

#include <algorithm>
#include <any>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "estimators/progress_record.hpp"

namespace tune {

struct AdaptiveOptions;

// A study's yield level, the records it has seen, and what its rule keeps
// of it (`memory`: the rule's own type; a study that another rule judged
// before starts that afresh).
struct YieldState {
  int level = 0;
  std::int64_t last_n = -1;    // results in the last record seen
  std::int64_t judged_n = -1;  // results in the last record judged (-1: none yet)
  std::any memory;
};

// What judging a record found: whether it was judged, and the chance of
// improvement it estimated (-1: a rule that estimates none).
struct Judgement {
  bool judged = false;
  double chance = -1;
};

// One number a rule reads from the adaptive group: its path there ("k",
// "tail.horizon"), its value (the default, on a rule just made), its range
// and a line for the manual.
struct EstimatorSetting {
  std::string path;
  double value = 0;
  double lo = 0, hi = 0;
  bool whole = false;
  std::string doc;
};

class YieldEstimator {
 public:
  virtual ~YieldEstimator() = default;
  // How slurmctld's log names a change this rule judged ("Algorithm 1").
  virtual const char* label() const = 0;

  // Its settings, and one set by its index in settings(): the reader has
  // checked the value against the range.
  virtual std::vector<EstimatorSetting> settings() const = 0;
  virtual void set(std::size_t index, double value) = 0;

  // A record with more results than any before it (s.last_n already moved
  // to it): judges it when the rule's time has come, setting s.level.
  virtual Judgement judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const = 0;
  // Relaxation while nobody else waits: `quiet` seconds since another
  // tenant last waited, `steady` since the level last changed. Returns true
  // when it stepped the level down itself (the tracker then restarts
  // `steady`).
  virtual bool relax(YieldState& s, double quiet, double steady, const AdaptiveOptions& o) const = 0;
  // Whether a level that changed in an update that judged a record is the
  // judgement's (false: relaxation took it elsewhere in the same update).
  virtual bool judgement_stands(const YieldState& /*s*/) const { return true; }

  // Its memory of a study, written into the study's saved object; and read
  // back from one (s's level, last_n and judged_n already restored), brought
  // within what the options allow. A key it does not find (state another
  // rule saved, or an older plugin) takes its fresh value; a key of the
  // wrong type throws std::runtime_error.
  virtual void save(const YieldState& s, nlohmann::json& into) const = 0;
  virtual void restore(const nlohmann::json& from, const AdaptiveOptions& o, YieldState& s) const = 0;
};

// The usual shape of a rule: `Options` a struct of its settings, listed once
// in a table of fields; `Memory` a struct of what it keeps per study, which
// saves and restores itself:
//   void save(nlohmann::json& into) const;
//   void restore(const nlohmann::json& from, const AdaptiveOptions& o, const YieldState& s);
template <class Options, class Memory>
class EstimatorOf : public YieldEstimator {
 public:
  struct Field {
    const char* path;
    std::variant<int Options::*, double Options::*> member;
    double lo, hi;
    const char* doc;
  };

  explicit EstimatorOf(std::vector<Field> fields) : fields_(std::move(fields)) {}

  std::vector<EstimatorSetting> settings() const override {
    std::vector<EstimatorSetting> out;
    for (const auto& f : fields_) {
      const bool whole = std::holds_alternative<int Options::*>(f.member);
      const double v = whole ? options_.*std::get<int Options::*>(f.member)
                             : options_.*std::get<double Options::*>(f.member);
      out.push_back({f.path, v, f.lo, f.hi, whole, f.doc});
    }
    return out;
  }
  void set(std::size_t index, double value) override {
    const auto& f = fields_.at(index);
    if (std::holds_alternative<int Options::*>(f.member))
      options_.*std::get<int Options::*>(f.member) = static_cast<int>(value);
    else
      options_.*std::get<double Options::*>(f.member) = value;
  }
  const Options& options() const { return options_; }

  void save(const YieldState& s, nlohmann::json& into) const override { memory(s).save(into); }
  void restore(const nlohmann::json& from, const AdaptiveOptions& o, YieldState& s) const override {
    memory(s).restore(from, o, s);
  }

 protected:
  static Memory& memory(YieldState& s) {
    if (auto* m = std::any_cast<Memory>(&s.memory)) return *m;
    return s.memory.emplace<Memory>();
  }
  static const Memory& memory(const YieldState& s) {
    static const Memory fresh{};
    const auto* m = std::any_cast<Memory>(&s.memory);
    return m ? *m : fresh;
  }

 private:
  Options options_;
  std::vector<Field> fields_;
};

// Reading a saved study: the value under `key`, or `fresh` when absent.
template <class T>
T saved_or(const nlohmann::json& from, const char* key, T fresh) {
  if (!from.contains(key)) return fresh;
  const auto& v = from.at(key);
  if (!v.is_number() || (std::is_floating_point_v<T> && !std::isfinite(v.get<double>())))
    throw std::runtime_error(std::string("bad ") + key);
  return v.get<T>();
}

// A rule that keeps an estimate (tail, stagnation; Memory::estimate, the
// level its last judgement gave) relaxes from it: the estimate less one
// level per relax_time nobody else waited, and the estimate again as soon
// as someone does.
int relaxed_estimate(int estimate, double quiet, const AdaptiveOptions& o);

template <class Options, class Memory>
class EstimateOf : public EstimatorOf<Options, Memory> {
 public:
  using EstimatorOf<Options, Memory>::EstimatorOf;
  bool relax(YieldState& s, double quiet, double /*steady*/, const AdaptiveOptions& o) const override {
    s.level = relaxed_estimate(this->memory(s).estimate, quiet, o);
    return false;
  }
  bool judgement_stands(const YieldState& s) const override { return s.level == this->memory(s).estimate; }
};

}  // namespace tune
