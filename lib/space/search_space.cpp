// SPDX-License-Identifier: GPL-2.0-or-later
#include "space/search_space.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>

namespace tune {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& param, const std::string& problem) {
  throw SpaceError("parameter '" + param + "': " + problem);
}

// nlohmann reports a byte offset; people want line and column.
std::string position_of(std::string_view text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

double finite_number(const json& v, const std::string& param, const char* what) {
  if (!v.is_number()) fail(param, std::string(what) + " must be a number, not " + v.dump());
  const double x = v.get<double>();
  if (!std::isfinite(x)) fail(param, std::string(what) + " must be finite");
  return x;
}

ParamKind parse_kind(const json& v, const std::string& param) {
  if (!v.is_string()) fail(param, "\"type\" must be one of \"bound\", \"int\", \"number\", \"choice\"");
  const auto s = v.get<std::string>();
  if (s == "bound") return ParamKind::Bound;
  if (s == "int") return ParamKind::Int;
  if (s == "number") return ParamKind::Number;
  if (s == "choice") return ParamKind::Choice;
  fail(param, "unknown type \"" + s +
                  "\"; use \"bound\" (interval), \"int\" (integer range), "
                  "\"number\" (listed numbers) or \"choice\" (listed strings)");
}

Parameter parse_parameter(const json& p, std::size_t index) {
  const std::string where = "#" + std::to_string(index + 1);
  if (!p.is_object()) fail(where, "each entry of \"parameters\" must be an object");
  if (!p.contains("name") || !p["name"].is_string() || p["name"].get<std::string>().empty())
    fail(where, "needs a non-empty string \"name\"");
  Parameter out;
  out.name = p["name"].get<std::string>();
  const auto& name = out.name;
  // Names reach the environment (TUNE_PARAM_<name>) and argv placeholders.
  const bool ok_name =
      std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; }) &&
      !std::isdigit(static_cast<unsigned char>(name[0]));
  if (!ok_name) fail(name, "names may hold only letters, digits and '_', and not start with a digit");
  if (!p.contains("type")) fail(name, "needs a \"type\"");
  out.kind = parse_kind(p["type"], name);
  for (const auto& [key, _] : p.items()) {
    if (key != "name" && key != "type" && key != "value" && key != "log" && key != "when")
      fail(name, "unknown field \"" + key + "\"; a parameter has name, type, value, log and when");
  }
  if (!p.contains("value") || !p["value"].is_array())
    fail(name, "needs \"value\": an array ([low, high] for bound and int, the values for number and choice)");
  const json& value = p["value"];

  if (p.contains("log")) {
    if (!p["log"].is_boolean()) fail(name, "\"log\" must be true or false");
    out.log = p["log"].get<bool>();
    if (out.log && out.kind != ParamKind::Bound && out.kind != ParamKind::Int)
      fail(name, "\"log\" applies only to bound and int parameters");
  }

  switch (out.kind) {
    case ParamKind::Bound:
    case ParamKind::Int: {
      if (value.size() != 2) fail(name, "\"value\" must be [low, high], got " + value.dump());
      out.low = finite_number(value[0], name, "low");
      out.high = finite_number(value[1], name, "high");
      if (out.kind == ParamKind::Int) {
        if (out.low != std::floor(out.low) || out.high != std::floor(out.high))
          fail(name, "an int range needs whole numbers, got " + value.dump());
        if (std::fabs(out.low) > 1e15 || std::fabs(out.high) > 1e15)
          fail(name, "int bounds must lie within +-1e15");
      }
      if (!(out.low < out.high) && !(out.kind == ParamKind::Int && out.low == out.high))
        fail(name, "low must be below high, got " + value.dump());
      if (out.log && out.low <= 0)
        fail(name, "a log scale needs low > 0, got " + value.dump() + "; drop \"log\" or raise low");
      break;
    }
    case ParamKind::Number: {
      if (value.empty()) fail(name, "\"value\" lists no numbers");
      std::set<double> seen;
      for (const auto& v : value) {
        const double x = finite_number(v, name, "every listed value");
        if (!seen.insert(x).second) fail(name, "lists " + v.dump() + " twice");
        out.numbers.push_back(x);
      }
      break;
    }
    case ParamKind::Choice: {
      if (value.empty()) fail(name, "\"value\" lists no choices");
      std::set<std::string> seen;
      for (const auto& v : value) {
        if (!v.is_string())
          fail(name, "choices must be strings, got " + v.dump() + "; use type \"number\" for numbers");
        if (!seen.insert(v.get<std::string>()).second) fail(name, "lists " + v.dump() + " twice");
        out.choices.push_back(v.get<std::string>());
      }
      break;
    }
  }
  return out;
}

// "when": {"parent": [values...]} (a single value may stand for a list of one).
std::vector<Condition> parse_when(const json& when, const std::string& name,
                                  const std::vector<Parameter>& earlier) {
  const std::string example = "e.g. \"when\": {\"optimizer\": [\"sgd\"]}";
  if (!when.is_object() || when.empty())
    fail(name, "\"when\" must be an object naming a parameter and the values it must take, " + example);
  std::vector<Condition> out;
  for (const auto& [parent_name, values] : when.items()) {
    std::size_t at = earlier.size();
    for (std::size_t i = 0; i < earlier.size(); ++i)
      if (earlier[i].name == parent_name) at = i;
    if (at == earlier.size()) {
      if (parent_name == name) fail(name, "\"when\" names the parameter itself");
      fail(name, "\"when\" names '" + parent_name +
                     "', which is not a parameter listed before this one; list a parameter before those that "
                     "depend on it");
    }
    const Parameter& parent = earlier[at];
    if (parent.kind == ParamKind::Bound)
      fail(name, "\"when\" names '" + parent_name +
                     "', a bound (continuous) parameter; a condition needs a parent with listed values: "
                     "choice, number or int");
    const json list = values.is_array() ? values : json::array({values});
    if (list.empty())
      fail(name, "\"when\": '" + parent_name + "' lists no values, so the parameter would never exist");
    Condition c;
    c.parent = at;
    for (const auto& v : list) {
      ParamValue pv;
      if (parent.kind == ParamKind::Choice) {
        if (!v.is_string())
          fail(name,
               "\"when\": '" + parent_name + "' is a choice; give its values as strings, not " + v.dump());
        pv = v.get<std::string>();
      } else if (!v.is_number()) {
        fail(name, "\"when\": '" + parent_name + "' takes numbers, not " + v.dump());
      } else if (parent.kind == ParamKind::Int) {
        if (v.get<double>() != std::floor(v.get<double>()) || std::fabs(v.get<double>()) > 1e15)
          fail(name, "\"when\": " + v.dump() + " is not a value of '" + parent_name + "'");
        pv = static_cast<std::int64_t>(v.get<double>());
      } else {
        pv = v.get<double>();
      }
      try {
        parent.encode(pv);
      } catch (const SpaceError&) {
        fail(name, "\"when\": " + v.dump() + " is not a value of '" + parent_name + "'");
      }
      c.values.push_back(std::move(pv));
    }
    out.push_back(std::move(c));
  }
  return out;
}

double clamp01(double u) {
  return std::isnan(u) ? 0.0 : std::clamp(u, 0.0, 1.0);
}

// Index of bin u in n equal bins of [0,1].
std::size_t bin_of(double u, std::size_t n) {
  return std::min(n - 1, static_cast<std::size_t>(clamp01(u) * static_cast<double>(n)));
}
double bin_centre(std::size_t k, std::size_t n) {
  return (static_cast<double>(k) + 0.5) / static_cast<double>(n);
}

}  // namespace

std::string_view kind_name(ParamKind kind) {
  switch (kind) {
    case ParamKind::Bound: return "bound";
    case ParamKind::Int: return "int";
    case ParamKind::Number: return "number";
    case ParamKind::Choice: return "choice";
  }
  return "?";
}

std::size_t Parameter::cardinality() const {
  switch (kind) {
    case ParamKind::Bound: return 0;
    case ParamKind::Int: return static_cast<std::size_t>(high - low) + 1;
    case ParamKind::Number: return numbers.size();
    case ParamKind::Choice: return choices.size();
  }
  return 0;
}

// Integers are spread over [low-0.5, high+0.5] so each one owns an equal
// share of [0,1] (or of its log range), and the ends are not half as likely.
ParamValue Parameter::decode(double u) const {
  u = clamp01(u);
  switch (kind) {
    case ParamKind::Bound: {
      const double x =
          log ? std::exp(std::log(low) + u * (std::log(high) - std::log(low))) : low + u * (high - low);
      return std::clamp(x, low, high);
    }
    case ParamKind::Int: {
      const double lo = low - 0.5, hi = high + 0.5;
      const double x = log ? std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo))) : lo + u * (hi - lo);
      return static_cast<std::int64_t>(std::clamp(std::round(x), low, high));
    }
    case ParamKind::Number: return numbers[bin_of(u, numbers.size())];
    case ParamKind::Choice: return choices[bin_of(u, choices.size())];
  }
  return 0.0;
}

double Parameter::encode(const ParamValue& value) const {
  if (is_absent(value)) fail(name, "has no value");
  auto as_double = [&]() -> double {
    if (const auto* d = std::get_if<double>(&value)) return *d;
    if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
    fail(name, "expected a number, got \"" + std::get<std::string>(value) + "\"");
  };
  switch (kind) {
    case ParamKind::Bound: {
      const double x = as_double();
      if (!(x >= low && x <= high))
        fail(name, to_string(value) + " lies outside [" + to_string(low) + ", " + to_string(high) + "]");
      return log ? (std::log(x) - std::log(low)) / (std::log(high) - std::log(low))
                 : (x - low) / (high - low);
    }
    case ParamKind::Int: {
      const double x = as_double();
      if (x != std::floor(x) || x < low || x > high)
        fail(name, to_string(value) + " is not an integer in " + to_string(low) + ".." + to_string(high));
      const double lo = low - 0.5, hi = high + 0.5;
      // The centre of x's share of the range, so decode(encode(x)) == x.
      if (log) {
        const double a = (std::log(x - 0.5) - std::log(lo)) / (std::log(hi) - std::log(lo));
        const double b = (std::log(x + 0.5) - std::log(lo)) / (std::log(hi) - std::log(lo));
        return (a + b) / 2;
      }
      return (x - lo) / (hi - lo);
    }
    case ParamKind::Number: {
      const double x = as_double();
      const auto it = std::find(numbers.begin(), numbers.end(), x);
      if (it == numbers.end()) fail(name, to_string(value) + " is not one of the listed numbers");
      return bin_centre(static_cast<std::size_t>(it - numbers.begin()), numbers.size());
    }
    case ParamKind::Choice: {
      const auto* s = std::get_if<std::string>(&value);
      if (!s) fail(name, "expected one of the listed strings, got " + to_string(value));
      const auto it = std::find(choices.begin(), choices.end(), *s);
      if (it == choices.end()) fail(name, "\"" + *s + "\" is not one of the listed choices");
      return bin_centre(static_cast<std::size_t>(it - choices.begin()), choices.size());
    }
  }
  return 0.0;
}

SearchSpace SearchSpace::parse(std::string_view json_text, std::string_view source) {
  json doc;
  try {
    doc = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& e) {
    // e.byte is one past the offending character.
    const std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    const auto cut = what.find("syntax error");
    throw SpaceError(std::string(source) + ": invalid JSON at " + position_of(json_text, at) + ": " +
                     (cut == std::string::npos ? what : what.substr(cut)));
  }
  try {
    return from_json(doc);
  } catch (const SpaceError& e) {
    throw SpaceError(std::string(source) + ": " + e.what());
  }
}

SearchSpace SearchSpace::from_json(const json& doc) {
  if (!doc.is_object() || !doc.contains("parameters") || !doc["parameters"].is_array())
    throw SpaceError(
        "expected an object with a \"parameters\" array, e.g. "
        "{\"parameters\": [{\"name\": \"lr\", \"type\": \"bound\", \"value\": [0.001, 0.1]}]}");
  SearchSpace space;
  const json& params = doc["parameters"];
  if (params.empty()) throw SpaceError("\"parameters\" is empty: a study needs at least one parameter");
  std::set<std::string> names;
  for (std::size_t i = 0; i < params.size(); ++i) {
    Parameter p = parse_parameter(params[i], i);
    if (!names.insert(p.name).second) fail(p.name, "is defined twice");
    if (params[i].contains("when")) {
      p.when = parse_when(params[i]["when"], p.name, space.params_);
      space.conditional_ = true;
    }
    space.params_.push_back(std::move(p));
  }
  return space;
}

const Parameter& SearchSpace::at(std::string_view name) const {
  for (const auto& p : params_)
    if (p.name == name) return p;
  throw SpaceError("no parameter named '" + std::string(name) + "' in the search space");
}

std::optional<std::size_t> SearchSpace::index_of(std::string_view name) const {
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (params_[i].name == name) return i;
  return std::nullopt;
}

std::vector<bool> SearchSpace::active(const std::vector<ParamValue>& values) const {
  std::vector<bool> on(params_.size(), true);
  if (!conditional_) return on;
  for (std::size_t i = 0; i < params_.size(); ++i)
    for (const auto& c : params_[i].when)
      if (!on[c.parent] || c.parent >= values.size() ||
          std::find(c.values.begin(), c.values.end(), values[c.parent]) == c.values.end()) {
        on[i] = false;
        break;
      }
  return on;
}

std::vector<ParamValue> SearchSpace::prune_inactive(std::vector<ParamValue> values) const {
  if (!conditional_) return values;
  const auto on = active(values);
  for (std::size_t i = 0; i < values.size() && i < on.size(); ++i)
    if (!on[i]) values[i] = std::monostate{};
  return values;
}

std::string SearchSpace::condition_text(std::size_t index) const {
  std::string out;
  for (const auto& c : params_.at(index).when) {
    out += out.empty() ? "exists only when " : " and ";
    out += params_[c.parent].name + " is ";
    for (std::size_t k = 0; k < c.values.size(); ++k)
      out += (k == 0 ? "" : k + 1 == c.values.size() ? " or " : ", ") + tune::to_string(c.values[k]);
  }
  return out;
}

void SearchSpace::check(const std::vector<ParamValue>& values, const std::string& where) const {
  if (values.size() != params_.size())
    throw SpaceError(where + ": " + std::to_string(values.size()) + " values for " +
                     std::to_string(params_.size()) + " parameters");
  const auto on = active(values);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (on[i] && is_absent(values[i]))
      throw SpaceError(
          where + ": parameter '" + params_[i].name + "' has no value" +
          (params_[i].when.empty() ? std::string() : " (it " + condition_text(i) + ", which holds here)"));
    if (!on[i] && !is_absent(values[i]))
      throw SpaceError(where + ": parameter '" + params_[i].name + "' " + condition_text(i) +
                       ", which does not hold here; leave it out");
    if (on[i]) {
      try {
        params_[i].encode(values[i]);
      } catch (const SpaceError& e) {
        throw SpaceError(where + ": " + e.what());
      }
    }
  }
}

json SearchSpace::to_json() const {
  json params = json::array();
  for (const auto& p : params_) {
    json e = {{"name", p.name}, {"type", std::string(kind_name(p.kind))}};
    switch (p.kind) {
      case ParamKind::Bound: e["value"] = {p.low, p.high}; break;
      case ParamKind::Int:
        e["value"] = {static_cast<std::int64_t>(p.low), static_cast<std::int64_t>(p.high)};
        break;
      case ParamKind::Number: e["value"] = p.numbers; break;
      case ParamKind::Choice: e["value"] = p.choices; break;
    }
    if (p.log) e["log"] = true;
    if (!p.when.empty()) {
      json when = json::object();
      for (const auto& c : p.when) {
        json values = json::array();
        for (const auto& v : c.values) values.push_back(tune::to_json(v));
        when[params_[c.parent].name] = std::move(values);
      }
      e["when"] = std::move(when);
    }
    params.push_back(std::move(e));
  }
  return {{"parameters", std::move(params)}};
}

std::string to_string(const ParamValue& value) {
  if (is_absent(value)) return {};
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, std::get<double>(value));
  return std::string(buf, r.ptr);
}

json to_json(const ParamValue& value) {
  return std::visit(
      [](const auto& v) {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
          return json(nullptr);
        else
          return json(v);
      },
      value);
}

}  // namespace tune
