// SPDX-License-Identifier: GPL-2.0-or-later
// A tune submit of the digits example, as the tests of the job script and of
// submit's notes start from.
#pragma once

#include "command/job_script.hpp"

namespace tune::testing_support {

inline SubmitOptions digits() {
  SubmitOptions o;
  o.name = "digits";
  o.space_file = "/w/space.json";
  o.history = "/w/digits.h5";
  o.workdir = "/w";
  o.trials = 40;
  o.parallel = 3;
  o.command = {"/w/train.py", "--lr", "{lr}"};
  return o;
}

}  // namespace tune::testing_support
