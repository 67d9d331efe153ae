// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/description.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace tune {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw DescriptionError(source + ": " + what);
}

int whole(const json& o, const char* key, int def, int lo, int hi, const std::string& where) {
  if (!o.contains(key)) return def;
  const auto& v = o[key];
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
    fail(where, std::string("\"") + key + "\" must be a whole number from " + std::to_string(lo) + " to " +
                    std::to_string(hi));
  return static_cast<int>(v.get<long long>());
}

double real(const json& o, const char* key, double def, const std::string& where) {
  if (!o.contains(key)) return def;
  const auto& v = o[key];
  if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1e12)
    fail(where, std::string("\"") + key + "\" must be a number >= 0");
  return v.get<double>();
}

void only(const json& o, const std::set<std::string>& keys, const std::string& where) {
  for (const auto& [k, v] : o.items())
    if (!keys.count(k)) {
      std::string list;
      for (const auto& x : keys) list += (list.empty() ? "" : ", ") + x;
      fail(where, "unknown key \"" + k + "\"; known: " + list);
    }
}

Topology shape(int switches, int per_switch, int gpus, int cpus, double mem_mb) {
  Topology t;
  for (int s = 0; s < switches; ++s)
    for (int i = 0; i < per_switch; ++i)
      t.nodes.push_back(idle_node("node" + std::to_string(s * per_switch + i + 1), s, cpus, mem_mb, gpus));
  return t;
}

json parse_json(const std::string& text, const std::string& source, const char* what) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    fail(source, std::string("not JSON") + what + ": " + e.what());
  }
}

}  // namespace

Topology parse_topology(const std::string& text, const std::string& source) {
  if (text.rfind("num_switch", 0) == 0) {  // Tiresias cluster_spec CSV
    std::stringstream in(text);
    std::string header, row;
    std::getline(in, header);
    std::getline(in, row);
    int v[5];
    std::stringstream r(row);
    std::string cell;
    for (int& x : v) {
      if (!std::getline(r, cell, ',')) fail(source, "needs a row of 5 numbers under the header");
      try {
        x = std::stoi(cell);
      } catch (...) {
        fail(source, "'" + cell + "' is not a whole number");
      }
      if (x <= 0 || x > 100000) fail(source, "'" + cell + "' is out of range");
    }
    return shape(v[0], v[1], v[2], v[3], v[4] * 1024.0);
  }
  const json j = parse_json(text, source, " (or a cluster_spec CSV)");
  if (!j.is_object()) fail(source, "must be a JSON object");
  if (!j.contains("nodes")) {
    only(j, {"switches", "nodes_per_switch", "gpus_per_node", "cpus_per_node", "mem_gb_per_node"}, source);
    return shape(whole(j, "switches", 1, 1, 1000, source), whole(j, "nodes_per_switch", 1, 1, 100000, source),
                 whole(j, "gpus_per_node", 0, 0, 64, source), whole(j, "cpus_per_node", 1, 1, 4096, source),
                 real(j, "mem_gb_per_node", 64, source) * 1024.0);
  }
  only(j, {"nodes"}, source);
  if (!j["nodes"].is_array() || j["nodes"].empty()) fail(source, "\"nodes\" must be a non-empty list");
  Topology t;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < j["nodes"].size(); ++i) {
    const json& o = j["nodes"][i];
    const std::string where = source + ": node " + std::to_string(i + 1);
    if (!o.is_object()) fail(where, "must be an object");
    only(o,
         {"name", "switch", "cpus", "mem_mb", "gpus", "gpu_sockets", "busy_gpus", "busy_cpus", "busy_mem_mb",
          "available"},
         where);
    const std::string name = o.contains("name") && o["name"].is_string() ? o["name"].get<std::string>()
                                                                         : "node" + std::to_string(i + 1);
    if (!seen.insert(name).second) fail(where, "the name " + name + " is used twice");
    NodeCell n = idle_node(name, whole(o, "switch", 0, 0, 100000, where), whole(o, "cpus", 1, 1, 4096, where),
                           real(o, "mem_mb", 64 * 1024.0, where), whole(o, "gpus", 0, 0, 64, where));
    if (o.contains("gpu_sockets")) {
      const auto& s = o["gpu_sockets"];
      if (!s.is_array() || static_cast<int>(s.size()) != n.gpus())
        fail(where, "\"gpu_sockets\" needs one socket per GPU");
      for (int g = 0; g < n.gpus(); ++g) {
        if (!s[g].is_number_integer()) fail(where, "\"gpu_sockets\" must hold whole numbers");
        n.gpu_socket[g] = s[g].get<int>();
      }
    }
    if (o.contains("busy_gpus")) {
      if (!o["busy_gpus"].is_array()) fail(where, "\"busy_gpus\" must be a list of GPU indices");
      for (const auto& g : o["busy_gpus"]) {
        if (!g.is_number_integer() || g.get<int>() < 0 || g.get<int>() >= n.gpus())
          fail(where, "\"busy_gpus\" holds an index that is not a GPU of the node (0.." +
                          std::to_string(n.gpus() - 1) + ")");
        n.gpu_free[g.get<int>()] = false;
      }
    }
    n.free_cores -= whole(o, "busy_cpus", 0, 0, n.cores, where);
    n.free_mem_mb -= std::min(n.mem_mb, real(o, "busy_mem_mb", 0, where));
    if (o.contains("available")) {
      if (!o["available"].is_boolean()) fail(where, "\"available\" must be true or false");
      n.available = o["available"].get<bool>();
    }
    t.nodes.push_back(n);
  }
  return t;
}

std::vector<NamedJob> parse_jobs(const std::string& text, const std::string& source) {
  const json j = parse_json(text, source, "");
  if (!j.is_array()) fail(source, "must be a JSON list of jobs: [{\"gpus\": 4}, ...]");
  std::vector<NamedJob> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const json& o = j[i];
    const std::string where = source + ": job " + std::to_string(i + 1);
    if (!o.is_object()) fail(where, "must be an object");
    only(o,
         {"name", "nodes", "max_nodes", "tasks", "cpus_per_task", "cpus", "gpus", "gpus_per_node",
          "gpus_per_task", "cpus_per_gpu", "mem_per_cpu_mb", "mem_per_gpu_mb", "mem_mb", "exclusive"},
         where);
    NamedJob n;
    n.name = o.contains("name") && o["name"].is_string() ? o["name"].get<std::string>()
                                                         : "job" + std::to_string(i + 1);
    JobShape& s = n.shape;
    s.min_nodes = whole(o, "nodes", 1, 1, 100000, where);
    s.max_nodes = whole(o, "max_nodes", 0, 0, 100000, where);
    s.tasks = whole(o, "tasks", std::max(1, s.min_nodes), 1, 1000000, where);
    s.cpus_per_task = whole(o, "cpus_per_task", 1, 1, 4096, where);
    if (o.contains("cpus")) {  // shorthand for a CPU-only job of one task
      s.cpus_per_task = whole(o, "cpus", 1, 1, 4096, where);
      s.tasks = 1;
    }
    s.gpus_per_job = whole(o, "gpus", 0, 0, 100000, where);
    s.gpus_per_node = whole(o, "gpus_per_node", 0, 0, 64, where);
    s.gpus_per_task = whole(o, "gpus_per_task", 0, 0, 64, where);
    if ((s.gpus_per_job > 0) + (s.gpus_per_node > 0) + (s.gpus_per_task > 0) > 1)
      fail(where, "give one of \"gpus\", \"gpus_per_node\", \"gpus_per_task\"");
    // A single-node --gpus job is placed like --gres=gpu:N on one node.
    if (s.gpus_per_job > 0 && s.min_nodes == 1 && s.max_nodes == 1)
      s.gpus_per_node = s.gpus_per_job, s.gpus_per_job = 0;
    s.cpus_per_gpu = whole(o, "cpus_per_gpu", 0, 0, 4096, where);
    s.mem_per_cpu_mb = real(o, "mem_per_cpu_mb", 0, where);
    s.mem_per_gpu_mb = real(o, "mem_per_gpu_mb", 0, where);
    s.mem_per_node_mb = real(o, "mem_mb", 0, where);
    if (o.contains("exclusive")) {
      if (!o["exclusive"].is_boolean()) fail(where, "\"exclusive\" must be true or false");
      s.exclusive = o["exclusive"].get<bool>();
    }
    out.push_back(n);
  }
  return out;
}

}  // namespace tune
