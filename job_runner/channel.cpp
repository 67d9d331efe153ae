// SPDX-License-Identifier: GPL-2.0-or-later
#include "job_runner/channel.hpp"

#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
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

#include "history/place_modes.hpp"
#include "trial_jobs/channel_handshake.hpp"

namespace tune {

using asio::ip::tcp;
using nlohmann::json;

namespace {

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::max(0.0, s)));
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
  // The largest frame this end reads (a stranger's are short).
  void limit(std::size_t bytes) { limit_ = bytes; }
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
                       if (n == 0 || n > self->limit_)
                         return self->fail("a frame of " + std::to_string(n) + " bytes (the limit is " +
                                           std::to_string(self->limit_) + ")");
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
  std::size_t limit_ = kMaxFrame;
  bool closed_ = false;
};

// --- the AppCore's end ------------------------------------------------------------------

struct ChannelServer::Acceptor {
  tcp::acceptor a;
  asio::steady_timer pause;  // after an accept that failed (no descriptor left)
};

// One connection and its end of the handshake.
struct ChannelServer::Link {
  std::shared_ptr<FramedConnection> conn;
  AppCoreEnd end;
  bool authenticated = false;  // its hello event was handed on (a Closed event is then owed)
  bool open() const { return authenticated; }
};

ChannelServer::ChannelServer(std::string secret, Log log, AdmissionLimits limits)
    : io_(std::make_unique<asio::io_context>()),
      key_(std::move(secret)),
      log_(std::move(log)),
      admission_(limits),
      refusals_(log_) {}

double ChannelServer::now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ChannelServer::~ChannelServer() {
  for (auto& [id, l] : conns_) l->conn->close();
  if (acceptor_) {
    asio::error_code ec;
    acceptor_->a.close(ec);
    acceptor_->pause.cancel();
  }
}

int ChannelServer::listen(int port) {
  // Every connection is a descriptor: take all the system lets this user
  // have (the soft limit is often 1024 of a hard 4096 or more), so strangers
  // must open that many before the AppCore has to let one go (accept_later).
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = std::min<rlim_t>(files.rlim_max, 1 << 16);
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  acceptor_ = std::make_unique<Acceptor>(Acceptor{tcp::acceptor(*io_), asio::steady_timer(*io_)});
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

// An accept that failed, most often for want of a file descriptor: a
// stranger is let go to make one, and the next accept waits a moment
// instead of spinning on the same error.
void ChannelServer::accept_later() {
  acceptor_->pause.expires_after(std::chrono::milliseconds(100));
  acceptor_->pause.async_wait([this](const asio::error_code& ec) {
    if (!ec) accept_next();
  });
}

void ChannelServer::accept_next() {
  acceptor_->a.async_accept([this](const asio::error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      refusals_.refused("cannot accept a connection: " + ec.message() + "; waiting 0.1 s", now());
      if (const auto victim = admission_.next_to_evict()) {
        ++refused_;
        drop(*victim, "let go: the AppCore has no file descriptor left", false);
      }
      return accept_later();
    }
    auto conn = std::make_shared<FramedConnection>(std::move(socket));
    const ConnId id = next_id_++;
    const auto verdict = admission_.admit(id, conn->address(), now());
    if (verdict.evict) {
      ++refused_;
      // Through drop, whose admission_.closed is a no-op for a stranger already let go.
      drop(*verdict.evict, "let go unheard to make room for a newer connection", true);
    }
    if (verdict.refused) {
      ++refused_;
      refusals_.refused("refused a connection from " + conn->peer() + ": " + *verdict.refused, now());
      conn->close();
      return accept_next();
    }
    conn->limit(kStrangerFrame);
    conns_[id] = std::make_unique<Link>(Link{conn, AppCoreEnd(key_, nonces_)});
    conn->start([this, id](std::string f) { on_frame(id, std::move(f)); },
                [this, id](const std::string& why) { on_error(id, why); });
    conn->deadline(kHelloSeconds, [this, id] {
      ++refused_;
      drop(id, "no hello within " + std::to_string(static_cast<int>(kHelloSeconds)) + " s", true);
    });
    accept_next();
  });
}

void ChannelServer::on_frame(ConnId id, std::string frame) {
  const auto it = conns_.find(id);
  if (it == conns_.end()) return;
  Link& l = *it->second;
  const auto conn = l.conn;
  const bool was_open = l.open();
  ChannelStep step = l.end.on_frame(frame);
  for (const auto& f : step.send) conn->send(f);
  if (step.refused) {
    if (!was_open) ++refused_;
    return drop(id, *step.refused, true);
  }
  if (step.vouched) {
    admission_.vouched(id);
    conn->limit(kMaxFrame);  // its sealed hello may carry a result
    conn->deadline(kProofSeconds, [this, id] {
      ++refused_;
      drop(id, "no proof within " + std::to_string(static_cast<int>(kProofSeconds)) + " s of its hello",
           true);
    });
  }
  if (step.hello) {
    l.authenticated = true;
    conn->cancel_deadline();
    events_.push_back({Event::Hello, id, std::move(*step.hello), conn->peer()});
  }
  if (step.message) events_.push_back({Event::Message, id, std::move(*step.message), conn->peer()});
}

void ChannelServer::on_error(ConnId id, const std::string& why) {
  const auto it = conns_.find(id);
  if (it == conns_.end()) return;
  const bool open = it->second->open();
  if (!open) ++refused_;
  drop(id, why, !(open && why == "closed by the peer"));
}

void ChannelServer::drop(ConnId id, const std::string& why, bool log) {
  const auto it = conns_.find(id);
  if (it == conns_.end()) return;
  const bool was_open = it->second->open();
  const auto conn = it->second->conn;
  if (log && was_open) log_("closed the connection of " + conn->peer() + ": " + why);
  if (log && !was_open) refusals_.refused("refused a connection from " + conn->peer() + ": " + why, now());
  admission_.closed(id);
  if (was_open) events_.push_back({Event::Closed, id, json::object(), conn->peer()});
  conn->close();
  conns_.erase(it);
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
  if (it == conns_.end()) return false;
  const auto frame = it->second->end.seal(body);
  if (!frame) return false;
  it->second->conn->send(*frame);
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

void ChannelClient::on_frame(const std::string& frame) {
  if (!end_) return;
  ChannelStep step = end_->on_frame(frame);
  for (const auto& f : step.send) conn_->send(f);
  if (step.refused) {
    error_ = *step.refused;
    conn_->close();
    return;
  }
  if (step.welcomed) welcomed_ = true;
  if (step.message) inbox_.push_back(std::move(*step.message));
}

void ChannelClient::connect(const ChannelAddress& a, json hello, double timeout) {
  close();
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  std::vector<tcp::endpoint> endpoints;
  asio::error_code ec;
  const bool same_host = a.host == name;
  tcp::resolver resolver(*io_);
  io_->restart();
  for (const auto& e : resolver.resolve(tcp::v4(), a.host, std::to_string(a.port), ec))
    if (same_host || !e.endpoint().address().is_loopback()) endpoints.push_back(e.endpoint());
  for (const auto& addr : channel_endpoints(a, name)) {
    const auto ip = asio::ip::make_address(addr, ec);
    const tcp::endpoint ep(ip, static_cast<unsigned short>(a.port));
    if (!ec && std::find(endpoints.begin(), endpoints.end(), ep) == endpoints.end()) endpoints.push_back(ep);
  }
  if (endpoints.empty()) throw ChannelError("cannot resolve the AppCore's host " + a.host);
  key_.emplace(a.secret);
  std::string last = "no address";
  for (const auto& ep : endpoints) {
    const std::string where = ep.address().to_string() + ":" + std::to_string(a.port);
    tcp::socket socket(*io_);
    asio::error_code result = asio::error::would_block;
    socket.async_connect(ep, [&](const asio::error_code& e) { result = e; });
    io_->restart();
    io_->run_for(seconds(timeout));
    if (result == asio::error::would_block) {
      socket.close(ec);
      io_->restart();
      io_->run_for(seconds(0.1));  // let the aborted handler run
      last = "no answer from " + where + " within " + std::to_string(static_cast<int>(timeout)) + " s";
      continue;
    }
    if (result) {
      last = where + ": " + result.message();
      continue;
    }
    // The handshake: nothing this job runs comes before the AppCore's proof.
    inbox_.clear();
    error_.reset();
    welcomed_ = false;
    end_ = std::make_unique<TrialJobEnd>(*key_, hello);
    conn_ = std::make_shared<FramedConnection>(std::move(socket));
    conn_->limit(kStrangerFrame);
    conn_->start([this](std::string f) { on_frame(f); }, [this](const std::string& why) { error_ = why; });
    conn_->send(end_->first_frame());
    const auto until = std::chrono::steady_clock::now() + seconds(timeout);
    io_->restart();
    while (!welcomed_ && !error_ && std::chrono::steady_clock::now() < until) {
      io_->run_one_until(until);
      if (io_->stopped()) io_->restart();
    }
    if (welcomed_) {
      conn_->limit(kMaxFrame);
      return;
    }
    const bool unproven = end_->stage() == TrialJobEnd::Stage::Closed && error_ &&
                          error_->find("did not prove") != std::string::npos;
    last = unproven ? "the server at " + where +
                          " did not prove that it is this study's AppCore (it does not hold the channel's "
                          "secret); this job runs nothing it sends"
                    : where + " did not accept this job (" + error_.value_or("no answer") +
                          "); is the channel file from the AppCore running now?";
    close();
  }
  throw ChannelError("cannot reach the AppCore at " + a.host + ":" + std::to_string(a.port) + " (" + last +
                     ")");
}

void ChannelClient::send(const json& body) {
  if (!conn_ || conn_->closed() || !end_)
    throw ChannelError("not connected to the AppCore" + (error_ ? " (" + *error_ + ")" : ""));
  const auto frame = end_->seal(body);
  if (!frame) throw ChannelError("not connected to the AppCore (the handshake is not done)");
  conn_->send(*frame);
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
  return conn_ && !conn_->closed() && !error_ && welcomed_;
}

void ChannelClient::close() {
  if (conn_) conn_->close();
  conn_.reset();
  if (io_) {
    io_->restart();
    io_->poll();
  }
  end_.reset();
  welcomed_ = false;
}

}  // namespace tune
