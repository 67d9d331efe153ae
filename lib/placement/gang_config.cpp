// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/gang_config.hpp"

#include <algorithm>
#include <fstream>
#include <libconfig.h++>
#include <sstream>
#include <stdexcept>

#include "placement/placements.hpp"

namespace tune {

GangConfig parse_gang_config(const std::string& text, const std::string& name) {
  libconfig::Config cfg;
  try {
    cfg.readString(text);
  } catch (const libconfig::ParseException& e) {
    throw std::runtime_error(name + ":" + std::to_string(e.getLine()) + ": syntax error: " + e.getError());
  }
  GangConfig c;
  const auto& root = cfg.getRoot();
  for (int i = 0; i < root.getLength(); ++i) {
    const auto& x = root[i];
    const std::string key = x.getName();
    auto bad = [&](const std::string& why) {
      throw std::runtime_error(name + ":" + std::to_string(x.getSourceLine()) + ": " + why);
    };
    if (key == "enabled") {
      if (x.getType() != libconfig::Setting::TypeBoolean) bad("'enabled' must be true or false");
      c.enabled = x;
    } else if (key == "partitions") {
      if (!x.isArray() && !x.isList()) bad("'partitions' must be a list of names: [\"gpu\"]");
      for (int k = 0; k < x.getLength(); ++k) {
        if (x[k].getType() != libconfig::Setting::TypeString) bad("'partitions' must hold \"names\"");
        c.partitions.insert(static_cast<const char*>(x[k]));
      }
    } else if (key == "placement") {
      const auto names = plugin_placement_names();
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "\"" : "\" or \"") + n;
      list += "\"";
      if (x.getType() != libconfig::Setting::TypeString) bad("'placement' must be a name in quotes: " + list);
      const std::string v = static_cast<const char*>(x);
      if (std::find(names.begin(), names.end(), v) == names.end())
        bad("'placement' = \"" + v + "\" is not a placement policy the plugin runs: use " + list);
      c.placement = v;
    } else if (key == "cores_per_free_gpu") {
      if (x.getType() != libconfig::Setting::TypeInt || static_cast<int>(x) < 0 || static_cast<int>(x) > 1024)
        bad("'cores_per_free_gpu' must be a whole number from 0 to 1024");
      c.options.cores_per_free_gpu = x;
    } else {
      bad("unknown setting '" + key + "'; see select_cons_tres_gang(8)");
    }
  }
  return c;
}

GangConfig load_gang_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};  // no file: the defaults
  std::stringstream text;
  text << in.rdbuf();
  return parse_gang_config(text.str(), path);
}

}  // namespace tune
