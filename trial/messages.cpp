#include "trial/messages.hpp"

#include <array>

namespace tune::wire {
namespace {
constexpr std::array<std::string_view, kKinds> kNames = {"ready",  "launch",    "stop",  "report",
                                                         "result", "interrupt", "prune", "bye"};
}

std::string_view kind_name(Kind k) {
  return kNames[static_cast<std::size_t>(k)];
}

std::optional<Kind> kind_of(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<Kind>(i);
  return std::nullopt;
}

std::optional<Kind> kind_of_tag(int tag) {
  if (tag < 1 || tag > kKinds) return std::nullopt;
  return static_cast<Kind>(tag - 1);
}

}  // namespace tune::wire
