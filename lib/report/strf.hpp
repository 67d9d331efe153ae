// SPDX-License-Identifier: GPL-2.0-or-later
// printf into a string: the views that print tables (tune status, tune
// queue, tune simulate) build their text with it, so that tests read it.
#pragma once

#include <string>

namespace tune {

std::string strf(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace tune
