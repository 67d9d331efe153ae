// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_jobs/channel_frame.hpp"

namespace tune {

namespace {
// How deep the text nests its arrays and objects (strings skipped), or
// nothing once it passes `limit`; a cheap scan before the parser runs.
bool deeper_than(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return false;
}
}  // namespace

std::optional<nlohmann::json> parse_frame(std::string_view text, std::string& why) {
  if (deeper_than(text, kMaxFrameDepth)) {
    why = "a message nested deeper than " + std::to_string(kMaxFrameDepth) + " levels";
    return std::nullopt;
  }
  nlohmann::json body = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (body.is_discarded()) {
    why = "a message that is not JSON";
    return std::nullopt;
  }
  if (!body.is_object()) {
    why = "a message that is not a JSON object";
    return std::nullopt;
  }
  const auto type = body.find("type");
  if (type == body.end() || !type->is_string()) {
    why = "a message without a \"type\" string";
    return std::nullopt;
  }
  return body;
}

}  // namespace tune
