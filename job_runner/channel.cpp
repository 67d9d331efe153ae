// SPDX-License-Identifier: GPL-2.0-or-later
#include "job_runner/channel.hpp"

#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <asio.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>

namespace tune {

using asio::ip::tcp;
using nlohmann::json;

namespace {

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::max(0.0, s)));
}

bool same_secret(const std::string& given, const std::string& secret) {
  // Constant time in the content (the length is no secret): a peer cannot
  // learn the secret byte by byte from how fast it is refused.
  if (given.size() != secret.size() || secret.empty()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < secret.size(); ++i) diff |= static_cast<unsigned char>(given[i] ^ secret[i]);
  return diff == 0;
}

// A peer cut off the network (its node's link down, its node powered off)
// sends neither data nor a reset; TCP alone would hold such a connection for
// many minutes, or for ever when nothing is sent. Keep-alive probes after 30
// s of silence (3, 10 s apart) and a 60 s limit on unacknowledged data end it
// within about a minute on either side.
void keep_alive(tcp::socket& s) {
  asio::error_code ec;
  s.set_option(asio::socket_base::keep_alive(true), ec);
  const int fd = s.native_handle();
  const int idle = 30, interval = 10, count = 3;
  const unsigned user_timeout_ms = 60'000;
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof user_timeout_ms);
}

}  // namespace

// One TCP connection carrying length-prefixed frames, reading and writing
// asynchronously; the owner hears of frames and of the end.
class FramedConnection : public std::enable_shared_from_this<FramedConnection> {
 public:
  using OnFrame = std::function<void(std::string)>;
  using OnError = std::function<void(const std::string&)>;

  explicit FramedConnection(tcp::socket s) : socket_(std::move(s)), timer_(socket_.get_executor()) {
    asio::error_code ec;
    const auto ep = socket_.remote_endpoint(ec);
    address_ = ec ? "?" : ep.address().to_string();
    peer_ = ec ? "?" : address_ + ":" + std::to_string(ep.port());
    socket_.set_option(tcp::no_delay(true), ec);
    keep_alive(socket_);
  }
  void start(OnFrame on_frame, OnError on_error) {
    on_frame_ = std::move(on_frame);
    on_error_ = std::move(on_error);
    read_header();
  }
  void send(const std::string& payload) {
    if (closed_) return;
    std::string f(4, '\0');
    const auto n = static_cast<std::uint32_t>(payload.size());
    for (int i = 0; i < 4; ++i) f[i] = static_cast<char>((n >> (24 - 8 * i)) & 0xff);
    f += payload;
    const bool idle = out_.empty();
    out_.push_back(std::move(f));
    if (idle) write_next();
  }
  // Calls `expire` unless cancel_deadline() comes first.
  void deadline(double s, std::function<void()> expire) {
    timer_.expires_after(seconds(s));
    timer_.async_wait([self = shared_from_this(), expire = std::move(expire)](const asio::error_code& ec) {
      if (!ec && !self->closed_) expire();
    });
  }
  void cancel_deadline() { timer_.cancel(); }
  void close() {
    if (closed_) return;
    closed_ = true;
    asio::error_code ec;
    timer_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }
  bool closed() const { return closed_; }
  const std::string& peer() const { return peer_; }
  const std::string& address() const { return address_; }

 private:
  void fail(const std::string& why) {
    if (closed_) return;
    close();
    if (on_error_) on_error_(why);
  }
  void read_header() {
    asio::async_read(socket_, asio::buffer(header_),
                     [self = shared_from_this()](const asio::error_code& ec, std::size_t) {
                       if (self->closed_) return;
                       if (ec)
                         return self->fail(ec == asio::error::eof ? "closed by the peer" : ec.message());
                       std::uint32_t n = 0;
                       for (unsigned char c : self->header_) n = (n << 8) | c;
                       if (n == 0 || n > kMaxFrame)
                         return self->fail("a frame of " + std::to_string(n) + " bytes (the limit is " +
                                           std::to_string(kMaxFrame) + ")");
                       self->body_.assign(n, '\0');
                       self->read_body();
                     });
  }
  void read_body() {
    asio::async_read(socket_, asio::buffer(body_),
                     [self = shared_from_this()](const asio::error_code& ec, std::size_t) {
                       if (self->closed_) return;
                       if (ec)
                         return self->fail(ec == asio::error::eof ? "closed by the peer" : ec.message());
                       self->on_frame_(std::move(self->body_));
                       if (!self->closed_) self->read_header();
                     });
  }
  void write_next() {
    asio::async_write(socket_, asio::buffer(out_.front()),
                      [self = shared_from_this()](const asio::error_code& ec, std::size_t) {
                        if (self->closed_) return;
                        if (ec) return self->fail(ec.message());
                        self->out_.pop_front();
                        if (!self->out_.empty()) self->write_next();
                      });
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  std::array<unsigned char, 4> header_{};
  std::string body_;
  std::deque<std::string> out_;
  OnFrame on_frame_;
  OnError on_error_;
  std::string peer_, address_;
  bool closed_ = false;
};

// --- the channel file ------------------------------------------------------------------

void write_channel_file(const std::string& path, const ChannelAddress& a) {
  const json j = {{"host", a.host}, {"addresses", a.addresses}, {"port", a.port}, {"secret", a.secret},
                  {"job", a.job},   {"jobs", a.jobs_file}};
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw ChannelError("cannot write the channel file " + tmp + ": " + std::strerror(errno));
  const std::string text = j.dump() + "\n";
  const bool ok =
      ::fchmod(fd, 0600) == 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw ChannelError("cannot write the channel file " + path + ": " + std::strerror(errno));
  }
}

ChannelAddress read_channel_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw ChannelError(
        "cannot read the channel file " + path + " (" + std::strerror(errno) +
        "); it is written by the study's AppCore beside its history, readable by the study's owner only");
  std::stringstream text;
  text << in.rdbuf();
  const json j = json::parse(text.str(), nullptr, false);
  ChannelAddress a;
  try {
    if (!j.is_object()) throw std::invalid_argument("not a JSON object");
    a.host = j.at("host").get<std::string>();
    a.addresses = j.value("addresses", std::vector<std::string>{});
    a.port = j.at("port").get<int>();
    a.secret = j.at("secret").get<std::string>();
    a.job = j.value("job", std::uint32_t{0});
    a.jobs_file = j.value("jobs", std::string());
  } catch (const std::exception& e) {
    throw ChannelError("the channel file " + path + " is damaged (" + e.what() +
                       "); resume the study's AppCore, which writes it anew");
  }
  if (a.port <= 0 || a.port > 65535 || a.secret.size() < 32)
    throw ChannelError("the channel file " + path +
                       " holds no usable port and secret; resume the study's AppCore");
  return a;
}

std::vector<std::string> local_ipv4_addresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(i->ifa_addr);
    const auto ip = asio::ip::address_v4(ntohl(in->sin_addr.s_addr));
    if (!ip.is_loopback()) out.push_back(ip.to_string());
  }
  ::freeifaddrs(list);
  out.push_back("127.0.0.1");  // last: an AppCore and its trial jobs on one host
  return out;
}

std::string random_secret() {
  unsigned char bytes[32];
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  if (!urandom.read(reinterpret_cast<char*>(bytes), sizeof bytes))
    throw ChannelError("cannot read /dev/urandom for the channel's secret");
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned char b : bytes) s += hex[b >> 4], s += hex[b & 15];
  return s;
}

// --- the AppCore's end ------------------------------------------------------------------

struct ChannelServer::Acceptor {
  tcp::acceptor a;
};

ChannelServer::ChannelServer(std::string secret, Log log, AdmissionLimits limits)
    : io_(std::make_unique<asio::io_context>()),
      secret_(std::move(secret)),
      log_(std::move(log)),
      admission_(limits),
      refusals_(log_) {}

double ChannelServer::now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ChannelServer::~ChannelServer() {
  for (auto& [id, c] : conns_) c->close();
  if (acceptor_) {
    asio::error_code ec;
    acceptor_->a.close(ec);
  }
}

int ChannelServer::listen(int port) {
  acceptor_ = std::make_unique<Acceptor>(Acceptor{tcp::acceptor(*io_)});
  const tcp::endpoint ep(tcp::v4(), static_cast<unsigned short>(port));
  asio::error_code ec;
  acceptor_->a.open(ep.protocol(), ec);
  if (!ec) acceptor_->a.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_->a.bind(ep, ec);
  if (!ec) acceptor_->a.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw ChannelError("cannot listen on TCP port " + std::to_string(port) + ": " + ec.message());
  accept_next();
  return acceptor_->a.local_endpoint().port();
}

void ChannelServer::accept_next() {
  acceptor_->a.async_accept([this](const asio::error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      auto conn = std::make_shared<FramedConnection>(std::move(socket));
      if (const auto why = admission_.admit(conn->address())) {
        // Many silent peers cannot crowd out the trial jobs for long (each
        // has kHelloSeconds), and one address cannot hold every slot.
        ++refused_;
        refusals_.refused("refused a connection from " + conn->peer() + ": " + *why, now());
        conn->close();
      } else {
        const ConnId id = next_id_++;
        conns_[id] = conn;
        authenticated_[id] = false;
        conn->start([this, id](std::string f) { on_frame(id, std::move(f)); },
                    [this, id](const std::string& why) { on_error(id, why); });
        conn->deadline(kHelloSeconds, [this, id] {
          ++refused_;
          drop(id, "no hello within " + std::to_string(static_cast<int>(kHelloSeconds)) + " s", true);
        });
      }
    }
    accept_next();
  });
}

void ChannelServer::on_frame(ConnId id, std::string frame) {
  const auto conn = conns_.at(id);
  json body = json::parse(frame, nullptr, false);
  if (!authenticated_[id]) {
    const bool hello = body.is_object() && body.value("type", "") == "hello" && body.contains("secret") &&
                       body["secret"].is_string();
    if (!hello || !same_secret(body["secret"].get<std::string>(), secret_)) {
      ++refused_;
      return drop(id, hello ? "wrong secret" : "its first message is not a hello", true);
    }
    authenticated_[id] = true;
    admission_.authenticated(conn->address());
    conn->cancel_deadline();
    body.erase("secret");
    conn->send(json{{"type", "welcome"}}.dump());
    events_.push_back({Event::Hello, id, std::move(body), conn->peer()});
    return;
  }
  if (!body.is_object() || !body.contains("type") || !body["type"].is_string())
    return drop(id, "a malformed message (not a JSON object with a type)", true);
  events_.push_back({Event::Message, id, std::move(body), conn->peer()});
}

void ChannelServer::on_error(ConnId id, const std::string& why) {
  const bool quiet = authenticated_[id] && why == "closed by the peer";
  if (!authenticated_[id]) ++refused_;
  drop(id, why, !quiet);
}

void ChannelServer::drop(ConnId id, const std::string& why, bool log) {
  const auto it = conns_.find(id);
  if (it == conns_.end()) return;
  const bool was_open = authenticated_[id];
  if (log && was_open) log_("closed the connection of " + it->second->peer() + ": " + why);
  if (log && !was_open)
    refusals_.refused("refused a connection from " + it->second->peer() + ": " + why, now());
  admission_.closed(it->second->address(), was_open);
  if (was_open) events_.push_back({Event::Closed, id, json::object(), it->second->peer()});
  it->second->close();
  conns_.erase(it);
  authenticated_.erase(id);
}

std::vector<ChannelServer::Event> ChannelServer::poll(double max_wait) {
  if (io_->stopped()) io_->restart();
  const auto deadline = std::chrono::steady_clock::now() + seconds(max_wait);
  io_->poll();
  while (events_.empty()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) break;
    io_->run_one_for(deadline - now);
    if (io_->stopped()) io_->restart();
  }
  io_->poll();
  refusals_.flush(now());
  return std::exchange(events_, {});
}

bool ChannelServer::send(ConnId conn, const json& body) {
  const auto it = conns_.find(conn);
  if (it == conns_.end() || !authenticated_[conn]) return false;
  it->second->send(body.dump());
  return true;
}

void ChannelServer::close(ConnId conn) {
  drop(conn, "closed by the AppCore", false);
}

// --- a trial job's end ------------------------------------------------------------------

ChannelClient::ChannelClient() : io_(std::make_unique<asio::io_context>()) {}
ChannelClient::~ChannelClient() {
  close();
}

void ChannelClient::connect(const ChannelAddress& a, json hello, double timeout) {
  close();
  io_->restart();
  inbox_.clear();
  error_.reset();
  std::vector<tcp::endpoint> endpoints;
  asio::error_code ec;
  tcp::resolver resolver(*io_);
  for (const auto& e : resolver.resolve(tcp::v4(), a.host, std::to_string(a.port), ec))
    endpoints.push_back(e.endpoint());
  for (const auto& addr : a.addresses) {
    const auto ip = asio::ip::make_address(addr, ec);
    if (!ec) endpoints.emplace_back(ip, static_cast<unsigned short>(a.port));
  }
  if (endpoints.empty()) throw ChannelError("cannot resolve the AppCore's host " + a.host);
  std::string last = "no address";
  for (const auto& ep : endpoints) {
    tcp::socket socket(*io_);
    asio::error_code result = asio::error::would_block;
    socket.async_connect(ep, [&](const asio::error_code& e) { result = e; });
    io_->restart();
    io_->run_for(seconds(timeout));
    if (result == asio::error::would_block) {
      socket.close(ec);
      io_->restart();
      io_->run_for(seconds(0.1));  // let the aborted handler run
      last = "no answer from " + ep.address().to_string() + " within " +
             std::to_string(static_cast<int>(timeout)) + " s";
      continue;
    }
    if (result) {
      last = ep.address().to_string() + ": " + result.message();
      continue;
    }
    conn_ = std::make_shared<FramedConnection>(std::move(socket));
    break;
  }
  if (!conn_)
    throw ChannelError("cannot reach the AppCore at " + a.host + ":" + std::to_string(a.port) + " (" + last +
                       ")");
  conn_->start(
      [this](std::string f) {
        json body = json::parse(f, nullptr, false);
        if (body.is_object())
          inbox_.push_back(std::move(body));
        else
          error_ = "a malformed message from the AppCore";
      },
      [this](const std::string& why) { error_ = why; });
  hello["type"] = "hello";
  hello["secret"] = a.secret;
  conn_->send(hello.dump());
  io_->restart();
  std::optional<json> welcome;
  try {
    welcome = poll(timeout);
  } catch (const ChannelError&) {
  }
  if (!welcome || welcome->value("type", "") != "welcome") {
    close();
    throw ChannelError("the AppCore at " + a.host + ":" + std::to_string(a.port) +
                       " did not accept this job (" + error_.value_or("no answer") +
                       "); is the channel file from the AppCore running now?");
  }
}

void ChannelClient::send(const json& body) {
  if (!conn_ || conn_->closed())
    throw ChannelError("not connected to the AppCore" + (error_ ? " (" + *error_ + ")" : ""));
  conn_->send(body.dump());
  io_->poll();
}

std::optional<json> ChannelClient::poll(double max_wait) {
  if (!conn_) throw ChannelError("not connected to the AppCore");
  const auto deadline = std::chrono::steady_clock::now() + seconds(max_wait);
  if (io_->stopped()) io_->restart();
  io_->poll();
  while (inbox_.empty() && !error_) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) break;
    io_->run_one_for(deadline - now);
    if (io_->stopped()) io_->restart();
  }
  if (!inbox_.empty()) {
    json m = std::move(inbox_.front());
    inbox_.erase(inbox_.begin());
    return m;
  }
  if (error_) throw ChannelError("the connection to the AppCore ended: " + *error_);
  return std::nullopt;
}

bool ChannelClient::connected() const {
  return conn_ && !conn_->closed() && !error_;
}

void ChannelClient::close() {
  if (conn_) conn_->close();
  conn_.reset();
  if (io_) {
    io_->restart();
    io_->poll();
  }
}

}  // namespace tune
