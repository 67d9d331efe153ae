// SPDX-License-Identifier: GPL-2.0-or-later
// The search space of a study: named parameters, parsed from the JSON the
// user writes, validated, and mapped to and from the unit cube [0,1]^d that
// samplers work in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "space/param_value.hpp"

namespace tune {

// A user error in a search space: the message names the parameter (or the
// line and column of a JSON syntax error) and says what to change.
class SpaceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ParamKind {
  Bound,   // continuous interval [low, high]       (source design: "bound")
  Int,     // integers low..high                    ("int")
  Number,  // one of the listed numbers             (source design: "number")
  Choice,  // one of the listed strings             ("choice")
};

std::string_view kind_name(ParamKind kind);

// "when": {"optimizer": ["sgd", "nesterov"]}: the parameter exists only in
// trials whose `parent` took one of `values`. Parents are choice, number or
// int parameters listed before the child; a child of a conditional parent is
// active only where its parent is (nesting to any depth).
struct Condition {
  std::size_t parent = 0;          // index in SearchSpace::parameters()
  std::vector<ParamValue> values;  // of the parent's type
};

struct Parameter {
  std::string name;
  ParamKind kind = ParamKind::Bound;
  double low = 0, high = 0;            // Bound and Int
  bool log = false;                    // Bound and Int: sample on a log scale
  std::vector<double> numbers{};       // Number
  std::vector<std::string> choices{};  // Choice
  std::vector<Condition> when{};       // all must hold; empty: always active

  // Number of distinct values, or 0 for a continuous parameter.
  std::size_t cardinality() const;
  // Maps u in [0,1] to a value of this parameter (u outside is clamped).
  ParamValue decode(double u) const;
  // Maps a value of this parameter into [0,1]; decode(encode(v)) == v.
  // Throws SpaceError if the value does not belong to the parameter.
  double encode(const ParamValue& value) const;
};

class SearchSpace {
 public:
  // Parses a space from JSON text; `source` names it in messages (a path).
  static SearchSpace parse(std::string_view json_text, std::string_view source = "search space");
  static SearchSpace from_json(const nlohmann::json& doc);

  const std::vector<Parameter>& parameters() const { return params_; }
  std::size_t dimensions() const { return params_.size(); }
  const Parameter& at(std::string_view name) const;
  // The index of parameter `name`, or nothing.
  std::optional<std::size_t> index_of(std::string_view name) const;

  // Whether some parameter has a "when".
  bool conditional() const { return conditional_; }
  // Which parameters are active given the values of the others (parents
  // precede children, so one pass decides). Values of inactive parameters
  // are ignored.
  std::vector<bool> active(const std::vector<ParamValue>& values) const;
  // The same values with every inactive parameter made absent.
  std::vector<ParamValue> prune_inactive(std::vector<ParamValue> values) const;
  // Throws SpaceError unless the values fit the space: each active parameter
  // has a value of it, each inactive one is absent. `where` starts messages.
  void check(const std::vector<ParamValue>& values, const std::string& where) const;
  // "exists only when optimizer is sgd or nesterov" (for messages).
  std::string condition_text(std::size_t index) const;

  // The canonical JSON form (the source design's format plus our extensions).
  nlohmann::json to_json() const;

 private:
  std::vector<Parameter> params_;
  bool conditional_ = false;
};

// A value as text for argv, environment and tables: shortest exact form.
std::string to_string(const ParamValue& value);
nlohmann::json to_json(const ParamValue& value);

}  // namespace tune
