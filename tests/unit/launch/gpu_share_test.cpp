// SPDX-License-Identifier: GPL-2.0-or-later
// Each runner's share of its node's GPUs (lib/launch/gpu_share).
#include "launch/gpu_share.hpp"

#include <gtest/gtest.h>

#include "command/text_input.hpp"

namespace tune {
namespace {

TEST(GpuShare, EachRunnerOnANodeTakesItsOwnSlice) {
  const std::vector<std::string> node = {"0", "1", "2", "3"};
  EXPECT_EQ(*gpu_share(node, 0, 2), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(*gpu_share(node, 1, 2), (std::vector<std::string>{"2", "3"}));
  EXPECT_FALSE(gpu_share(node, 2, 2));  // the node has no third pair
  EXPECT_EQ(*gpu_share(node, 3, 1), std::vector<std::string>{"3"});
  EXPECT_TRUE(gpu_share({}, 5, 0)->empty());  // no GPUs asked: none given
  EXPECT_FALSE(gpu_share({}, 0, 1));
}

}  // namespace
}  // namespace tune
