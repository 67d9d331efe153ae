// SPDX-License-Identifier: GPL-2.0-or-later
// One parameter's value in one trial, apart from the space that defines it,
// so that what only carries values (a trial, an observation) does not
// compile against the whole search space.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

namespace tune {

// The value of one parameter in one trial; std::monostate when the
// parameter is inactive in that trial (a condition of its "when" fails).
using ParamValue = std::variant<std::monostate, double, std::int64_t, std::string>;

inline bool is_absent(const ParamValue& v) {
  return std::holds_alternative<std::monostate>(v);
}

}  // namespace tune
