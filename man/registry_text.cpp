// SPDX-License-Identifier: GPL-2.0-or-later
// Fills the man pages' lists of names from the registries at build time, so
// that a policy added to a registry is in its page with no page edited
// (docs_agree.sh checks the pages against --help). Reads a page on stdin,
// writes it on stdout with each token replaced:
//   @names|KIND@        the names joined by "|"          grid|random|qmc
//   @names,KIND@        the names in bold, joined by ", ", aliases as "(or X)"
//   @estimator-settings@  a .TP entry per estimator setting of sched_tune.conf(5)
//   @settings,KIND@     a .TP entry per flag of a policy's own settings (algorithms, pruners)
// KIND: algorithms, pruners, estimators, orderings, placements.
#include <algorithm>
#include <iostream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>

#include "estimators/estimators.hpp"
#include "placement/placements.hpp"
#include "search/pruner.hpp"
#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "simulation/ordering.hpp"

namespace {

// roff: a hyphen in a name is a minus sign to be kept as typed.
std::string roff(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

template <class R>
std::string names(const R& registry, char style) {
  std::string out;
  for (const auto& e : registry.entries()) {
    if (!out.empty()) out += style == '|' ? "|" : ", ";
    if (style == '|') {
      out += roff(e.name);
      continue;
    }
    out += "\\fB" + roff(e.name) + "\\fR";
    for (std::size_t i = 0; i < e.aliases.size(); ++i)
      out += (i == 0 ? " (or \\fB" : ", \\fB") + roff(e.aliases[i]) + "\\fR";
    if (!e.aliases.empty()) out += ")";
  }
  return out;
}

std::string names_of(const std::string& kind, char style) {
  if (kind == "algorithms") return names(tune::samplers(), style);
  if (kind == "pruners") return names(tune::pruners(), style);
  if (kind == "estimators") return names(tune::estimators(), style);
  if (kind == "orderings") return names(tune::sim::ordering_policies(), style);
  if (kind == "placements") return names(tune::placements(), style);
  throw std::invalid_argument("unknown kind '" + kind + "' in @names" + style + kind + "@");
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  std::string t = s.str();
  if (const auto e = t.find("e-0"); e != std::string::npos) t.erase(e + 2, 1);  // 1e-09 -> 1e-9
  return roff(t);
}

std::string estimator_settings() {
  std::string out;
  for (const auto& o : tune::AdaptiveOptions().estimator_settings()) {
    const auto& s = o.setting;
    out += ".TP\n.BR adaptive." + roff(s.path) + " \" (" + number(s.value) + "; " + number(s.lo) + " to " +
           number(s.hi) + ")\"\n" + roff(s.doc) + " (\\fB" + roff(o.estimator) + "\\fR)\n";
  }
  if (!out.empty()) out.pop_back();  // the token's own line ends it
  return out;
}

// One entry per setting key, as tune run's --help merges them: the policies
// that read it and how, its default and range.
template <class R>
std::string settings(const R& registry) {
  struct Flag {
    tune::SettingSpec spec;
    std::string help;
  };
  std::vector<Flag> flags;
  for (const auto& e : registry.entries())
    for (const auto& spec : e.settings) {
      auto same =
          std::find_if(flags.begin(), flags.end(), [&](const Flag& f) { return f.spec.key == spec.key; });
      if (same != flags.end())
        same->help += "; " + spec.help;
      else
        flags.push_back({spec, spec.help});
    }
  auto shown = [](const tune::SettingSpec& spec, double v) {
    return spec.integer ? std::to_string(static_cast<long long>(v)) : number(v);
  };
  std::string out;
  for (const auto& f : flags)
    out += ".TP\n.BI " + roff(f.spec.flag) + " \" " + f.spec.metavar + "\"\n" + roff(f.help) + " (default " +
           shown(f.spec, f.spec.fallback) + "; " + shown(f.spec, f.spec.lo) + " to " +
           shown(f.spec, f.spec.hi) + ").\n";
  if (!out.empty()) out.pop_back();
  return out;
}

std::string settings_of(const std::string& kind) {
  if (kind == "algorithms") return settings(tune::samplers());
  if (kind == "pruners") return settings(tune::pruners());
  throw std::invalid_argument("unknown kind '" + kind + "' in @settings," + kind + "@");
}

}  // namespace

int main() {
  const std::string in{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  static const std::regex token(R"(@(names([|,])([a-z]+)|estimator-settings|settings,([a-z]+))@)");
  std::string out;
  auto last = in.cbegin();
  try {
    for (std::sregex_iterator it(in.begin(), in.end(), token), end; it != end; ++it) {
      const auto& m = *it;
      out.append(last, m[0].first);
      if (m[1] == "estimator-settings")
        out += estimator_settings();
      else if (m[4].matched)
        out += settings_of(m[4].str());
      else
        out += names_of(m[3].str(), m[2].str()[0]);
      last = m[0].second;
    }
  } catch (const std::exception& e) {
    std::cerr << "registry_text: " << e.what() << "\n";
    return 1;
  }
  out.append(last, in.cend());
  std::cout << out;
  return 0;
}
