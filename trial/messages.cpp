// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial/messages.hpp"

#include <array>
#include <exception>
#include <stdexcept>
#include <utility>

#include "trial/trial_json.hpp"
#include "trial_jobs/channel_frame.hpp"

namespace tune::wire {
namespace {
constexpr std::array<std::string_view, kKinds> kNames = {"ready",  "launch",    "stop",  "report",
                                                         "result", "interrupt", "prune", "bye"};
}

std::string_view kind_name(Kind k) {
  return kNames[static_cast<std::size_t>(k)];
}

std::optional<Kind> kind_of(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<Kind>(i);
  return std::nullopt;
}

std::optional<Kind> kind_of_tag(int tag) {
  if (tag < 1 || tag > kKinds) return std::nullopt;
  return static_cast<Kind>(tag - 1);
}

namespace {
using nlohmann::json;

// The trial a body names, if it names one.
std::optional<std::uint64_t> trial_of(const json& body) {
  if (!body.is_object() || !body.contains("trial")) return std::nullopt;
  return field<std::uint64_t>(body, "trial");
}
std::uint64_t the_trial(const json& body) {
  if (const auto t = trial_of(body)) return *t;
  throw std::invalid_argument("no \"trial\"");
}
}  // namespace

Message ready_message(const json& hello) {
  return {Kind::Ready, hello.is_object() ? hello : json::object()};
}
Message launch_message(const TrialLaunch& launch) {
  return {Kind::Launch, {{"launch", to_json(launch)}}};
}
Message stop_message() {
  return {Kind::Stop, json::object()};
}
Message report_message(std::uint64_t trial, const Report& report) {
  return {Kind::Report, to_json(trial, report)};
}
Message result_message(const TrialRun& run, const std::optional<json>& next) {
  json body = {{"result", to_json(run)}};
  if (next) body["ready"] = *next;
  return {Kind::Result, body};
}
Message interrupt_message(std::optional<std::uint64_t> trial) {
  return {Kind::Interrupt, trial ? json{{"trial", *trial}} : json::object()};
}
Message prune_message(std::uint64_t trial) {
  return {Kind::Prune, {{"trial", trial}}};
}
Message bye_message() {
  return {Kind::Bye, json::object()};
}

std::optional<Message> result_in_hello(const json& hello) {
  if (!hello.is_object() || !hello.contains("result")) return std::nullopt;
  return Message{Kind::Result, {{"result", hello["result"]}}};
}

json to_frame(const Message& m) {
  json frame = m.body.is_object() ? m.body : json::object();
  frame["type"] = kind_name(m.kind);
  return frame;
}

std::optional<Message> from_frame(json frame) {
  if (!frame.is_object() || !frame.contains("type") || !frame["type"].is_string()) return std::nullopt;
  const auto kind = kind_of(frame["type"].get<std::string>());
  if (!kind) return std::nullopt;
  frame.erase("type");
  return Message{*kind, std::move(frame)};
}

// Decodes a body; what goes wrong is named for the inbox's `malformed`, and
// only that: what a handler throws is the handler's.
template <class T, class Decode>
std::optional<T> decoded(const Message& m, Decode decode, std::string& why) {
  try {
    return decode(m.body);
  } catch (const std::exception& e) {
    why = e.what();
    return std::nullopt;
  }
}

void deliver(const Message& m, AppCoreInbox& to) {
  std::string why;
  switch (m.kind) {
    case Kind::Ready: return to.ready(m.body.is_object() ? m.body : json::object());
    case Kind::Report: {
      const auto r = decoded<std::pair<std::uint64_t, Report>>(
          m,
          [](const json& b) {
            const std::uint64_t trial = the_trial(b);  // first: a report names its trial
            return std::make_pair(trial, report_from_json(b));
          },
          why);
      return r ? to.report(r->first, r->second) : to.malformed(m.kind, why);
    }
    case Kind::Result: {
      const auto run = decoded<TrialRun>(
          m, [](const json& b) { return run_from_json(b.at("result")); }, why);
      if (!run) return to.malformed(m.kind, why);
      to.result(*run);
      if (m.body.contains("ready"))  // the runner's next Ready, in the same message
        to.ready(m.body["ready"].is_object() ? m.body["ready"] : json::object());
      return;
    }
    case Kind::Bye: return to.bye();
    case Kind::Launch:
    case Kind::Stop:
    case Kind::Interrupt:
    case Kind::Prune: return;
  }
}

void deliver(const Message& m, RunnerInbox& to) {
  std::string why;
  switch (m.kind) {
    case Kind::Launch: {
      auto launch = decoded<TrialLaunch>(
          m, [](const json& b) { return launch_from_json(b.at("launch")); }, why);
      return launch ? to.launch(std::move(*launch)) : to.malformed(m.kind, why);
    }
    case Kind::Stop: return to.stop();
    case Kind::Interrupt: {
      const auto trial = decoded<std::optional<std::uint64_t>>(m, trial_of, why);
      return trial ? to.interrupt(*trial) : to.malformed(m.kind, why);
    }
    case Kind::Prune: {
      const auto trial = decoded<std::uint64_t>(m, the_trial, why);
      return trial ? to.prune(*trial) : to.malformed(m.kind, why);
    }
    case Kind::Ready:
    case Kind::Report:
    case Kind::Result:
    case Kind::Bye: return;
  }
}

}  // namespace tune::wire
