// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_jobs/channel_proof.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>

namespace tune {

namespace {

std::string hex(const unsigned char* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) s += digits[p[i] >> 4], s += digits[p[i] & 15];
  return s;
}

std::string be64(std::uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((v >> (56 - 8 * i)) & 0xff);
  return s;
}

}  // namespace

std::string random_hex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1)
    throw ChannelProofError("the system's random number generator gave no bytes for the channel");
  return hex(reinterpret_cast<const unsigned char*>(raw.data()), raw.size());
}

bool same_tag(std::string_view a, std::string_view b) {
  return a.size() == b.size() && !a.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string hmac_raw(std::string_view key, std::initializer_list<std::string_view> parts) {
  std::string input;
  for (const auto p : parts) input += be64(p.size()), input += p;
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int n = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(input.data()), input.size(), out.data(), &n))
    throw ChannelProofError("OpenSSL could not compute an HMAC-SHA256");
  return std::string(reinterpret_cast<const char*>(out.data()), n);
}

std::string hmac_hex(std::string_view key, std::initializer_list<std::string_view> parts) {
  const std::string raw = hmac_raw(key, parts);
  return hex(reinterpret_cast<const unsigned char*>(raw.data()), raw.size());
}

std::string ChannelKey::hello_tag(std::string_view client_nonce, std::uint32_t job) const {
  return hmac_hex(secret_, {"tune channel hello", client_nonce, std::to_string(job)});
}

std::string ChannelKey::challenge_tag(std::string_view client_nonce, std::string_view server_nonce) const {
  return hmac_hex(secret_, {"tune channel challenge", client_nonce, server_nonce});
}

std::string ChannelKey::session(std::string_view client_nonce, std::string_view server_nonce) const {
  return hmac_raw(secret_, {"tune channel session", client_nonce, server_nonce});
}

std::string SealedFrames::tag(Side from, std::uint64_t seq, std::string_view text) const {
  return hmac_hex(key_, {from == Side::AppCore ? "appcore" : "trial job", be64(seq), text});
}

std::string SealedFrames::seal(std::string_view text) {
  std::string frame = tag(me_, sent_++, text);
  frame += text;
  return frame;
}

std::optional<std::string> SealedFrames::open(std::string_view frame) {
  if (frame.size() < kTagHex) return std::nullopt;
  const Side from = me_ == Side::AppCore ? Side::TrialJob : Side::AppCore;
  const std::string_view text = frame.substr(kTagHex);
  if (!same_tag(frame.substr(0, kTagHex), tag(from, received_, text))) return std::nullopt;
  ++received_;
  return std::string(text);
}

bool NonceLog::fresh(const std::string& nonce) {
  if (!seen_.insert(nonce).second) return false;
  order_.push_back(nonce);
  if (order_.size() > keep_) {
    seen_.erase(order_.front());
    order_.pop_front();
  }
  return true;
}

}  // namespace tune
