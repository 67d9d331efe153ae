// SPDX-License-Identifier: GPL-2.0-or-later
// Population-based training (--algo pbt; Jaderberg et al., 2017), asynchronous
// as Ray Tune's and Syne Tune's: a population of --population members, each
// trained in segments of --pbt-interval steps. A segment is one trial: it
// starts from the checkpoint its member's last segment left (Lineage::from,
// copied into its TUNE_CHECKPOINT_DIR) and trains to the step limit
// (TUNE_STEP_LIMIT), where the study ends it if the program does not stop
// by itself. When a member's segment has finished, its next segment is
// decided against the newest finished segments of the members that have
// trained as far, ranked by the value their lineage reported at the step it
// reached (the pruning metric, else the objective):
//   exploit  a member in the worst --pbt-quantile copies the checkpoint of a
//            member drawn from the best quantile ...
//   explore  ... and that member's parameters, each resampled with
//            probability --pbt-resample, else moved: a number by a factor of
//            0.8 or 1.2 (a shift of a fifth of a step of the unit scale where
//            the range reaches zero), listed numbers to a neighbour;
//   else     it continues its own checkpoint with its own parameters.
// A segment that failed ranks as the worst. A member whose segment ended by
// itself, with its objective, having reported steps short of its step limit
// (the program trained its last epoch) is done. Each trial's member and step limit are kept in the history,
// so a resumed or requeued study has the same population; a trial's lineage (which checkpoint, which
// parameters when) is its `from` chain.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "search/sampler.hpp"
#include "space/search_space.hpp"

namespace tune {

class PbtSampler final : public Sampler {
 public:
  struct Options {
    std::uint32_t population = 8;
    std::int64_t interval = 4;
    double quantile = 0.25;
    double resample = 0.25;
  };
  PbtSampler(const SearchSpace& space, std::uint64_t seed, bool minimize, Options o);
  std::string_view name() const override { return "pbt"; }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment> pending) override;
  Lineage lineage(std::uint64_t trial) override;
  void proposed(std::uint64_t id, const Assignment& params, const Lineage& lineage) override;
  void observe(const Observation& done) override;
  void observe_progress(const Progress& report) override;
  bool needs_checkpoint(std::uint64_t trial) const override;
  bool waiting() const override;
  std::string note() const override { return note_; }

  // What the tests look at: how many members have started, and which are done.
  std::uint32_t started() const { return static_cast<std::uint32_t>(latest_.size()); }
  bool done(std::uint32_t member) const;

 private:
  struct Segment {
    std::uint32_t member = 0;
    Assignment params;
    std::optional<std::uint64_t> from;
    std::int64_t step_limit = 0;
    std::map<std::int64_t, double> values;  // step -> the last value reported there
    bool finished = false;
    std::optional<double> score;  // oriented (smaller is better); nothing: failed
    bool ended_training = false;  // ended by itself before its step limit
    std::uint64_t finished_order = 0;
  };
  // The member's newest segment and its newest finished one.
  const Segment* newest(std::uint32_t member) const;
  std::optional<std::uint64_t> newest_finished(std::uint32_t member) const;
  std::int64_t last_step(std::uint64_t id) const;
  // The oriented value trial `id`'s checkpoint had at `step`: its report
  // there, or that of the trial it started from, and so on back.
  std::optional<double> value_at(std::uint64_t id, std::int64_t step) const;
  // The member's parameters moved for `trial` (explore).
  Assignment explore(const Assignment& from, std::uint64_t trial) const;

  const SearchSpace& space_;
  std::uint64_t seed_;
  bool minimize_;
  Options o_;
  std::map<std::uint64_t, Segment> segments_;  // by trial id
  std::vector<std::uint64_t> latest_;          // per member: its newest trial
  std::uint64_t finished_count_ = 0;
  std::map<std::uint64_t, Lineage> decided_;  // by proposal number, until lineage() takes it
  std::string note_;
};

}  // namespace tune
