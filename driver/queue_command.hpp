// SPDX-License-Identifier: GPL-2.0-or-later
// `tune queue`: pending and running jobs with what sched/tune decided about
// them (tenant, dominant share, fair-share factor, study, yield level,
// priority), or under priority/multifactor its factors as sprio shows them
// beside the study's yield level and site_factor/tune's SITE term: the
// answer to "why is my job waiting?".
#pragma once

#include <string>

namespace tune {

int show_queue(const std::string& user, bool json);

}  // namespace tune
