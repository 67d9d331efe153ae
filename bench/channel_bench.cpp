// SPDX-License-Identifier: GPL-2.0-or-later
// What the trial-jobs channel's proofs cost a trial job: N connections, each
// a TCP connect and the whole handshake (hello, challenge, sealed hello,
// welcome: two round trips and five HMAC-SHA256) against a ChannelServer on
// the loopback, then one sealed report. Baseline in the same run: what the
// channel did before it proved both ends, a TCP connect and one round trip
// of a hello frame carrying the secret, answered by a server that reads it
// and compares it, then one plain report frame. Prints the medians, p95s,
// their difference and ratio.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "job_runner/channel.hpp"

using namespace tune;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {

double ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct Spread {
  double median, p95;
};
Spread spread(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 95 / 100)]};
}

bool read_all(int fd, void* p, std::size_t n) {
  auto* c = static_cast<char*>(p);
  while (n) {
    const ssize_t got = ::recv(fd, c, n, 0);
    if (got <= 0) return false;
    c += got, n -= static_cast<std::size_t>(got);
  }
  return true;
}
void send_frame(int fd, const std::string& body) {
  const std::uint32_t n = htonl(static_cast<std::uint32_t>(body.size()));
  std::string f(reinterpret_cast<const char*>(&n), 4);
  f += body;
  (void)::send(fd, f.data(), f.size(), MSG_NOSIGNAL);
}
std::string read_frame(int fd) {
  std::uint32_t n = 0;
  if (!read_all(fd, &n, 4)) return "";
  std::string body(ntohl(n), '\0');
  return read_all(fd, body.data(), body.size()) ? body : "";
}
int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return -1;
  return fd;
}

// The channel before this one: the hello carries the secret; the server parses
// it, compares the secret, answers welcome; then reads report frames.
void old_server(int listener, const std::string& secret, std::atomic<bool>& stop) {
  while (!stop) {
    const int c = ::accept(listener, nullptr, nullptr);
    if (c < 0) continue;
    const int one = 1;
    ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const json hello = json::parse(read_frame(c), nullptr, false);
    if (hello.is_object() && hello.value("secret", "") == secret) {
      send_frame(c, json{{"type", "welcome"}}.dump());
      for (std::string f; !(f = read_frame(c)).empty();) {
        const json message = json::parse(f, nullptr, false);
        if (message.is_discarded()) break;
      }
    }
    ::close(c);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  const std::string secret = random_secret();
  const json report = {
      {"type", "report"}, {"trial", 12}, {"step", 3}, {"metrics", json::array({{"loss", "0.25"}})}};

  // Today's channel: a ChannelServer polled by this thread, clients in another.
  ChannelServer server(secret, [](const std::string&) {});
  const int port = server.listen(0);
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  const ChannelAddress address{name, {}, port, secret, 0, ""};
  std::vector<double> proved;
  std::atomic<bool> done{false};
  std::thread clients([&] {
    for (int i = 0; i < n; ++i) {
      ChannelClient c;
      const auto t0 = Clock::now();
      c.connect(address, {{"job", i + 1}, {"host", "bench"}});
      c.send(report);
      proved.push_back(ms(t0, Clock::now()));
    }
    done = true;
  });
  std::size_t hellos = 0;
  while (!done)
    for (const auto& e : server.poll(0.01)) hellos += e.kind == ChannelServer::Event::Hello;
  clients.join();

  // The baseline: the secret in the hello.
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  socklen_t len = sizeof a;
  ::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::listen(listener, 64);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
  std::atomic<bool> stop{false};
  std::thread old(old_server, listener, secret, std::ref(stop));
  std::vector<double> plain;
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    const int fd = connect_to(ntohs(a.sin_port));
    send_frame(fd, json{{"type", "hello"}, {"secret", secret}, {"job", i + 1}, {"host", "bench"}}.dump());
    (void)read_frame(fd);
    send_frame(fd, report.dump());
    plain.push_back(ms(t0, Clock::now()));
    ::close(fd);
  }
  stop = true;
  ::shutdown(listener, SHUT_RDWR);
  ::close(listener);
  if (const int fd = connect_to(ntohs(a.sin_port)); fd >= 0) ::close(fd);
  old.join();

  const Spread p = spread(proved), b = spread(plain);
  std::printf(
      "channel_bench: %d connections on the loopback, each connect + hello + one report (%zu hellos heard)\n",
      n, hellos);
  std::printf("  proved both ends (HMAC over nonces, sealed frames): median %.3f ms, p95 %.3f ms\n", p.median,
              p.p95);
  std::printf("  baseline, the secret in the hello:                  median %.3f ms, p95 %.3f ms\n", b.median,
              b.p95);
  std::printf("  the proofs add %.3f ms a connection (median), ratio %.2f\n", p.median - b.median,
              p.median / b.median);
  return hellos == static_cast<std::size_t>(n) ? 0 : 1;
}
