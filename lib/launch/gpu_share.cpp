// SPDX-License-Identifier: GPL-2.0-or-later
#include "launch/gpu_share.hpp"

namespace tune {

std::optional<std::vector<std::string>> gpu_share(const std::vector<std::string>& node_gpus, int local_index,
                                                  int per_trial) {
  if (per_trial <= 0) return std::vector<std::string>{};
  if (local_index < 0) return std::nullopt;
  const std::size_t from = static_cast<std::size_t>(local_index) * static_cast<std::size_t>(per_trial);
  if (from + static_cast<std::size_t>(per_trial) > node_gpus.size()) return std::nullopt;
  return std::vector<std::string>(node_gpus.begin() + static_cast<std::ptrdiff_t>(from),
                                  node_gpus.begin() + static_cast<std::ptrdiff_t>(from + per_trial));
}

}  // namespace tune
