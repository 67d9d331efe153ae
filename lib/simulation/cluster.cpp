// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/cluster.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "placement/description.hpp"
#include "simulation/text.hpp"

namespace tune::sim {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ClusterError(path + ": cannot read the file");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Key=Value words of one slurm.conf line (values may not hold spaces there).
std::vector<std::pair<std::string, std::string>> words(const std::string& line) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(line);
  std::string w;
  while (in >> w) {
    const auto eq = w.find('=');
    if (eq == std::string::npos)
      out.emplace_back(w, "");
    else
      out.emplace_back(w.substr(0, eq), w.substr(eq + 1));
  }
  return out;
}

long long whole(const std::string& v, const std::string& where, const std::string& key) {
  try {
    std::size_t used = 0;
    const long long x = std::stoll(v, &used);
    if (used != v.size() || x < 0) throw std::invalid_argument("x");
    return x;
  } catch (const std::exception&) {
    throw ClusterError(where + ": " + key + "=" + v + " is not a whole number >= 0");
  }
}

// Gres=gpu:4, gpu:a100:8, gpu:a100:4(S:0-1),mps:100 -> 4 / 8 / 4
int gpus_of(const std::string& gres, const std::string& where) {
  int n = 0;
  std::string item;
  std::istringstream in(gres);
  while (std::getline(in, item, ',')) {
    item = item.substr(0, item.find('('));
    if (item.rfind("gpu", 0) != 0) continue;
    const auto colon = item.rfind(':');
    if (colon == std::string::npos) {
      n += 1;
      continue;
    }
    std::string count = item.substr(colon + 1);
    if (!count.empty() && !std::isdigit(static_cast<unsigned char>(count[0]))) {  // gpu:a100 without a count
      n += 1;
      continue;
    }
    n += static_cast<int>(whole(count, where, "Gres"));
  }
  return n;
}

}  // namespace

int Cluster::gpus() const {
  int n = 0;
  for (const auto& c : topology.nodes) n += c.gpus();
  return n;
}
int Cluster::cpus() const {
  int n = 0;
  for (const auto& c : topology.nodes) n += c.cores;
  return n;
}
double Cluster::mem_mb() const {
  double n = 0;
  for (const auto& c : topology.nodes) n += c.mem_mb;
  return n;
}

std::vector<std::string> expand_hostlist(const std::string& list) {
  std::vector<std::string> out;
  // Split on commas outside brackets.
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : list) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) throw ClusterError("host list '" + list + "': ']' without '['");
    if (c == ',' && depth == 0)
      parts.push_back(cur), cur.clear();
    else
      cur += c;
  }
  if (depth != 0) throw ClusterError("host list '" + list + "': '[' without ']'");
  parts.push_back(cur);
  for (const auto& p : parts) {
    const auto open = p.find('[');
    if (open == std::string::npos) {
      if (!trim(p).empty()) out.push_back(trim(p));
      continue;
    }
    const auto close = p.find(']', open);
    const std::string prefix = p.substr(0, open), suffix = p.substr(close + 1),
                      inside = p.substr(open + 1, close - open - 1);
    std::istringstream in(inside);
    std::string range;
    while (std::getline(in, range, ',')) {
      const auto dash = range.find('-');
      const std::string a = range.substr(0, dash), b = dash == std::string::npos ? a : range.substr(dash + 1);
      if (a.empty() || b.empty() || !std::all_of(a.begin(), a.end(), ::isdigit) ||
          !std::all_of(b.begin(), b.end(), ::isdigit))
        throw ClusterError("host list '" + list + "': '" + range + "' is not a number or a range a-b");
      const long lo = std::stol(a), hi = std::stol(b);
      if (hi < lo || hi - lo > 1000000)
        throw ClusterError("host list '" + list + "': range " + range + " is empty or too large");
      for (long i = lo; i <= hi; ++i) {
        std::string num = std::to_string(i);
        if (num.size() < a.size()) num = std::string(a.size() - num.size(), '0') + num;  // node[001-100]
        for (const auto& rest : expand_hostlist(suffix)) out.push_back(prefix + num + rest);
        if (suffix.empty()) out.push_back(prefix + num);
      }
    }
  }
  return out;
}

Cluster parse_slurm_conf(const std::string& text, const std::string& name, const std::string& topology_text,
                         const std::string& topology_name) {
  Cluster c;
  c.source = name;
  std::map<std::string, std::string> node_defaults;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  std::string priority_type = "priority/basic";
  while (std::getline(in, line)) {
    ++n;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const std::string where = name + ":" + std::to_string(n);
    const auto w = words(line);
    const std::string key = lower(w[0].first);
    if (key == "nodename") {
      std::map<std::string, std::string> v = node_defaults;
      for (std::size_t i = 1; i < w.size(); ++i) v[lower(w[i].first)] = w[i].second;
      if (lower(w[0].second) == "default") {
        node_defaults = v;
        node_defaults.erase("nodename");
        continue;
      }
      std::map<std::string, std::string> own;
      for (std::size_t i = 1; i < w.size(); ++i) own[lower(w[i].first)] = w[i].second;
      const bool own_layout =
          !own.count("cpus") && (own.count("sockets") || own.count("corespersocket") || own.count("boards"));
      long long cpus = 1;
      if (v.count("cpus") && !own_layout)
        cpus = whole(v["cpus"], where, "CPUs");
      else if (v.count("corespersocket") || v.count("sockets") || v.count("boards")) {
        const long long s = v.count("sockets") ? whole(v["sockets"], where, "Sockets") : 1;
        const long long k =
            v.count("corespersocket") ? whole(v["corespersocket"], where, "CoresPerSocket") : 1;
        const long long t =
            v.count("threadspercore") ? whole(v["threadspercore"], where, "ThreadsPerCore") : 1;
        cpus = s * k * t;
      }
      const double mem =
          v.count("realmemory") ? static_cast<double>(whole(v["realmemory"], where, "RealMemory")) : 1;
      const int gpus = v.count("gres") ? gpus_of(v["gres"], where) : 0;
      std::vector<std::string> names;
      try {
        names = expand_hostlist(w[0].second);
      } catch (const ClusterError& e) {
        throw ClusterError(where + ": " + e.what());
      }
      for (const auto& hn : names)
        c.topology.nodes.push_back(idle_node(hn, 0, static_cast<int>(cpus), mem, gpus));
    } else if (key == "schedulertype") {
      c.settings.backfill = lower(w[0].second) != "sched/builtin";
    } else if (key == "priorityweightage") {
      c.settings.weight_age = static_cast<double>(whole(w[0].second, where, "PriorityWeightAge"));
    } else if (key == "priorityweightfairshare") {
      c.settings.weight_fairshare = static_cast<double>(whole(w[0].second, where, "PriorityWeightFairshare"));
    } else if (key == "priorityflags") {
      std::istringstream p(w[0].second);
      std::string flag;
      while (std::getline(p, flag, ',')) {
        const auto f = lower(trim(flag));
        if (f == "max_tres") c.settings.max_tres = true;
        if (f == "no_fair_tree" || f == "depth_oblivious") c.settings.fair_tree = false;
      }
    } else if (key == "prioritytype") {
      priority_type = lower(w[0].second);
    } else if (key == "prioritycalcperiod") {
      c.settings.priority_calc_period =
          static_cast<double>(whole(w[0].second, where, "PriorityCalcPeriod")) * 60;
    } else if (key == "prioritydecayhalflife" || key == "prioritymaxage") {
      const auto secs = slurm_duration(w[0].second);
      if (!secs)
        throw ClusterError(where + ": " + w[0].first + "=" + w[0].second +
                           " is not a Slurm duration; use [D-]HH:MM:SS, MM:SS or MM (minutes)");
      (key == "prioritymaxage" ? c.settings.priority_max_age : c.settings.priority_decay_half_life) = *secs;
    } else if (key == "schedulerparameters") {
      std::istringstream p(w[0].second);
      std::string item;
      while (std::getline(p, item, ',')) {
        const auto eq = item.find('=');
        const std::string k = lower(item.substr(0, eq));
        if (eq == std::string::npos) continue;
        const std::string v = item.substr(eq + 1);
        if (k == "bf_interval")
          c.settings.bf_interval = std::max(1.0, static_cast<double>(whole(v, where, k)));
        else if (k == "bf_window")
          c.settings.bf_window = static_cast<double>(whole(v, where, k)) * 60;
        else if (k == "bf_resolution")
          c.settings.bf_resolution = std::max(1.0, static_cast<double>(whole(v, where, k)));
        else if (k == "bf_max_job_test")
          c.settings.bf_max_job_test = static_cast<int>(whole(v, where, k));
        else if (k == "sched_interval")
          c.settings.sched_interval = std::max(1.0, static_cast<double>(whole(v, where, k)));
        else if (k == "default_queue_depth")
          c.settings.default_queue_depth = static_cast<int>(whole(v, where, k));
        else if (k == "batch_sched_delay")
          c.settings.batch_sched_delay = whole(v, where, k);
      }
    }
  }
  if (priority_type != "priority/multifactor") c.settings.weight_age = c.settings.weight_fairshare = 0;
  if (c.topology.nodes.empty())
    throw ClusterError(name +
                       ": no NodeName line; a slurm.conf describes its nodes with NodeName=... CPUs=... "
                       "RealMemory=... Gres=gpu:N");
  // topology.conf: SwitchName=s1 Nodes=node[1-16]; leaf switches give node switch ids.
  if (!topology_text.empty()) {
    std::map<std::string, int> index;
    for (std::size_t i = 0; i < c.topology.nodes.size(); ++i)
      index[c.topology.nodes[i].name] = static_cast<int>(i);
    std::istringstream t(topology_text);
    int sw = 0, tn = 0;
    while (std::getline(t, line)) {
      ++tn;
      line = trim(line.substr(0, line.find('#')));
      if (line.empty()) continue;
      for (const auto& [k, v] : words(line))
        if (lower(k) == "nodes") {
          for (const auto& hn : expand_hostlist(v)) {
            const auto it = index.find(hn);
            if (it == index.end())
              throw ClusterError(topology_name + ":" + std::to_string(tn) + ": node " + hn + " is not in " +
                                 name);
            c.topology.nodes[it->second].switch_id = sw;
          }
          ++sw;
        }
    }
  }
  return c;
}

Cluster scale_cluster(const Cluster& c, double share) {
  if (!(share > 0 && share <= 1)) throw ClusterError("a cluster share must be in (0, 1]");
  Cluster out = c;
  out.topology.nodes.clear();
  for (std::size_t i = 0; i < c.topology.nodes.size(); ++i)
    if (std::floor((i + 1) * share) > std::floor(i * share))
      out.topology.nodes.push_back(c.topology.nodes[i]);
  if (out.topology.nodes.empty()) out.topology.nodes.push_back(c.topology.nodes.front());
  char b[64];
  std::snprintf(b, sizeof b, ", %.3g of its nodes", share);
  out.source += b;
  return out;
}

Cluster read_cluster(const std::string& path) {
  const std::string text = slurp(path);
  if (text.rfind("sn,cpu_milli,memory_mib,gpu", 0) == 0) {  // openb node list
    Cluster c;
    c.source = path + " (openb node list)";
    std::istringstream in(text);
    std::string line;
    std::getline(in, line);
    int n = 1;
    while (std::getline(in, line)) {
      ++n;
      if (trim(line).empty()) continue;
      std::vector<std::string> f;
      std::istringstream s(line);
      std::string x;
      while (std::getline(s, x, ',')) f.push_back(trim(x));
      const std::string where = path + ":" + std::to_string(n);
      if (f.size() < 4) throw ClusterError(where + ": needs sn,cpu_milli,memory_mib,gpu");
      c.topology.nodes.push_back(idle_node(f[0], 0, static_cast<int>(whole(f[1], where, "cpu_milli") / 1000),
                                           static_cast<double>(whole(f[2], where, "memory_mib")),
                                           static_cast<int>(whole(f[3], where, "gpu"))));
    }
    c.notes.push_back("GPU models (the 'model' column) are not told apart: a job may run on any GPU node");
    return c;
  }
  const bool conf = text.find("NodeName") != std::string::npos || text.find("nodename") != std::string::npos;
  if (conf) {
    const std::filesystem::path topo = std::filesystem::path(path).parent_path() / "topology.conf";
    std::string topo_text;
    if (std::filesystem::exists(topo)) topo_text = slurp(topo.string());
    Cluster c = parse_slurm_conf(text, path, topo_text, topo.string());
    return c;
  }
  Cluster c;
  c.source = path;
  try {
    c.topology = parse_topology(text, path);
  } catch (const DescriptionError& e) {
    throw ClusterError(std::string(e.what()) +
                       " (a cluster is a slurm.conf, an openb node list or a tune place description)");
  }
  return c;
}

std::vector<Association> read_associations(const std::string& path) {
  std::istringstream in(slurp(path));
  std::vector<Association> out;
  std::string line;
  const std::string fix = "; write it with: sacctmgr -nP show assoc format=Account,User,ParentName,Share";
  for (int n = 1; std::getline(in, line); ++n) {
    if (trim(line).empty()) continue;
    std::vector<std::string> f;
    std::istringstream s(line);
    std::string x;
    while (std::getline(s, x, '|')) f.push_back(trim(x));
    if (!line.empty() && line.back() == '|') f.emplace_back();
    const std::string where = path + ":" + std::to_string(n);
    if (f.size() != 4 || f[0].empty())
      throw ClusterError(where + ": expected account|user|parent|shares, got '" + line + "'" + fix);
    Association a{f[0], f[1], f[2], 1};
    if (const auto sh = lower(f[3]); sh == "parent") {
      a.shares = 1;  // shares taken from the parent: not modelled, counted as one
    } else if (!f[3].empty()) {
      char* end = nullptr;
      a.shares = std::strtod(f[3].c_str(), &end);
      if (end == f[3].c_str() || *end != '\0' || !(a.shares >= 0))
        throw ClusterError(where + ": shares '" + f[3] + "' is not a number of shares" + fix);
    }
    out.push_back(std::move(a));
  }
  if (out.empty()) throw ClusterError(path + ": no associations" + fix);
  try {
    FairTree{out};
  } catch (const std::invalid_argument& e) {
    throw ClusterError(path + ": " + e.what() + "; fix the ParentName column");
  }
  return out;
}

}  // namespace tune::sim
