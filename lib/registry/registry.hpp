// SPDX-License-Identifier: GPL-2.0-or-later
// One shape for every kind of policy tune picks by name: samplers, pruners,
// placements, estimators, orderings, priority policies. A kind is a list of
// {name, aliases, one-line description, factory}; adding a policy is its
// class and one entry, and the shared tests (tests/unit/*/*_registry_test.cpp)
// run over every entry. Header-only: the plugins link parts of lib/ alone.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tune {

// A name that no entry of a kind carries. what() names the kind, the name
// and every choice, so a flag's handler can pass it on as it is.
struct UnknownName : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

template <class Factory>
struct RegistryEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;  // one line, for --help and the manual
  Factory make;
};

// `Entry` has name, aliases and description (RegistryEntry<Factory>, or a
// kind's own struct when its entries say more, as samplers' do).
template <class Entry>
class Registry {
 public:
  // `kind` as a message names it: "search algorithm", "placement policy".
  Registry(std::string kind, std::vector<Entry> entries)
      : kind_(std::move(kind)), entries_(std::move(entries)) {}

  const std::string& kind() const { return kind_; }
  const std::vector<Entry>& entries() const { return entries_; }

  // The entry a name or alias stands for, or nullptr.
  const Entry* find(std::string_view name) const {
    for (const auto& e : entries_)
      if (e.name == name || std::find(e.aliases.begin(), e.aliases.end(), name) != e.aliases.end()) return &e;
    return nullptr;
  }
  bool contains(std::string_view name) const { return find(name) != nullptr; }

  // The entry, or UnknownName listing the choices.
  const Entry& at(std::string_view name) const {
    if (const Entry* e = find(name)) return *e;
    throw UnknownName(unknown(name));
  }

  // The one message for a name no entry carries.
  std::string unknown(std::string_view name) const {
    return "unknown " + kind_ + " '" + std::string(name) + "'; choose one of: " + choices();
  }

  // The names in the registry's order (aliases not included).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(entries_.size());
    for (const auto& e : entries_) out.push_back(e.name);
    return out;
  }

  // "fifo, multifactor (or fairshare), tune": for messages and --help.
  std::string choices() const {
    std::string out;
    for (const auto& e : entries_) {
      if (!out.empty()) out += ", ";
      out += e.name;
      for (std::size_t i = 0; i < e.aliases.size(); ++i) out += (i == 0 ? " (or " : ", ") + e.aliases[i];
      if (!e.aliases.empty()) out += ")";
    }
    return out;
  }

 private:
  std::string kind_;
  std::vector<Entry> entries_;
};

}  // namespace tune
