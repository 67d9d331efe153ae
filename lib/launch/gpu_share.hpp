// SPDX-License-Identifier: GPL-2.0-or-later
// Which of a node's GPUs a runner gives its trials: the runner with index k
// among the runners on its node (in rank order) takes GPUs
// [k * per_trial, (k + 1) * per_trial) of the list Slurm bound to the node.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tune {

// Empty for per_trial <= 0; nothing if the node has too few GPUs.
std::optional<std::vector<std::string>> gpu_share(const std::vector<std::string>& node_gpus, int local_index,
                                                  int per_trial);

}  // namespace tune
