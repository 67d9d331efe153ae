// SPDX-License-Identifier: GPL-2.0-or-later
// select_gang.conf read (lib/placement/gang_config).
#include "placement/gang_config.hpp"

#include <gtest/gtest.h>

#include "placement/cons_tres_placement.hpp"
#include "placement/description.hpp"
#include "placement/gang_placement.hpp"
#include "placement/placements.hpp"

namespace tune {
namespace {

TEST(GangConfig, DefaultsSettingsAndErrorsWithTheirLine) {
  const auto d = parse_gang_config("", "select_gang.conf");
  EXPECT_TRUE(d.applies_to("any"));
  EXPECT_EQ(load_gang_config("/nonexistent/select_gang.conf").options.cores_per_free_gpu, 1);
  const auto c =
      parse_gang_config("enabled = true;\npartitions = [\"gpu\"];\ncores_per_free_gpu = 2;\n", "s.conf");
  EXPECT_TRUE(c.applies_to("gpu"));
  EXPECT_FALSE(c.applies_to("cpu"));
  EXPECT_EQ(c.options.cores_per_free_gpu, 2);
  EXPECT_EQ(d.placement, "gang");
  EXPECT_EQ(parse_gang_config("placement = \"fgd\";", "s.conf").placement, "fgd");
  for (const char* bad : {"placement = \"first-fit\";", "placement = \"nosuch\";", "placement = 3;"}) {
    try {
      parse_gang_config(bad, "s.conf");
      ADD_FAILURE() << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("s.conf:1: 'placement'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("\"gang\" or \"fgd\""), std::string::npos) << e.what();
    }
  }
  // The one list: every name makes its policy, and the error names them all.
  for (const auto& n : placements().names()) EXPECT_EQ(make_placement(n)->name(), n);
  EXPECT_EQ(plugin_placement_names(), (std::vector<std::string>{"gang", "fgd"}));
  try {
    make_placement("best");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("choose one of: gang, fgd, cons_tres, first-fit"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(parse_gang_config("enabled = false;", "s.conf").applies_to("gpu"));
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"enabled = true;\ncores_per_free_gpu = -2;\n",
            "s.conf:2: 'cores_per_free_gpu' must be a whole number"},
           {"\nweights = 3;", "s.conf:2: unknown setting 'weights'"},
           {"partitions = [1];", "s.conf:1: 'partitions' must hold"},
           {"enabled = = 1;", "s.conf:1: syntax error"}}) {
    try {
      parse_gang_config(text, "s.conf");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tune
