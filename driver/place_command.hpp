// SPDX-License-Identifier: GPL-2.0-or-later
// `tune place`: the gang placement policy without slurmctld. Reads a cluster
// description and a job list, places the jobs in order and prints where each
// goes and the GPU fragmentation before and after.
#pragma once

#include <string>

namespace tune {

int show_placement(const std::string& cluster_file, const std::string& jobs_file, const std::string& policy,
                   bool json);

}  // namespace tune
