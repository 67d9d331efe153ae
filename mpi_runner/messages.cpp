// SPDX-License-Identifier: GPL-2.0-or-later
#include "mpi_runner/messages.hpp"

#include <time.h>

#include <algorithm>
#include <vector>

namespace tune::mpi {

using nlohmann::json;

void send(int dest, const wire::Message& m) {
  // A program's garbage (a report line that is not UTF-8) goes as U+FFFD, not thrown over.
  const std::string text = m.body.dump(-1, ' ', false, json::error_handler_t::replace);
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, dest, wire::tag_of(m.kind), MPI_COMM_WORLD);
}

std::optional<Received> poll(int source) {
  for (;;) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (!flag) return std::nullopt;
    int count = 0;
    MPI_Get_count(&st, MPI_CHAR, &count);
    std::string text(static_cast<std::size_t>(count), '\0');
    MPI_Recv(text.data(), count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const auto kind = wire::kind_of_tag(st.MPI_TAG);
    if (!kind) continue;  // not ours: dropped
    json body = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded()) body = json::object();  // deliver names what is missing
    return Received{st.MPI_SOURCE, {*kind, std::move(body)}};
  }
}

bool RankLink::send(const wire::Message& m) {
  mpi::send(0, m);
  return true;
}

std::optional<wire::Message> RankLink::poll() {
  auto r = mpi::poll(0);
  if (!r) return std::nullopt;
  return std::move(r->message);
}

void Backoff::reset() {
  us_ = 10;
  idle_us_ = 0;
}

void Backoff::wait() {
  timespec ts{0, us_ * 1000};
  nanosleep(&ts, nullptr);
  idle_us_ += us_;
  us_ = std::min(us_ * 2, idle_us_ < 20'000 ? 100L : 2'000L);
}

std::optional<wire::Message> RunnerRanks::poll(int rank) {
  if (auto m = mpi::poll(rank)) return std::move(m->message);
  return std::nullopt;
}

}  // namespace tune::mpi
