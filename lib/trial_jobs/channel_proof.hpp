// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The proofs of the trial-jobs channel (job_runner/channel). The study's
// AppCore and its trial jobs share a secret that only the study's owner can
// read (the channel file, mode 0600); neither end ever sends it. Each proves
// it holds it by an HMAC-SHA256 over nonces the other end chose fresh:
//   trial job -> AppCore  hello: its job, nonce Nc, tag H(K, "hello", Nc, job)
//   AppCore -> trial job  challenge: nonce Ns, tag H(K, "challenge", Nc, Ns)
// and from then on every frame both ways is sealed under the session key
// H(K, "session", Nc, Ns) with its direction and sequence number, so that a
// peer that relays, replays, reorders or injects frames is found out at the
// first frame it touches. The hello tag lets the AppCore tell a trial job of
// its study from a stranger at the first frame (admission); a replayed hello
// gets no further than the challenge, which only the secret answers.
// Authentication only: the frames are not encrypted (see the admin guide's
// threat model). HMAC and randomness are OpenSSL's.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace tune {

inline constexpr std::size_t kNonceBytes = 32;
inline constexpr std::size_t kTagHex = 64;  // an HMAC-SHA256, as hex

struct ChannelProofError : std::exception {
  explicit ChannelProofError(std::string w) : what_(std::move(w)) {}
  const char* what() const noexcept override { return what_.c_str(); }
  std::string what_;
};

// `bytes` random bytes from the operating system's generator, as hex; throws
// ChannelProofError if it has none to give.
std::string random_hex(std::size_t bytes = kNonceBytes);

// Equal in constant time in the content: a peer learns nothing of a tag
// from how fast a wrong one is refused.
bool same_tag(std::string_view a, std::string_view b);

class ChannelKey {
 public:
  explicit ChannelKey(std::string secret) : secret_(std::move(secret)) {}
  std::string hello_tag(std::string_view client_nonce, std::uint32_t job) const;
  std::string challenge_tag(std::string_view client_nonce, std::string_view server_nonce) const;
  // The session key (raw bytes) both ends derive once the nonces are known.
  std::string session(std::string_view client_nonce, std::string_view server_nonce) const;

 private:
  std::string secret_;
};

// HMAC-SHA256 of `parts` under `key`, each part length-prefixed (no two
// lists of parts give the same input); hex, or raw bytes.
std::string hmac_hex(std::string_view key, std::initializer_list<std::string_view> parts);
std::string hmac_raw(std::string_view key, std::initializer_list<std::string_view> parts);

// Frames of an open channel: the tag of (direction, sequence number, text)
// under the session key, then the text.
class SealedFrames {
 public:
  enum class Side { AppCore, TrialJob };
  SealedFrames(std::string session, Side me) : key_(std::move(session)), me_(me) {}
  std::string seal(std::string_view text);
  // The text of the next frame from the other end, or nothing when its tag
  // is not the one that frame must carry (forged, replayed, reordered).
  std::optional<std::string> open(std::string_view frame);

 private:
  std::string tag(Side from, std::uint64_t seq, std::string_view text) const;
  std::string key_;
  Side me_;
  std::uint64_t sent_ = 0, received_ = 0;
};

// The client nonces an AppCore has seen, the last `keep` of them: a hello
// replayed within them is refused before it costs a challenge.
class NonceLog {
 public:
  explicit NonceLog(std::size_t keep = 4096) : keep_(keep) {}
  // False when `nonce` was seen already; else remembers it.
  bool fresh(const std::string& nonce);

 private:
  std::size_t keep_;
  std::set<std::string> seen_;
  std::deque<std::string> order_;
};

}  // namespace tune
