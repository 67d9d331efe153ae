// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/strf.hpp"

#include <cstdarg>
#include <cstdio>

namespace tune {

std::string strf(const char* format, ...) {
  va_list a, b;
  va_start(a, format);
  va_copy(b, a);
  const int n = std::vsnprintf(nullptr, 0, format, a);
  va_end(a);
  std::string out(static_cast<std::size_t>(n > 0 ? n : 0) + 1, '\0');
  std::vsnprintf(out.data(), out.size(), format, b);
  va_end(b);
  out.pop_back();
  return out;
}

}  // namespace tune
