// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What a frame of the trial-jobs channel may hold, checked before anything
// reads it: one JSON object with a string "type", nested at most kMaxDepth
// deep, whose fields are read only through field(), which checks the type
// and the range of each (a job number past 2^32 is refused, not wrapped).
// Nothing here throws anything but FieldError, and parse_frame nothing.
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace tune {

inline constexpr std::size_t kMaxFrameDepth = 16;

// The frame's JSON object, or nothing with `why` said.
std::optional<nlohmann::json> parse_frame(std::string_view text, std::string& why);

struct FieldError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

namespace detail {
template <class T>
T checked_number(const nlohmann::json& v, const char* key) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) throw FieldError(std::string("\"") + key + "\" is not true or false");
    return v.get<bool>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number()) throw FieldError(std::string("\"") + key + "\" is not a number");
    return v.get<T>();
  } else {
    static_assert(std::is_integral_v<T>);
    const auto bad = [&] {
      return FieldError(std::string("\"") + key + "\" is not a whole number from " +
                        std::to_string(std::numeric_limits<T>::min()) + " to " +
                        std::to_string(std::numeric_limits<T>::max()));
    };
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) throw bad();
      return static_cast<T>(u);
    }
    if (v.is_number_integer()) {
      const auto i = v.get<std::int64_t>();
      if constexpr (std::is_unsigned_v<T>) {
        if (i < 0) throw bad();
        if (static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
          throw bad();
      } else {
        if (i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
            i > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
          throw bad();
      }
      return static_cast<T>(i);
    }
    throw bad();
  }
}
}  // namespace detail

// The field `key` of the object `j` as a T (a number type, bool or
// std::string); FieldError naming it when it is absent or of another type or range.
template <class T>
T field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) throw FieldError(std::string("not an object where \"") + key + "\" was expected");
  const auto it = j.find(key);
  if (it == j.end()) throw FieldError(std::string("no \"") + key + "\"");
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) throw FieldError(std::string("\"") + key + "\" is not a string");
    return it->template get<std::string>();
  } else {
    return detail::checked_number<T>(*it, key);
  }
}
// The same, or `fallback` when the field is absent or null.
template <class T>
T field_or(const nlohmann::json& j, const char* key, T fallback) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return field<T>(j, key);
}

}  // namespace tune
