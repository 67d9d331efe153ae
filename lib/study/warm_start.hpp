// SPDX-License-Identifier: GPL-2.0-or-later
// Warm starts: what a new study knows before its first trial.
//
// --enqueue FILE: parameter sets the user wants run first (known-good
// settings, a colleague's defaults), a JSON list of objects that name every
// parameter of the space, each value checked against it.
// --warm-start OLD.h5: the finished trials of an earlier study (ok and
// pruned) whose parameters all belong to the new space; they are recorded at
// the start of the new history, marked as imported, and the samplers learn
// from them without running them again.
//
// Both are fixed when the study is created (the history keeps them: the
// attributes "enqueued" and "imported"): trial ids 0..imported-1 are the
// imported trials, the next enqueued.size() ids the enqueued sets, and the
// sampler's own proposals are numbered from 0 after them, so a grid or an
// initial design starts at its first point.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "history/history.hpp"
#include "search/sampler.hpp"

namespace tune {

// Bad input in an --enqueue file or a --warm-start history: the message names
// the file, the entry and the parameter, and says what to change.
class WarmStartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The parameter sets of an --enqueue file's text (`source` names it).
std::vector<Assignment> parse_enqueued(const std::string& json_text, const SearchSpace& space,
                                       const std::string& source);
// The sets of the --enqueue file at `path`; with `trials`, more sets than
// that is an error (enqueued trials count towards --trials).
std::vector<Assignment> read_enqueued(const std::string& path, const SearchSpace& space,
                                      std::optional<std::uint64_t> trials = std::nullopt);
// The same sets as JSON (the history's "enqueued" attribute), and back.
std::string enqueued_to_json(const std::vector<Assignment>& sets, const SearchSpace& space);
std::vector<Assignment> enqueued_from_json(const std::string& json_text, const SearchSpace& space);

struct Imported {
  std::vector<Trial> trials;  // ids 0.., ready to record; messages say where they came from
  std::size_t skipped = 0;    // finished trials whose parameters are outside the new space
  std::string why_skipped;    // the first such trial and why, for the message
};
// The finished ok and pruned trials of `old` whose every parameter of `space`
// is there (by name) with a value of the new space. Throws WarmStartError
// when the two studies optimise in opposite directions, have other named
// objectives (`objectives`: the new study's, empty for one objective=), or
// the old space lacks a parameter of the new one.
Imported import_trials(const HistorySnapshot& old, const std::string& old_path, const SearchSpace& space,
                       bool minimize, const std::vector<ObjectiveSpec>& objectives = {});

}  // namespace tune
