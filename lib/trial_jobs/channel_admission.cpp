// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_jobs/channel_admission.hpp"

#include <algorithm>

namespace tune {

ChannelAdmission::Verdict ChannelAdmission::admit(Conn c, const std::string& address, double now) {
  Verdict v;
  Peer& p = peers_[address];
  if (p.open >= limits_.open_per_peer) {
    v.refused = std::to_string(p.open) + " connections from " + address + " are already open";
    if (p.open == 0) peers_.erase(address);
    return v;
  }
  if (p.waiting >= limits_.waiting_per_peer)
    v.evict = oldest_from(address);
  else if (strangers_.size() >= limits_.waiting)
    v.evict = next_to_evict();
  if (v.evict) closed(*v.evict);
  Peer& q = peers_[address];  // closed() may have erased it
  ++q.waiting;
  ++q.open;
  strangers_[c] = {address, now};
  open_[c] = address;
  return v;
}

void ChannelAdmission::vouched(Conn c) {
  const auto it = strangers_.find(c);
  if (it == strangers_.end()) return;
  --peers_.at(it->second.address).waiting;
  strangers_.erase(it);
}

void ChannelAdmission::closed(Conn c) {
  const auto it = open_.find(c);
  if (it == open_.end()) return;
  Peer& p = peers_.at(it->second);
  if (strangers_.erase(c)) --p.waiting;
  --p.open;
  if (p.open == 0) peers_.erase(it->second);  // the map holds live peers only
  open_.erase(it);
}

std::optional<ChannelAdmission::Conn> ChannelAdmission::oldest_from(const std::string& address) const {
  std::optional<Conn> oldest;
  double since = 0;
  for (const auto& [c, s] : strangers_)
    if (s.address == address && (!oldest || s.since < since)) oldest = c, since = s.since;
  return oldest;
}

std::optional<ChannelAdmission::Conn> ChannelAdmission::next_to_evict() const {
  std::size_t most = 0;
  for (const auto& [address, p] : peers_) most = std::max(most, p.waiting);
  // Among the addresses that hold the most, the oldest stranger: a host
  // with one connection is not let go before a flood's.
  std::optional<Conn> oldest;
  double since = 0;
  for (const auto& [c, s] : strangers_)
    if (peers_.at(s.address).waiting == most && (!oldest || s.since < since)) oldest = c, since = s.since;
  return oldest;
}

std::size_t ChannelAdmission::waiting_from(const std::string& address) const {
  const auto it = peers_.find(address);
  return it == peers_.end() ? 0 : it->second.waiting;
}

std::size_t ChannelAdmission::open_from(const std::string& address) const {
  const auto it = peers_.find(address);
  return it == peers_.end() ? 0 : it->second.open;
}

void RefusalLog::open_window(double now) {
  window_start_ = now;
  logged_ = 0;
  unlogged_ = 0;
}

void RefusalLog::flush(double now) {
  if (!window_start_ || now - *window_start_ < window_) return;
  if (unlogged_ > 0)
    log_("refused " + std::to_string(unlogged_) + " more connection" + (unlogged_ == 1 ? "" : "s") + " in " +
         std::to_string(static_cast<long>(window_)) + " s without a line each");
  window_start_.reset();
  logged_ = unlogged_ = 0;
}

void RefusalLog::refused(const std::string& line, double now) {
  flush(now);
  if (!window_start_) open_window(now);
  if (logged_ < burst_) {
    ++logged_;
    log_(line);
  } else {
    ++unlogged_;
  }
}

}  // namespace tune
