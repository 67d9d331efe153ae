// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_jobs/channel_admission.hpp"

namespace tune {

std::optional<std::string> ChannelAdmission::admit(const std::string& address) {
  if (waiting_ >= limits_.waiting)
    return std::to_string(waiting_) + " connections are already waiting to say hello";
  Peer& p = peers_[address];
  if (p.waiting >= limits_.waiting_per_peer)
    return std::to_string(p.waiting) + " connections from " + address + " are already waiting to say hello";
  if (p.open >= limits_.open_per_peer)
    return std::to_string(p.open) + " connections from " + address + " are already open";
  ++p.waiting;
  ++p.open;
  ++waiting_;
  return std::nullopt;
}

void ChannelAdmission::authenticated(const std::string& address) {
  const auto it = peers_.find(address);
  if (it == peers_.end() || it->second.waiting == 0) return;
  --it->second.waiting;
  --waiting_;
}

void ChannelAdmission::closed(const std::string& address, bool authenticated) {
  const auto it = peers_.find(address);
  if (it == peers_.end()) return;
  Peer& p = it->second;
  if (!authenticated && p.waiting > 0) {
    --p.waiting;
    --waiting_;
  }
  if (p.open > 0) --p.open;
  if (p.open == 0) peers_.erase(it);  // the map holds live peers only
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
