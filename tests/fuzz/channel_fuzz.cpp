// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target: the frames of the trial-jobs channel, as any user who
// reaches the AppCore's port may send them. The input is frames, one per
// line. Its first byte chooses who sends them:
//   even: a stranger, from the first frame on, to the AppCore's end. Checks:
//         nothing throws, nothing passes as a hello or a message (the
//         stranger has not the key), and a refused connection stays refused.
//   odd:  a trial job that proved itself: each frame is sealed by a real
//         trial job's end, so it reaches the AppCore's message decoding
//         (wire::from_frame, wire::deliver) and, sealed by the AppCore's end,
//         the trial job's. Checks: nothing throws out of either.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "trial/messages.hpp"
#include "trial_jobs/channel_handshake.hpp"

using namespace tune;
using nlohmann::json;

namespace {

struct Core : wire::AppCoreInbox {
  void ready(const json&) override {}
  void report(std::uint64_t, const Report&) override {}
  void result(const TrialRun&) override {}
  void malformed(wire::Kind, const std::string&) override {}
};
struct Runner : wire::RunnerInbox {
  void launch(TrialLaunch) override {}
  void stop() override {}
  void interrupt(std::optional<std::uint64_t>) override {}
  void prune(std::uint64_t) override {}
  void malformed(wire::Kind, const std::string&) override {}
};

std::vector<std::string> lines(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> out(1);
  for (std::size_t i = 1; i < size; ++i) {
    if (data[i] == '\n')
      out.emplace_back();
    else
      out.back() += static_cast<char>(data[i]);
  }
  return out;
}

const ChannelKey& key() {
  static const ChannelKey k(std::string(64, '7'));
  return k;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  NonceLog seen;
  AppCoreEnd core(key(), seen);
  const auto frames = lines(data, size);
  if (data[0] % 2 == 0) {
    bool refused = false;
    for (const auto& f : frames) {
      const ChannelStep s = core.on_frame(f);
      if (s.hello || s.message) std::abort();   // a stranger got through
      if (refused && !s.refused) std::abort();  // a refused connection came back
      refused = refused || s.refused.has_value();
    }
    return 0;
  }
  TrialJobEnd job(key(), {{"job", 12}, {"host", "node1"}});
  ChannelStep s = core.on_frame(job.first_frame());
  if (s.send.size() != 1) std::abort();
  s = job.on_frame(s.send[0]);
  if (s.send.size() != 1) std::abort();
  s = core.on_frame(s.send[0]);
  if (!s.hello || s.send.size() != 1) std::abort();
  if (!job.on_frame(s.send[0]).welcomed) std::abort();
  for (const auto& f : frames) {
    // Each line, as a trial job's message and as the AppCore's.
    const json body = json::parse(f, nullptr, false);
    const json message = body.is_discarded() ? json{{"type", f}} : body;
    const auto sealed = job.seal(message);
    const auto sealed_back = core.seal(message);
    if (!sealed || !sealed_back) std::abort();
    const ChannelStep at_core = core.on_frame(*sealed);
    if (at_core.refused) return 0;  // a message the channel does not carry: that connection ends
    if (at_core.message)
      if (const auto m = wire::from_frame(*at_core.message)) {
        Core inbox;
        wire::deliver(*m, inbox);
      }
    const ChannelStep at_job = job.on_frame(*sealed_back);
    if (at_job.refused) return 0;
    if (at_job.message)
      if (const auto m = wire::from_frame(*at_job.message)) {
        Runner inbox;
        wire::deliver(*m, inbox);
      }
  }
  return 0;
}
