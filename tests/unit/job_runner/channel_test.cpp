// SPDX-License-Identifier: GPL-2.0-or-later
// The trial-jobs channel (job_runner/channel): its framing (4-byte
// big-endian length, one JSON object), its authentication by the secret in
// the channel file, and what it does with peers that break the rules. Real
// TCP on the loopback, one thread: the server handles what arrived when polled.
#include "job_runner/channel.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>

#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

using nlohmann::json;

class ChannelTest : public testing_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    port_ = server_.listen(0);
    address_ = {"localhost", {"127.0.0.1"}, port_, secret_};
  }
  // Polls the server until `want` events came or `seconds` passed.
  std::vector<ChannelServer::Event> events(std::size_t want, double seconds = 5) {
    std::vector<ChannelServer::Event> all;
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (all.size() < want && std::chrono::steady_clock::now() < until)
      for (auto& e : server_.poll(0.05)) all.push_back(std::move(e));
    return all;
  }
  // Connects `client` (in a thread: it waits for the server's answer) while
  // this thread polls the server; the events that came meanwhile. Throws
  // what connect threw.
  std::vector<ChannelServer::Event> connect(ChannelClient& client, const ChannelAddress& a,
                                            const json& hello) {
    auto done = std::async(std::launch::async, [&] { client.connect(a, hello, 3); });
    std::vector<ChannelServer::Event> all;
    while (done.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready)
      for (auto& e : server_.poll(0.02)) all.push_back(std::move(e));
    done.get();
    return all;
  }
  // A raw TCP connection to the server, for peers that break the rules,
  // from `from` (any address of 127/8 is this host's: another "host").
  int raw(const char* from = nullptr) const {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (from) {
      sockaddr_in src{};
      src.sin_family = AF_INET;
      inet_pton(AF_INET, from, &src.sin_addr);
      EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src), 0);
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    return fd;
  }
  static void send_frame(int fd, const std::string& body, std::uint32_t length) {
    const std::uint32_t n = htonl(length);
    ASSERT_EQ(write(fd, &n, 4), 4);
    if (!body.empty()) {
      ASSERT_EQ(write(fd, body.data(), body.size()), static_cast<ssize_t>(body.size()));
    }
  }
  bool logged(const std::string& part) const {
    for (const auto& l : log_)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }

  std::string secret_ = random_secret();
  std::vector<std::string> log_;
  ChannelServer server_{secret_, [this](const std::string& m) { log_.push_back(m); }};
  int port_ = 0;
  ChannelAddress address_;
};

TEST_F(ChannelTest, AHelloWithTheSecretOpensTheWayBothWays) {
  ChannelClient client;
  auto ev = connect(client, address_, {{"job", 17}, {"host", "node3"}});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, ChannelServer::Event::Hello);
  EXPECT_EQ(ev[0].body.at("job"), 17);
  EXPECT_FALSE(ev[0].body.contains("secret"));  // not handed on
  client.send({{"type", "ready"}});
  ev = events(1);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, ChannelServer::Event::Message);
  EXPECT_EQ(ev[0].body.at("type"), "ready");
  EXPECT_TRUE(server_.send(ev[0].conn, {{"type", "launch"}, {"trial", 4}}));
  server_.poll(0.05);  // writes what was queued
  const auto reply = client.poll(2);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->at("trial"), 4);
  client.close();
  ev = events(1);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, ChannelServer::Event::Closed);
  EXPECT_EQ(server_.refused(), 0u);
}

TEST_F(ChannelTest, AWrongSecretIsRefusedAndLogged) {
  ChannelClient client;
  ChannelAddress forged = address_;
  forged.secret = random_secret();
  std::vector<ChannelServer::Event> ev;
  EXPECT_THROW(ev = connect(client, forged, {{"job", 1}}), ChannelError);
  for (auto& e : events(1, 0.5)) ev.push_back(std::move(e));
  for (const auto& e : ev) EXPECT_NE(e.kind, ChannelServer::Event::Hello);
  EXPECT_EQ(server_.refused(), 1u);
  EXPECT_TRUE(logged("wrong secret"));
}

TEST_F(ChannelTest, GarbageAnOversizedFrameAndAMessageBeforeHelloAreRefused) {
  const int garbage = raw();
  send_frame(garbage, "not json at all", 15);
  const int huge = raw();
  send_frame(huge, "", static_cast<std::uint32_t>(kMaxFrame + 1));
  const int early = raw();
  const std::string ready = json{{"type", "ready"}}.dump();
  send_frame(early, ready, static_cast<std::uint32_t>(ready.size()));
  events(3, 1.5);
  EXPECT_EQ(server_.refused(), 3u);
  EXPECT_TRUE(logged("bytes (the limit is"));
  EXPECT_TRUE(logged("its first message is not a hello"));
  for (int fd : {garbage, huge, early}) ::close(fd);
  // The server goes on: a proper client still gets through.
  ChannelClient client;
  const auto ev = connect(client, address_, {{"job", 2}});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, ChannelServer::Event::Hello);
}

TEST_F(ChannelTest, OneAddressHoldingSixtyFourIdleConnectionsDoesNotKeepAnotherHostsTrialJobOut) {
  // 127.0.0.3 opens 64 connections and says nothing: it may hold 32 of the
  // 64 slots for connections waiting to say hello, and the refusals of the
  // other 32 take a few lines of the AppCore's output, not 32.
  std::vector<int> idle;
  for (int i = 0; i < 64; ++i) idle.push_back(raw("127.0.0.3"));
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (server_.refused() < 32 && std::chrono::steady_clock::now() < until) server_.poll(0.05);
  EXPECT_EQ(server_.refused(), 32u);
  EXPECT_TRUE(logged("32 connections from 127.0.0.3 are already waiting to say hello"));
  EXPECT_LE(log_.size(), 5u);
  // A trial job from another address gets in while they are held.
  ChannelClient client;
  const auto ev = connect(client, address_, {{"job", 3}});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, ChannelServer::Event::Hello);
  EXPECT_EQ(ev[0].peer.rfind("127.0.0.1:", 0), 0u) << ev[0].peer;
  for (int fd : idle) ::close(fd);
}

TEST_F(ChannelTest, TheChannelFileIsTheOwnersAloneAndDamageIsNamed) {
  address_.job = 4242;
  address_.jobs_file = file("s.jobs");
  write_channel_file(file("s.channel"), address_);
  struct stat st {};
  ASSERT_EQ(stat(file("s.channel").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const ChannelAddress back = read_channel_file(file("s.channel"));
  EXPECT_EQ(back.port, port_);
  EXPECT_EQ(back.secret, secret_);
  EXPECT_EQ(back.addresses, address_.addresses);
  EXPECT_EQ(back.job, 4242u);
  EXPECT_EQ(back.jobs_file, file("s.jobs"));
  try {
    read_channel_file(file("missing.channel"));
    ADD_FAILURE();
  } catch (const ChannelError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read the channel file " + file("missing.channel")),
              std::string::npos);
  }
  std::ofstream(file("bad.channel")) << R"({"host": "h", "port": 99999, "secret": "short"})";
  EXPECT_THROW(read_channel_file(file("bad.channel")), ChannelError);
  std::ofstream(file("torn.channel")) << R"({"host": )";
  try {
    read_channel_file(file("torn.channel"));
    ADD_FAILURE();
  } catch (const ChannelError& e) {
    EXPECT_NE(std::string(e.what()).find("is damaged"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tune
