// SPDX-License-Identifier: GPL-2.0-or-later
// The writer claim's view of Slurm (lib/history/writer_claim.hpp): this
// process's job, and whether the job named in another host's owner record
// has ended, as slurmctld says.
#pragma once

#include "history/writer_claim.hpp"

namespace tune {

WriterClaim::Options writer_claim_options();

}  // namespace tune
