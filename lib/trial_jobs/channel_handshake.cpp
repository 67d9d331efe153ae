// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_jobs/channel_handshake.hpp"

#include "trial_jobs/channel_frame.hpp"

namespace tune {

using nlohmann::json;

namespace {

bool is_nonce(const json& body, const char* key) {
  const auto it = body.find(key);
  if (it == body.end() || !it->is_string()) return false;
  const auto& s = it->get_ref<const std::string&>();
  if (s.size() != 2 * kNonceBytes) return false;
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string text_of(const json& body, const char* key) {
  const auto it = body.find(key);
  return it != body.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A message's text; a string that is not UTF-8 (a program's garbage in a
// report) is sent with U+FFFD in its place, not thrown over.
std::string wire_text(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

ChannelStep refusal(std::string why) {
  ChannelStep s;
  s.refused = std::move(why);
  return s;
}

// A sealed message's text, back to a checked frame.
std::optional<json> unsealed(SealedFrames& sealed, const std::string& frame, std::string& why) {
  const auto text = sealed.open(frame);
  if (!text) {
    why = "a message not sealed with this connection's key (forged, replayed or reordered)";
    return std::nullopt;
  }
  return parse_frame(*text, why);
}

}  // namespace

ChannelStep AppCoreEnd::refuse(std::string why) {
  stage_ = Stage::Closed;
  return refusal(std::move(why));
}

ChannelStep AppCoreEnd::on_frame(const std::string& frame) noexcept {
  try {
    switch (stage_) {
      case Stage::Hello: return hello(frame);
      case Stage::Proof: return proof(frame);
      case Stage::Open: return open(frame);
      case Stage::Closed: return refuse("a message after the connection was refused");
    }
  } catch (const std::exception& e) {
    // A bug's, not the peer's: still it ends this connection, never the AppCore.
    return refuse(std::string("a message that could not be read (") + e.what() + ")");
  }
  return refuse("a message in no known state");
}

ChannelStep AppCoreEnd::hello(const std::string& frame) {
  std::string why;
  const auto body = parse_frame(frame, why);
  if (!body) return refuse("its first message is not a hello: " + why);
  if (text_of(*body, "type") != "hello") return refuse("its first message is not a hello");
  if (body->contains("secret"))
    return refuse(
        "a hello of an older tune, which sends the channel's secret; run the study's trial jobs "
        "with the same tune as its AppCore");
  if (field_or<int>(*body, "version", 0) != kChannelVersion)
    return refuse("a hello of channel version " + std::to_string(field_or<int>(*body, "version", 0)) +
                  " (this AppCore speaks " + std::to_string(kChannelVersion) +
                  "); run the study's trial jobs with the same tune as its AppCore");
  if (!is_nonce(*body, "nonce"))
    return refuse("a hello without a nonce of " + std::to_string(kNonceBytes) + " bytes");
  const auto job = field<std::uint32_t>(*body, "job");
  if (!same_tag(text_of(*body, "tag"), key_.hello_tag(text_of(*body, "nonce"), job)))
    return refuse("a hello not made with the channel's secret");
  client_nonce_ = text_of(*body, "nonce");
  if (!seen_.fresh(client_nonce_)) return refuse("a hello seen before (replayed)");
  job_ = job;
  const std::string nonce = random_hex();
  sealed_.emplace(key_.session(client_nonce_, nonce), SealedFrames::Side::AppCore);
  stage_ = Stage::Proof;
  ChannelStep s;
  s.vouched = true;
  s.send.push_back(
      json{{"type", "challenge"}, {"nonce", nonce}, {"tag", key_.challenge_tag(client_nonce_, nonce)}}
          .dump());
  return s;
}

ChannelStep AppCoreEnd::proof(const std::string& frame) {
  std::string why;
  auto body = unsealed(*sealed_, frame, why);
  if (!body) return refuse("no proof of the channel's secret: " + why);
  if (text_of(*body, "type") != "hello") return refuse("its proof is not a hello");
  // The job is the one the first frame named under the tag; a different one here is refused.
  if (field_or<std::uint32_t>(*body, "job", job_) != job_) return refuse("its proof names another job");
  body->erase("type");
  (*body)["job"] = job_;
  stage_ = Stage::Open;
  ChannelStep s;
  s.hello = std::move(*body);
  s.send.push_back(sealed_->seal(json{{"type", "welcome"}}.dump()));
  return s;
}

ChannelStep AppCoreEnd::open(const std::string& frame) {
  std::string why;
  auto body = unsealed(*sealed_, frame, why);
  if (!body) return refuse(why);
  ChannelStep s;
  s.message = std::move(*body);
  return s;
}

std::optional<std::string> AppCoreEnd::seal(const json& message) {
  if (stage_ != Stage::Open) return std::nullopt;
  return sealed_->seal(wire_text(message));
}

TrialJobEnd::TrialJobEnd(const ChannelKey& key, json hello) : key_(key), hello_(std::move(hello)) {
  if (!hello_.is_object()) hello_ = json::object();
  job_ = field_or<std::uint32_t>(hello_, "job", 0);
}

std::string TrialJobEnd::first_frame() const {
  return json{{"type", "hello"},
              {"version", kChannelVersion},
              {"job", job_},
              {"nonce", nonce_},
              {"tag", key_.hello_tag(nonce_, job_)}}
      .dump();
}

ChannelStep TrialJobEnd::refuse(std::string why) {
  stage_ = Stage::Closed;
  return refusal(std::move(why));
}

ChannelStep TrialJobEnd::on_frame(const std::string& frame) noexcept {
  try {
    std::string why;
    switch (stage_) {
      case Stage::Challenge: {
        const auto body = parse_frame(frame, why);
        if (!body || text_of(*body, "type") != "challenge" || !is_nonce(*body, "nonce"))
          return refuse("its answer is not a challenge" + (why.empty() ? "" : ": " + why));
        const std::string nonce = text_of(*body, "nonce");
        if (!same_tag(text_of(*body, "tag"), key_.challenge_tag(nonce_, nonce)))
          return refuse("it did not prove that it holds the channel's secret");
        sealed_.emplace(key_.session(nonce_, nonce), SealedFrames::Side::TrialJob);
        json hello = hello_;
        hello["type"] = "hello";
        hello["job"] = job_;
        stage_ = Stage::Welcome;
        ChannelStep s;
        s.send.push_back(sealed_->seal(wire_text(hello)));
        return s;
      }
      case Stage::Welcome: {
        const auto body = unsealed(*sealed_, frame, why);
        if (!body || text_of(*body, "type") != "welcome") return refuse("no welcome: " + why);
        stage_ = Stage::Open;
        ChannelStep s;
        s.welcomed = true;
        return s;
      }
      case Stage::Open: {
        auto body = unsealed(*sealed_, frame, why);
        if (!body) return refuse(why);
        ChannelStep s;
        s.message = std::move(*body);
        return s;
      }
      case Stage::Closed: return refuse("a message after the connection was refused");
    }
  } catch (const std::exception& e) {
    return refuse(std::string("a message that could not be read (") + e.what() + ")");
  }
  return refuse("a message in no known state");
}

std::optional<std::string> TrialJobEnd::seal(const json& message) {
  if (stage_ != Stage::Open) return std::nullopt;
  return sealed_->seal(wire_text(message));
}

}  // namespace tune
