#include "mpi_runner/messages.hpp"

#include <time.h>

#include <algorithm>
#include <vector>

namespace tune::wire {

using nlohmann::json;

void send(int dest, Tag tag, const json& body) {
  const std::string text = body.dump();
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}

std::optional<Message> poll(int source, int tag) {
  int flag = 0;
  MPI_Status st;
  MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st);
  if (!flag) return std::nullopt;
  int count = 0;
  MPI_Get_count(&st, MPI_CHAR, &count);
  std::string text(static_cast<std::size_t>(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return Message{st.MPI_SOURCE, static_cast<Tag>(st.MPI_TAG), text.empty() ? json::object() : json::parse(text)};
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

}  // namespace tune::wire
