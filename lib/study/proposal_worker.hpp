// SPDX-License-Identifier: GPL-2.0-or-later
// A sampler's costly proposal made on a worker thread, so that a loop
// serving several runners or trial jobs never waits for it. Results that
// arrive meanwhile are held from the sampler (the worker is inside it) and
// given to it once its proposal is taken, in the order they came.
#pragma once

#include <cstdint>
#include <future>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "search/sampler.hpp"

namespace tune {

class ProposalWorker {
 public:
  explicit ProposalWorker(Sampler& sampler) : sampler_(sampler) {}
  // The proposal refers to the sampler, which outlives the worker: waits for it.
  ~ProposalWorker();
  ProposalWorker(const ProposalWorker&) = delete;
  ProposalWorker& operator=(const ProposalWorker&) = delete;

  bool busy() const { return job_.valid(); }
  // Starts proposal `number` (the sampler's numbering) for `rank` on `host`,
  // `known` results having been given to the samplers.
  void start(std::uint64_t number, std::vector<Assignment> pending, int rank, std::string host,
             std::size_t known);
  // A result for the sampler: at once, or held while it proposes.
  void observe(const Observation& o);
  // An intermediate report for the sampler: the same.
  void observe_progress(const Progress& p);
  // Waits at most `seconds` for the proposal (a loop's idle wait).
  void wait_for(double seconds) const;

  struct Done {
    std::optional<Assignment> params;  // nothing: the sampler has no more
    int rank;
    std::string host;
    std::size_t known;
  };
  // The finished proposal, the held results given to the sampler; nothing
  // while it works. Never blocks; rethrows what the sampler threw.
  std::optional<Done> take();

 private:
  Sampler& sampler_;
  std::future<std::optional<Assignment>> job_;
  int rank_ = -1;
  std::string host_;
  std::size_t known_ = 0;
  std::vector<std::variant<Observation, Progress>> held_;  // in the order they came
};

}  // namespace tune
