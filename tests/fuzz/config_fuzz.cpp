// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target: sched_tune.conf text. Every input either parses into
// settings within their documented ranges or throws ConfigError; nothing
// else (no crash, no other exception).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "priority/policy_config.hpp"

using namespace tune;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const PolicyConfig c = parse_policy_config(text, "fuzz.conf");
    // Every estimator's settings within their ranges, whatever the text.
    for (const auto& o : c.adaptive.estimator_settings())
      if (!(o.setting.value >= o.setting.lo && o.setting.value <= o.setting.hi)) std::abort();
    if (c.interval < 1 || c.interval > 3600 || c.adaptive.thresholds.empty() || c.yield.signal < 1 ||
        c.weights.fairshare + c.weights.age > 1e9 || c.fairshare.half_life < 60)
      std::abort();
    for (const auto& [t, s] : c.fairshare.shares)
      if (!(s > 0)) std::abort();
  } catch (const ConfigError&) {
  }
  return 0;
}
