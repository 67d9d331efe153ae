// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/proposal_worker.hpp"

#include <chrono>
#include <utility>

namespace tune {

ProposalWorker::~ProposalWorker() {
  if (job_.valid()) job_.wait();
}

void ProposalWorker::start(std::uint64_t number, std::vector<Assignment> pending, int rank, std::string host,
                           std::size_t known) {
  rank_ = rank;
  host_ = std::move(host);
  known_ = known;
  job_ = std::async(std::launch::async,
                    [this, number, p = std::move(pending)] { return sampler_.propose(number, p); });
}

void ProposalWorker::observe(const Observation& o) {
  if (job_.valid())
    held_.push_back(o);
  else
    sampler_.observe(o);
}

void ProposalWorker::observe_progress(const Progress& p) {
  if (job_.valid())
    held_.push_back(p);
  else
    sampler_.observe_progress(p);
}

void ProposalWorker::wait_for(double seconds) const {
  if (job_.valid()) job_.wait_for(std::chrono::duration<double>(seconds));
}

std::optional<ProposalWorker::Done> ProposalWorker::take() {
  if (!job_.valid() || job_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    return std::nullopt;
  Done out{job_.get(), rank_, std::move(host_), known_};
  for (const auto& h : held_) {
    if (const auto* o = std::get_if<Observation>(&h))
      sampler_.observe(*o);
    else
      sampler_.observe_progress(std::get<Progress>(h));
  }
  held_.clear();
  rank_ = -1;
  return out;
}

}  // namespace tune
