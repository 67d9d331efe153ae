// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The one way our plugins' C++ bridges cross into slurmctld's C: run the
// body, and turn any exception into an error value and a message in the
// caller's buffer. slurmctld must never see an exception.
#include <cstddef>
#include <cstdio>
#include <exception>
#include <string>

namespace tune {

inline void write_error(char* err, std::size_t len, const std::string& what) {
  if (err && len) std::snprintf(err, len, "%s", what.c_str());
}

template <class R, class Body>
R c_boundary(char* err, std::size_t len, R on_error, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    write_error(err, len, e.what());
  } catch (...) {
    write_error(err, len, "unknown error");
  }
  return on_error;
}

}  // namespace tune
