// SPDX-License-Identifier: GPL-2.0-or-later
// How a placement describes itself (lib/placement/description).
#include "placement/description.hpp"

#include <gtest/gtest.h>

#include "placement/cons_tres_placement.hpp"
#include "placement/gang_config.hpp"
#include "placement/gang_placement.hpp"
#include "placement/placements.hpp"

namespace tune {
namespace {

TEST(PlacementDescription, ShapesNodeListsAndTiresiasCsv) {
  const auto shape = parse_topology(
      R"({"switches": 2, "nodes_per_switch": 3, "gpus_per_node": 8, "cpus_per_node": 64})", "c.json");
  EXPECT_EQ(shape.nodes.size(), 6u);
  EXPECT_EQ(shape.switches(), 2);
  EXPECT_EQ(shape.free_gpus(), 48);
  const auto csv = parse_topology(
      "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,32,4,40,256\n", "n32g4.csv");
  EXPECT_EQ(csv.nodes.size(), 32u);
  EXPECT_DOUBLE_EQ(csv.nodes[0].mem_mb, 256 * 1024.0);
  const auto list = parse_topology(
      R"({"nodes": [{"name": "a", "gpus": 4, "cpus": 8, "gpu_sockets": [0,0,1,1], "busy_gpus": [1], "busy_cpus": 2},
                    {"name": "b", "gpus": 2, "available": false}]})",
      "l.json");
  EXPECT_EQ(list.nodes[0].free_gpus(), 3);
  EXPECT_EQ(list.nodes[0].free_cores, 6);
  EXPECT_FALSE(list.nodes[1].available);
  const auto jobs = parse_jobs(
      R"([{"name": "x", "gpus": 2, "max_nodes": 1}, {"gpus_per_task": 1, "tasks": 4}, {"cpus": 3}])",
      "j.json");
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].shape.gpus_per_node, 2) << "--gpus on one node is placed like --gres=gpu:N";
  EXPECT_EQ(jobs[1].shape.tasks, 4);
  EXPECT_EQ(jobs[2].shape.cpus_per_task, 3);
  EXPECT_FALSE(jobs[2].shape.wants_gpus());
}

TEST(PlacementDescription, ErrorsNameTheInputAndTheFix) {
  auto says = [](auto f, const std::string& what) {
    try {
      f();
      ADD_FAILURE() << "accepted, expected: " << what;
    } catch (const DescriptionError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  says([] { parse_topology("{nope", "c.json"); }, "c.json: not JSON");
  says([] { parse_topology(R"({"nodes": [{"gpus": 2, "busy_gpus": [5]}]})", "c.json"); },
       "c.json: node 1: \"busy_gpus\" holds an index");
  says([] { parse_topology(R"({"nodes": [{"name": "a"}, {"name": "a"}]})", "c.json"); }, "used twice");
  says([] { parse_topology(R"({"switches": 0})", "c.json"); }, "\"switches\" must be a whole number from 1");
  says([] { parse_topology(R"({"gpu": 4})", "c.json"); }, "unknown key \"gpu\"");
  says([] { parse_jobs(R"({"gpus": 1})", "j.json"); }, "must be a JSON list");
  says([] { parse_jobs(R"([{"gpus": 1, "gpus_per_task": 1}])", "j.json"); }, "j.json: job 1: give one of");
  says([] { parse_jobs(R"([{"gpus": -1}])", "j.json"); }, "\"gpus\" must be a whole number");
}

}  // namespace
}  // namespace tune
