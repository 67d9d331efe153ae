// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority/policy_config.hpp"

#include <cmath>
#include <csignal>
#include <fstream>
#include <libconfig.h++>
#include <map>
#include <set>
#include <sstream>

namespace tune {
namespace {

constexpr std::pair<const char*, int> kSignals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"USR1", SIGUSR1},  {"USR2", SIGUSR2},
    {"TERM", SIGTERM}, {"CONT", SIGCONT}, {"URG", SIGURG},   {"WINCH", SIGWINCH}};

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const libconfig::Setting& s, const std::string& reason) const {
    throw ConfigError(file_, s.getSourceLine(), reason);
  }

  // Only known names: a typo must not silently fall back to a default.
  void only(const libconfig::Setting& group, std::set<std::string> known) const {
    for (int i = 0; i < group.getLength(); ++i) {
      const auto& s = group[i];
      if (!known.count(s.getName()))
        fail(s, std::string("unknown setting '") + s.getPath() + "'; see sched_tune.conf(5) for the names");
    }
  }

  double number(const libconfig::Setting& g, const char* name, double def, double lo, double hi) const {
    if (!g.exists(name)) return def;
    const auto& s = g[name];
    double v;
    if (s.getType() == libconfig::Setting::TypeInt)
      v = static_cast<int>(s);
    else if (s.getType() == libconfig::Setting::TypeInt64)
      v = static_cast<double>(static_cast<long long>(s));
    else if (s.getType() == libconfig::Setting::TypeFloat)
      v = static_cast<double>(s);
    else
      fail(s, std::string("'") + s.getPath() + "' must be a number");
    if (!std::isfinite(v) || v < lo || v > hi) {
      std::ostringstream m;
      m << "'" << s.getPath() << "' = " << v << " is out of range: give a value from " << lo << " to " << hi;
      fail(s, m.str());
    }
    return v;
  }

  int integer(const libconfig::Setting& g, const char* name, int def, int lo, int hi) const {
    if (g.exists(name) && g[name].getType() == libconfig::Setting::TypeFloat)
      fail(g[name], std::string("'") + g[name].getPath() + "' must be a whole number");
    return static_cast<int>(number(g, name, def, lo, hi));
  }

  bool boolean(const libconfig::Setting& g, const char* name, bool def) const {
    if (!g.exists(name)) return def;
    const auto& s = g[name];
    if (s.getType() != libconfig::Setting::TypeBoolean)
      fail(s, std::string("'") + s.getPath() + "' must be true or false");
    return s;
  }

  std::string text(const libconfig::Setting& g, const char* name, const std::string& def) const {
    if (!g.exists(name)) return def;
    const auto& s = g[name];
    if (s.getType() != libconfig::Setting::TypeString)
      fail(s, std::string("'") + s.getPath() + "' must be a \"string\"");
    return static_cast<const char*>(s);
  }

  const libconfig::Setting* group(const libconfig::Setting& root, const char* name) const {
    if (!root.exists(name)) return nullptr;
    const auto& s = root[name];
    if (!s.isGroup()) fail(s, std::string("'") + name + "' must be a group: " + name + " = { ... };");
    return &s;
  }

 private:
  std::string file_;
};

// The adaptive group: the settings every estimator shares, then each
// estimator's own (every estimator's are checked, the one in use is used).
void read_adaptive(const Reader& r, const libconfig::Setting& g, AdaptiveOptions& a, bool& enabled) {
  const auto owned = a.estimator_settings();
  std::set<std::string> names{"enabled",      "estimator", "thresholds",
                              "yield_factor", "max_level", "relax_time"};
  std::map<std::string, std::set<std::string>> groups;  // "tail" -> {"horizon", ...}
  for (const auto& o : owned) {
    const auto dot = o.setting.path.find('.');
    names.insert(o.setting.path.substr(0, dot));
    if (dot != std::string::npos)
      groups[o.setting.path.substr(0, dot)].insert(o.setting.path.substr(dot + 1));
  }
  r.only(g, names);
  for (const auto& [name, known] : groups)
    if (const auto* sub = r.group(g, name.c_str())) r.only(*sub, known);
  enabled = r.boolean(g, "enabled", true);
  const std::string estimator = r.text(g, "estimator", a.estimator());
  if (!estimators().contains(estimator))
    r.fail(g["estimator"], "'adaptive.estimator': " + estimators().unknown(estimator));
  a.use(estimator);
  for (const auto& o : owned) {
    const auto dot = o.setting.path.find('.');
    const libconfig::Setting* in = &g;
    std::string leaf = o.setting.path;
    if (dot != std::string::npos) {
      if (!g.exists(o.setting.path.substr(0, dot))) continue;
      in = &g[o.setting.path.substr(0, dot).c_str()];
      leaf = o.setting.path.substr(dot + 1);
    }
    if (!in->exists(leaf)) continue;
    const auto& s = o.setting;
    a.set(s.path, s.whole ? r.integer(*in, leaf.c_str(), static_cast<int>(s.value), static_cast<int>(s.lo),
                                      static_cast<int>(s.hi))
                          : r.number(*in, leaf.c_str(), s.value, s.lo, s.hi));
  }
  if (g.exists("thresholds")) {
    const auto& t = g["thresholds"];
    if (!t.isArray() && !t.isList())
      r.fail(t, "'adaptive.thresholds' must be a list of numbers: [0.01, 0.005]");
    if (t.getLength() < 1 || t.getLength() > 32) r.fail(t, "'adaptive.thresholds' needs 1 to 32 values");
    a.thresholds.clear();
    for (int i = 0; i < t.getLength(); ++i) {
      const auto& v = t[i];
      if (v.getType() != libconfig::Setting::TypeFloat && v.getType() != libconfig::Setting::TypeInt)
        r.fail(v, "'adaptive.thresholds' must hold numbers");
      const double x =
          v.getType() == libconfig::Setting::TypeFloat ? static_cast<double>(v) : static_cast<int>(v);
      if (!std::isfinite(x) || x < 0 || x > 1e6)
        r.fail(v, "'adaptive.thresholds' values must be from 0 to 1e6");
      a.thresholds.push_back(x);
    }
  }
  a.yield_factor = r.number(g, "yield_factor", a.yield_factor, 0.01, 1);
  a.max_level = r.integer(g, "max_level", a.max_level, 0, 30);
  a.relax_time = r.number(g, "relax_time", a.relax_time, 1, 30.0 * 86400);
}

PolicyConfig read(const libconfig::Config& cfg, const std::string& file, const ConfigRules& rules) {
  Reader r(file);
  const auto& root = cfg.getRoot();
  r.only(root, {"interval", "state_file", "fairshare", "adaptive", "yield", "lowering"});
  if (!rules.fairshare && root.exists("fairshare"))
    r.fail(
        root["fairshare"],
        "'fairshare' applies to sched/tune only: under priority/multifactor the fair share and age terms are "
        "slurm.conf's (PriorityWeightFairshare, PriorityWeightAge, PriorityFlags=MAX_TRES); remove the group "
        "(see site_factor_tune(8))");
  if (!rules.lowering && root.exists("lowering"))
    r.fail(root["lowering"],
           "'lowering' applies to site_factor/tune only: sched/tune sets every priority itself; remove it "
           "(see sched_tune.conf(5))");
  PolicyConfig c;
  c.interval = r.number(root, "interval", c.interval, 1, 3600);
  if (root.exists("lowering")) {
    const std::string l = r.text(root, "lowering", "band");
    if (l == "band")
      c.lowering = SiteLowering::Band;
    else if (l == "fraction")
      c.lowering = SiteLowering::Fraction;
    else
      r.fail(root["lowering"], "'lowering' = \"" + l +
                                   "\" is not known: use \"band\" (below every job of no yielding study) or "
                                   "\"fraction\" (priority x yield_factor^level)");
  }
  c.state_file = r.text(root, "state_file", "");
  if (const auto* g = r.group(root, "fairshare")) {
    r.only(*g, {"tenant", "half_life", "weight", "age_weight", "max_age", "shares"});
    const std::string tenant = r.text(*g, "tenant", "auto");
    if (tenant == "auto")
      c.fairshare.tenant = TenantBy::Auto;
    else if (tenant == "user")
      c.fairshare.tenant = TenantBy::User;
    else if (tenant == "account")
      c.fairshare.tenant = TenantBy::Account;
    else
      r.fail((*g)["tenant"], "'fairshare.tenant' = \"" + tenant +
                                 "\" is not known: use \"auto\" (the account where slurmdbd enforces "
                                 "associations, else the user), \"user\" or \"account\"");
    c.fairshare.half_life = r.number(*g, "half_life", c.fairshare.half_life, 60, 365.0 * 86400);
    c.weights.fairshare = r.number(*g, "weight", c.weights.fairshare, 0, 1e9);
    c.weights.age = r.number(*g, "age_weight", c.weights.age, 0, 1e9);
    c.weights.max_age = r.number(*g, "max_age", c.weights.max_age, 1, 365.0 * 86400);
    if (const auto* shares = r.group(*g, "shares"))
      for (int i = 0; i < shares->getLength(); ++i) {
        const auto& s = (*shares)[i];
        c.fairshare.shares[s.getName()] = r.number(*shares, s.getName(), 1, 1e-6, 1e6);
      }
  }
  if (c.weights.fairshare + c.weights.age > 1e9)
    throw ConfigError(file, 0,
                      "fairshare.weight + fairshare.age_weight must not exceed 1e9 (priorities are 32-bit)");
  if (const auto* g = r.group(root, "adaptive")) read_adaptive(r, *g, c.adaptive, c.adaptive_enabled);
  if (const auto* g = r.group(root, "yield")) {
    r.only(*g, {"enabled", "level", "signal", "wait", "cooldown"});
    auto& y = c.yield;
    y.enabled = r.boolean(*g, "enabled", y.enabled);
    y.level = r.integer(*g, "level", y.level, 1, 30);
    const std::string sig = r.text(*g, "signal", "USR1");
    y.signal = signal_number(sig);
    if (y.signal < 0)
      r.fail((*g)["signal"], "'yield.signal' = \"" + sig +
                                 "\" is not a signal: use \"USR1\", \"USR2\", \"TERM\" or a number");
    y.wait = r.number(*g, "wait", y.wait, 0, 30.0 * 86400);
    y.cooldown = r.number(*g, "cooldown", y.cooldown, 0, 30.0 * 86400);
  }
  return c;
}

}  // namespace

int signal_number(const std::string& name) {
  std::string n = name.rfind("SIG", 0) == 0 ? name.substr(3) : name;
  for (const auto& [s, v] : kSignals)
    if (n == s) return v;
  if (!n.empty() && n.size() <= 2 && n.find_first_not_of("0123456789") == std::string::npos) {
    const int v = std::stoi(n);
    if (v >= 1 && v <= 31 && v != SIGKILL && v != SIGSTOP) return v;
  }
  return -1;
}

PolicyConfig parse_policy_config(const std::string& text, const std::string& name, const ConfigRules& rules) {
  libconfig::Config cfg;
  try {
    cfg.readString(text);
  } catch (const libconfig::ParseException& e) {
    throw ConfigError(name, e.getLine(), std::string("syntax error: ") + e.getError());
  }
  return read(cfg, name, rules);
}

PolicyConfig load_policy_config(const std::string& path, const ConfigRules& rules) {
  std::ifstream in(path);
  if (!in)
    throw ConfigError(
        path, 0,
        "cannot read the file (create it, or point " + rules.named_by + "=tune_conf=PATH elsewhere)");
  std::stringstream text;
  text << in.rdbuf();
  return parse_policy_config(text.str(), path, rules);
}

}  // namespace tune
