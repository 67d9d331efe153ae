// SPDX-License-Identifier: GPL-2.0-or-later
#include "command/text_input.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace tune {
namespace {

bool whole(std::string_view s, long& out) {
  if (s.empty() || s.size() > 9) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out >= 0;
}

}  // namespace

std::optional<double> read_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text.find(':') == std::string_view::npos && text.find('-') == std::string_view::npos) {
    double unit = 60;  // a bare number is minutes, as Slurm reads it
    std::string_view num = text;
    static constexpr std::pair<char, double> kUnits[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
    for (const auto& [suffix, seconds] : kUnits)
      if (text.back() == suffix) {
        unit = seconds;
        num.remove_suffix(1);
        break;
      }
    double v = 0;
    auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (num.empty() || ec != std::errc() || end != num.data() + num.size() || !(v >= 0) || !std::isfinite(v))
      return std::nullopt;
    return v * unit;
  }
  long days = 0;
  std::string_view rest = text;
  const bool with_days = text.find('-') != std::string_view::npos;
  if (with_days) {
    const auto dash = text.find('-');
    if (!whole(text.substr(0, dash), days)) return std::nullopt;
    rest = text.substr(dash + 1);
  }
  std::vector<long> parts;
  while (true) {
    const auto colon = rest.find(':');
    long v = 0;
    if (!whole(rest.substr(0, colon), v)) return std::nullopt;
    parts.push_back(v);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (parts.size() > 3) return std::nullopt;
  long h = 0, m = 0, s = 0;
  if (with_days) {  // D-HH[:MM[:SS]]
    h = parts[0];
    if (parts.size() > 1) m = parts[1];
    if (parts.size() > 2) s = parts[2];
  } else if (parts.size() == 2) {  // MM:SS
    m = parts[0];
    s = parts[1];
  } else {  // HH:MM:SS
    h = parts[0];
    m = parts[1];
    s = parts[2];
  }
  return static_cast<double>(((days * 24 + h) * 60 + m) * 60 + s);
}

double parse_number(std::string_view text, std::string_view what) {
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    throw std::invalid_argument(std::string(what) + ": '" + s + "' is not a number");
  return v;
}

double parse_duration(std::string_view text, std::string_view what) {
  if (const auto v = read_duration(text)) return *v;
  throw std::invalid_argument(std::string(what) + ": '" + std::string(text) +
                              "' is not a duration; give minutes as Slurm does (30), or 90s, 15m, 2h, 1d, "
                              "MM:SS, HH:MM:SS, D-HH[:MM[:SS]]");
}

std::vector<std::string> split_command(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      const auto end = text.find('\'', i + 1);
      if (end == std::string_view::npos)
        throw std::invalid_argument("unterminated ' in the command: " + std::string(text));
      word.append(text.substr(i + 1, end - i - 1));
      i = end;
      in_word = true;
    } else if (c == '"') {
      ++i;
      for (; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size() &&
            std::string_view("\\\"$`").find(text[i + 1]) != std::string_view::npos)
          ++i;
        word += text[i];
      }
      if (i >= text.size())
        throw std::invalid_argument("unterminated \" in the command: " + std::string(text));
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::string shell_quote(std::string_view word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) {
    return std::isalnum(c) ||
           std::string_view("@%+=:,./_-{}").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (plain) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

long parse_megabytes(std::string_view text, std::string_view what) {
  const std::string t(text);
  std::size_t used = 0;
  long v = -1;
  try {
    v = std::stol(t, &used);
  } catch (...) {
  }
  const std::string unit = t.substr(used);
  const long mult = unit.empty() || unit == "M" || unit == "m" ? 1
                    : unit == "G" || unit == "g"               ? 1024
                    : unit == "T" || unit == "t"               ? 1024 * 1024
                                                               : -1;
  if (v <= 0 || mult < 0 || v > (1L << 40) / mult)
    throw std::invalid_argument(std::string(what) + ": '" + t + "' is not a memory size; use e.g. 512M, 4G");
  return v * mult;
}

}  // namespace tune
