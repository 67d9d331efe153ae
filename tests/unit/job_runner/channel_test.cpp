// SPDX-License-Identifier: GPL-2.0-or-later
// The trial-jobs channel (job_runner/channel): its framing (4-byte
// big-endian length, one JSON object), both ends proving they hold the
// secret in the channel file without sending it, and what it does with peers
// that break the rules, attackers among them. Real TCP on the loopback, one
// thread: the server handles what arrived when polled.
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
#include <thread>

#include "tests/unit/temp_dir.hpp"
#include "trial_jobs/channel_handshake.hpp"

namespace tune {
namespace {

using nlohmann::json;

class ChannelTest : public testing_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    port_ = server_.listen(0);
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    address_ = {name, {}, port_, secret_, 0, ""};  // this host's: the client adds 127.0.0.1
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
  // One frame from a raw connection (blocking, in a thread of the test's own
  // while this one polls the server); empty when the server closed it.
  static std::string read_frame(int fd) {
    unsigned char h[4];
    if (::recv(fd, h, 4, MSG_WAITALL) != 4) return "";
    const std::uint32_t n = (std::uint32_t(h[0]) << 24) | (h[1] << 16) | (h[2] << 8) | h[3];
    std::string body(n, '\0');
    if (n && ::recv(fd, body.data(), n, MSG_WAITALL) != static_cast<ssize_t>(n)) return "";
    return body;
  }
  static void send_text(int fd, const std::string& body) {
    send_frame(fd, body, static_cast<std::uint32_t>(body.size()));
  }
  // Runs `peer` in a thread while this one polls the server; its result.
  // The server's events meanwhile are kept in `seen_`.
  template <class F>
  auto beside_server(F peer) {
    auto done = std::async(std::launch::async, peer);
    while (done.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready)
      for (auto& e : server_.poll(0.02)) seen_.push_back(std::move(e));
    return done.get();
  }
  bool logged(const std::string& part) const {
    for (const auto& l : log_)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }

  std::string secret_ = random_secret();
  std::vector<std::string> log_;
  std::vector<ChannelServer::Event> seen_;
  ChannelServer server_{secret_, [this](const std::string& m) { log_.push_back(m); }};
  int port_ = 0;
  ChannelAddress address_;
};

TEST_F(ChannelTest, BothEndsProveThemselvesAndTheSecretNeverCrossesTheWire) {
  ChannelClient client;
  auto ev = connect(client, address_, {{"job", 17}, {"host", "node3"}});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, ChannelServer::Event::Hello);
  EXPECT_EQ(ev[0].body.at("job"), 17);
  EXPECT_EQ(ev[0].body.at("host"), "node3");
  EXPECT_FALSE(ev[0].body.contains("secret"));
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

TEST_F(ChannelTest, WhatATrialJobSendsFirstHoldsNoSecretAndProvesItsJob) {
  const ChannelKey key(secret_);
  TrialJobEnd end(key, {{"job", 5}});
  const std::string first = end.first_frame();
  EXPECT_EQ(first.find(secret_), std::string::npos);
  const auto hello = json::parse(first);
  EXPECT_EQ(hello.at("job"), 5);
  EXPECT_EQ(hello.at("tag"), key.hello_tag(hello.at("nonce").get<std::string>(), 5));
  // Another job number under the same tag is refused.
  json forged = hello;
  forged["job"] = 6;
  const int fd = raw();
  const std::string answer = beside_server([&] {
    send_text(fd, forged.dump());
    return read_frame(fd);
  });
  EXPECT_EQ(answer, "");
  EXPECT_TRUE(logged("a hello not made with the channel's secret"));
  ::close(fd);
}

TEST_F(ChannelTest, AClientWithoutTheSecretIsRefusedAndLogged) {
  ChannelClient client;
  ChannelAddress forged = address_;
  forged.secret = random_secret();
  std::vector<ChannelServer::Event> ev;
  EXPECT_THROW(ev = connect(client, forged, {{"job", 1}}), ChannelError);
  for (auto& e : events(1, 0.5)) ev.push_back(std::move(e));
  for (const auto& e : ev) EXPECT_NE(e.kind, ChannelServer::Event::Hello);
  EXPECT_EQ(server_.refused(), 1u);
  EXPECT_TRUE(logged("not made with the channel's secret"));
}

TEST_F(ChannelTest, AReplayedHelloGetsNoFurtherThanItsFirstChallenge) {
  const ChannelKey key(secret_);
  const TrialJobEnd end(key, {{"job", 9}});
  const std::string hello = end.first_frame();
  const int first = raw(), again = raw();
  const auto answers = beside_server([&] {
    send_text(first, hello);
    std::string a = read_frame(first);
    send_text(again, hello);  // as a squatter that saw it would
    return std::make_pair(a, read_frame(again));
  });
  EXPECT_EQ(json::parse(answers.first).at("type"), "challenge");
  EXPECT_EQ(answers.second, "");
  EXPECT_TRUE(logged("a hello seen before (replayed)"));
  // The challenge answered without the session key: refused, no hello event.
  const auto closed = beside_server([&] {
    send_text(first, json{{"type", "hello"}, {"job", 9}}.dump());
    return read_frame(first);
  });
  EXPECT_EQ(closed, "");
  for (const auto& e : events(1, 0.3)) EXPECT_NE(e.kind, ChannelServer::Event::Hello);
  EXPECT_TRUE(logged("no proof of the channel's secret"));
  ::close(first);
  ::close(again);
}

TEST_F(ChannelTest, AFrameNotSealedWithTheSessionKeyClosesThatConnectionOnly) {
  ChannelClient client;
  auto ev = connect(client, address_, {{"job", 3}});
  ASSERT_EQ(ev.size(), 1u);
  // A raw peer that proves itself, then sends a frame with a wrong seal.
  const ChannelKey key(secret_);
  TrialJobEnd end(key, {{"job", 4}});
  const int fd = raw();
  const bool welcomed = beside_server([&] {
    send_text(fd, end.first_frame());
    for (int i = 0; i < 2; ++i) {
      const auto step = end.on_frame(read_frame(fd));
      for (const auto& f : step.send) send_text(fd, f);
      if (step.welcomed) return true;
    }
    return false;
  });
  ASSERT_TRUE(welcomed);
  ASSERT_EQ(seen_.size(), 1u);
  EXPECT_EQ(seen_[0].kind, ChannelServer::Event::Hello);
  send_text(fd, std::string(64, '0') + json{{"type", "ready"}}.dump());
  ev = events(1);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, ChannelServer::Event::Closed);
  EXPECT_TRUE(logged("not sealed with this connection's key"));
  ::close(fd);
  // The first client goes on.
  client.send({{"type", "ready"}});
  ev = events(1);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, ChannelServer::Event::Message);
}

TEST_F(ChannelTest, AServerThatCannotProveItselfGetsNothingRunAndIsNamed) {
  // A squatter on the AppCore's port: answers a hello as today's tune did
  // (welcome), or with a challenge it cannot sign.
  for (const std::string& answer :
       {json{{"type", "welcome"}}.dump(),
        json{{"type", "challenge"}, {"nonce", std::string(64, 'a')}, {"tag", std::string(64, 'b')}}.dump()}) {
    const int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(::listen(listener, 1), 0);
    socklen_t len = sizeof a;
    getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
    std::string heard;
    std::thread squatter([&] {
      const int c = accept(listener, nullptr, nullptr);
      heard = read_frame(c);
      send_text(c, answer);
      read_frame(c);  // whatever comes next, until the job closes
      ::close(c);
    });
    ChannelAddress at = address_;
    at.port = ntohs(a.sin_port);
    ChannelClient client;
    try {
      client.connect(at, {{"job", 7}}, 2);
      ADD_FAILURE() << "connected to a server without the secret";
    } catch (const ChannelError& e) {
      EXPECT_NE(std::string(e.what()).find("did not"), std::string::npos) << e.what();
    }
    squatter.join();
    ::close(listener);
    EXPECT_EQ(heard.find(secret_), std::string::npos) << heard;
    EXPECT_FALSE(client.connected());
  }
}

TEST_F(ChannelTest, FramesOfWrongTypesAndShapesAreRefusedAndTheServerGoesOn) {
  std::string deep(200, '[');
  deep += std::string(200, ']');
  const std::vector<std::string> frames = {
      "not json at all",
      R"({"type": 1})",
      R"({"type": null, "secret": 5})",
      R"({"type": "hello", "secret": "old tune"})",
      R"({"type": "hello", "version": "2", "job": 1})",
      R"({"type": "hello", "version": 2, "job": "seven", "nonce": ")" + std::string(64, 'a') +
          R"(", "tag": ""})",
      R"({"type": "hello", "version": 2, "job": 4294967297, "nonce": ")" + std::string(64, 'a') +
          R"(", "tag": ""})",
      R"({"type": "hello", "version": 2, "job": -1, "nonce": ")" + std::string(64, 'a') + R"(", "tag": ""})",
      R"({"type": "hello", "version": 2, "job": 1, "nonce": ["x"], "tag": 3})",
      R"({"type": "hello", "version": 2, "job": 1.5e300, "nonce": 1})",
      R"({"a": )" + deep + "}",
      "[1, 2, 3]",
      R"({"type": "ready"})",
  };
  std::vector<int> fds;
  for (const auto& f : frames) {
    fds.push_back(raw());
    send_text(fds.back(), f);
  }
  const int huge = raw();
  send_frame(huge, "", static_cast<std::uint32_t>(kStrangerFrame + 1));
  events(frames.size() + 1, 2);
  EXPECT_EQ(server_.refused(), frames.size() + 1);
  EXPECT_TRUE(logged("its first message is not a hello"));
  EXPECT_LE(log_.size(), 5u);  // the rest counted, at a bounded rate
  for (int fd : fds) ::close(fd);
  ::close(huge);
  // The server goes on: a proper client still gets through.
  ChannelClient client;
  const auto ev = connect(client, address_, {{"job", 2}});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, ChannelServer::Event::Hello);
}

TEST_F(ChannelTest, TwoHostsHoldingIdleConnectionsDoNotKeepAnotherHostsTrialJobOut) {
  // 127.0.0.3 and 127.0.0.4 open 48 connections each and say nothing, three
  // times an address's share of the room (16); the places they lose take a
  // few lines of the AppCore's output, not one each.
  std::vector<int> idle;
  for (int i = 0; i < 48; ++i) {
    idle.push_back(raw("127.0.0.3"));
    idle.push_back(raw("127.0.0.4"));
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (server_.refused() < 64 && std::chrono::steady_clock::now() < until) server_.poll(0.05);
  EXPECT_EQ(server_.refused(), 64u);  // 96 came, 16 places each
  EXPECT_TRUE(logged("let go unheard to make room for a newer connection"));
  EXPECT_LE(log_.size(), 5u);
  // A trial job from another address gets in while they are held.
  ChannelClient client;
  const auto ev = connect(client, address_, {{"job", 3}});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, ChannelServer::Event::Hello);
  EXPECT_EQ(ev[0].peer.rfind("127.0.0.1:", 0), 0u) << ev[0].peer;
  for (int fd : idle) ::close(fd);
}

TEST_F(ChannelTest, LoopbackIsTriedOnlyOnTheAppCoresOwnHost) {
  ChannelAddress a;
  a.host = "core1";
  a.addresses = {"10.1.0.5", "127.0.0.1"};  // an older AppCore listed loopback too
  EXPECT_EQ(channel_endpoints(a, "node7"), std::vector<std::string>{"10.1.0.5"});
  EXPECT_EQ(channel_endpoints(a, "core1"), (std::vector<std::string>{"10.1.0.5", "127.0.0.1"}));
  EXPECT_EQ(channel_endpoints(a, ""), std::vector<std::string>{"10.1.0.5"});
  for (const auto& ip : local_ipv4_addresses()) EXPECT_NE(ip.rfind("127.", 0), 0u) << ip;
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
  EXPECT_EQ(back.host, address_.host);
  EXPECT_EQ(back.job, 4242u);
  EXPECT_EQ(back.jobs_file, file("s.jobs"));
  try {
    read_channel_file(file("missing.channel"));
    ADD_FAILURE();
  } catch (const ChannelError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read the channel file " + file("missing.channel")),
              std::string::npos);
  }
  auto refused = [&](const std::string& path, const std::string& part) {
    try {
      read_channel_file(path);
      ADD_FAILURE() << path << " was believed";
    } catch (const ChannelError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  // Open to others (a group-writable directory's swap), a link, another's file: not believed.
  write_channel_file(file("open.channel"), address_);
  ASSERT_EQ(chmod(file("open.channel").c_str(), 0640), 0);
  refused(file("open.channel"), "is open to other users (mode 0640");
  ASSERT_EQ(symlink(file("s.channel").c_str(), file("link.channel").c_str()), 0);
  refused(file("link.channel"), "is a symbolic link");
  if (geteuid() == 0) {
    write_channel_file(file("theirs.channel"), address_);
    ASSERT_EQ(chown(file("theirs.channel").c_str(), 65534, 65534), 0);
    refused(file("theirs.channel"), "belongs to uid 65534");
  }
  std::ofstream(file("bad.channel")) << R"({"host": "h", "port": 99999, "secret": "short"})";
  ASSERT_EQ(chmod(file("bad.channel").c_str(), 0600), 0);
  EXPECT_THROW(read_channel_file(file("bad.channel")), ChannelError);
  std::ofstream(file("torn.channel")) << R"({"host": )";
  ASSERT_EQ(chmod(file("torn.channel").c_str(), 0600), 0);
  try {
    read_channel_file(file("torn.channel"));
    ADD_FAILURE();
  } catch (const ChannelError& e) {
    EXPECT_NE(std::string(e.what()).find("is damaged"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tune
