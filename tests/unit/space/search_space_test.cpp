// SPDX-License-Identifier: GPL-2.0-or-later
#include "space/search_space.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace tune {
namespace {

// The source design's parameter file must load exactly as it is.
TEST(SearchSpace, LoadsTheSourceDesignFormat) {
  const auto space = SearchSpace::parse(R"({"parameters": [
      {"name": "momentum", "type": "bound", "value": [0.1, 0.3]},
      {"name": "learningRate", "type": "number", "value": [0.1, 0.2, 0.3]}]})");
  ASSERT_EQ(space.dimensions(), 2u);
  EXPECT_EQ(space.at("momentum").kind, ParamKind::Bound);
  EXPECT_DOUBLE_EQ(space.at("momentum").low, 0.1);
  EXPECT_DOUBLE_EQ(space.at("momentum").high, 0.3);
  EXPECT_EQ(space.at("learningRate").numbers, (std::vector<double>{0.1, 0.2, 0.3}));
  EXPECT_EQ(space.at("learningRate").cardinality(), 3u);
}

TEST(SearchSpace, RoundTripsThroughCanonicalJson) {
  const auto space = SearchSpace::parse(R"({"parameters": [
      {"name": "lr", "type": "bound", "value": [1e-5, 1e-1], "log": true},
      {"name": "batch", "type": "int", "value": [16, 256], "log": true},
      {"name": "opt", "type": "choice", "value": ["sgd", "adam"]}]})");
  const auto again = SearchSpace::from_json(space.to_json());
  EXPECT_EQ(again.to_json(), space.to_json());
  EXPECT_TRUE(again.at("lr").log);
  EXPECT_EQ(again.at("opt").choices, (std::vector<std::string>{"sgd", "adam"}));
}

struct BadSpace {
  const char* json;
  const char* expected;  // a fragment the message must contain
};

class RejectsBadSpace : public testing::TestWithParam<BadSpace> {};

TEST_P(RejectsBadSpace, WithAMessageNamingTheProblem) {
  try {
    SearchSpace::parse(GetParam().json, "space.json");
    FAIL() << "accepted: " << GetParam().json;
  } catch (const SpaceError& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().expected), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("space.json"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    SearchSpace, RejectsBadSpace,
    testing::Values(
        BadSpace{"{\"parameters\": [\n  {\"name\": \"a\", \"type\": \"bound\" \"value\": [0, 1]}]}",
                 "line 2, column 39"},  // the end of the unexpected token "value"
        BadSpace{"{\"parameters\": [\n\n  {\"name\": \"a\", \"type\": \"int\", \"value\": [0, 1,]}]}",
                 "line 3, column 47"},
        BadSpace{R"({"params": []})", "\"parameters\" array"},
        BadSpace{R"({"parameters": []})", "at least one parameter"},
        BadSpace{R"({"parameters": [{"type": "bound", "value": [0, 1]}]})", "parameter '#1'"},
        BadSpace{R"({"parameters": [{"name": "lr", "type": "real", "value": [0, 1]}]})",
                 "parameter 'lr': unknown type \"real\""},
        BadSpace{R"({"parameters": [{"name": "lr", "type": "bound", "value": [1, 0]}]})",
                 "parameter 'lr': low must be below high"},
        BadSpace{R"({"parameters": [{"name": "lr", "type": "bound", "value": [0, 1], "log": true}]})",
                 "parameter 'lr': a log scale needs low > 0"},
        BadSpace{R"({"parameters": [{"name": "n", "type": "int", "value": [1.5, 4]}]})",
                 "parameter 'n': an int range needs whole numbers"},
        BadSpace{R"({"parameters": [{"name": "m", "type": "number", "value": [1, 1]}]})",
                 "parameter 'm': lists 1 twice"},
        BadSpace{R"({"parameters": [{"name": "c", "type": "choice", "value": ["a", 2]}]})",
                 "parameter 'c': choices must be strings"},
        BadSpace{R"({"parameters": [{"name": "c", "type": "choice", "value": ["a"], "log": true}]})",
                 "\"log\" applies only to bound and int"},
        BadSpace{R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1], "step": 2}]})",
                 "parameter 'x': unknown field \"step\""},
        BadSpace{R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]},
                                    {"name": "x", "type": "bound", "value": [0, 1]}]})",
                 "parameter 'x': is defined twice"},
        BadSpace{R"({"parameters": [{"name": "x-y", "type": "bound", "value": [0, 1]}]})",
                 "letters, digits and '_'"}));

TEST(Parameter, DecodesTheEndsOfABoundInterval) {
  Parameter p{.name = "x", .kind = ParamKind::Bound, .low = 2, .high = 6};
  EXPECT_DOUBLE_EQ(std::get<double>(p.decode(0.0)), 2.0);
  EXPECT_DOUBLE_EQ(std::get<double>(p.decode(0.25)), 3.0);
  EXPECT_DOUBLE_EQ(std::get<double>(p.decode(1.0)), 6.0);
  EXPECT_DOUBLE_EQ(std::get<double>(p.decode(7.0)), 6.0);  // clamped
  EXPECT_DOUBLE_EQ(p.encode(5.0), 0.75);
}

TEST(Parameter, LogScaleSpendsEqualShareOnEachDecade) {
  Parameter p{.name = "lr", .kind = ParamKind::Bound, .low = 1e-4, .high = 1e-1, .log = true};
  EXPECT_NEAR(std::get<double>(p.decode(1.0 / 3)), 1e-3, 1e-12);
  EXPECT_NEAR(std::get<double>(p.decode(2.0 / 3)), 1e-2, 1e-12);
  EXPECT_NEAR(p.encode(1e-3), 1.0 / 3, 1e-12);
}

TEST(Parameter, IntegersEachOwnAnEqualShare) {
  Parameter p{.name = "n", .kind = ParamKind::Int, .low = 1, .high = 4};
  std::vector<int> hits(5, 0);
  for (int i = 0; i < 4000; ++i) hits[std::get<std::int64_t>(p.decode((i + 0.5) / 4000))]++;
  for (int v = 1; v <= 4; ++v) EXPECT_EQ(hits[v], 1000) << "value " << v;
  for (std::int64_t v = 1; v <= 4; ++v) EXPECT_EQ(std::get<std::int64_t>(p.decode(p.encode(v))), v);
  EXPECT_THROW(p.encode(std::int64_t{5}), SpaceError);
  EXPECT_THROW(p.encode(2.5), SpaceError);
}

TEST(Parameter, LogIntegersRoundTrip) {
  Parameter p{.name = "batch", .kind = ParamKind::Int, .low = 1, .high = 1024, .log = true};
  std::set<std::int64_t> seen;
  for (std::int64_t v = 1; v <= 1024; ++v) {
    EXPECT_EQ(std::get<std::int64_t>(p.decode(p.encode(v))), v);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 1024u);
}

TEST(Parameter, ListedValuesAndChoicesRoundTrip) {
  Parameter n{.name = "m", .kind = ParamKind::Number, .numbers = {0.5, 0.9, 0.99}};
  for (double v : n.numbers) EXPECT_EQ(std::get<double>(n.decode(n.encode(v))), v);
  EXPECT_THROW(n.encode(0.7), SpaceError);
  Parameter c{.name = "opt", .kind = ParamKind::Choice, .choices = {"sgd", "adam", "rmsprop"}};
  for (const auto& v : c.choices) EXPECT_EQ(std::get<std::string>(c.decode(c.encode(v))), v);
  EXPECT_EQ(std::get<std::string>(c.decode(0.0)), "sgd");
  EXPECT_EQ(std::get<std::string>(c.decode(1.0)), "rmsprop");
  EXPECT_THROW(c.encode(std::string("lbfgs")), SpaceError);
}

TEST(Parameter, NanDecodesToTheLowEnd) {
  Parameter p{.name = "x", .kind = ParamKind::Bound, .low = -1, .high = 1};
  EXPECT_DOUBLE_EQ(std::get<double>(p.decode(std::nan(""))), -1.0);
}

TEST(ParamValue, PrintsShortestExactText) {
  EXPECT_EQ(to_string(ParamValue{0.1}), "0.1");
  EXPECT_EQ(to_string(ParamValue{std::int64_t{42}}), "42");
  EXPECT_EQ(to_string(ParamValue{std::string("adam")}), "adam");
  EXPECT_EQ(to_json(ParamValue{1e-5}).dump(), "1e-05");
}

}  // namespace
}  // namespace tune
