// SPDX-License-Identifier: GPL-2.0-or-later
// History: append 100,000 trials one by one (each flushed, as the driver
// does), then reopen the file to resume. Baseline in the same run: the same
// rows appended as text lines with one write() each to a plain file, and
// read back. Prints both and their ratio.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "history/history.hpp"

using namespace tune;
using Clock = std::chrono::steady_clock;

static double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

int main(int argc, char** argv) {
  const std::uint64_t n = argc > 1 ? std::stoull(argv[1]) : 100000;
  const auto dir =
      std::filesystem::temp_directory_path() / ("tune-history-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string h5 = (dir / "bench.h5").string(), txt = (dir / "bench.csv").string();

  StudyInfo info;
  info.name = "bench";
  info.space =
      SearchSpace::parse(R"({"parameters": [{"name": "lr", "type": "bound", "value": [1e-5, 1], "log": true},
      {"name": "layers", "type": "int", "value": [1, 8]}, {"name": "opt", "type": "choice", "value": ["sgd", "adam"]}]})");
  auto make = [](std::uint64_t i) {
    Trial t;
    t.id = i;
    t.state = TrialState::Ok;
    t.params = {1e-3 * (i % 1000 + 1), std::int64_t(i % 8 + 1), std::string(i % 2 ? "adam" : "sgd")};
    t.objective = 1.0 / (i + 1);
    t.start_time = 1e9 + i;
    t.end_time = 1e9 + i + 0.5;
    t.rank = 1 + i % 8;
    t.host = "node" + std::to_string(i % 4);
    t.exit_code = 0;
    return t;
  };

  auto t0 = Clock::now();
  {
    auto h = History::create(h5, info);
    for (std::uint64_t i = 0; i < n; ++i) h.put(make(i));
    h.close();
  }
  auto t1 = Clock::now();
  auto h = History::resume(h5);
  auto t2 = Clock::now();
  if (h.trials().size() != n) {
    std::fprintf(stderr, "history_bench: reopened %zu trials, wrote %llu\n", h.trials().size(),
                 (unsigned long long)n);
    return 1;
  }
  h.close();

  auto b0 = Clock::now();
  {
    const int fd = ::open(txt.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (std::uint64_t i = 0; i < n; ++i) {
      const Trial t = make(i);
      char line[256];
      const int len = std::snprintf(
          line, sizeof line, "%llu,ok,%.17g,%.17g,%lld,%s,%.17g,%.17g,%d,%s\n", (unsigned long long)t.id,
          *t.objective, std::get<double>(t.params[0]), (long long)std::get<std::int64_t>(t.params[1]),
          std::get<std::string>(t.params[2]).c_str(), t.start_time, t.end_time, t.rank, t.host.c_str());
      if (::write(fd, line, len) != len) return 1;
    }
    ::close(fd);
  }
  auto b1 = Clock::now();
  std::uint64_t lines = 0;
  {
    std::ifstream in(txt);
    for (std::string line; std::getline(in, line);) ++lines;
  }
  auto b2 = Clock::now();
  const double append = seconds(t0, t1), reopen = seconds(t1, t2), base_append = seconds(b0, b1),
               base_read = seconds(b1, b2);
  std::printf(
      "history: %llu trials appended one by one, each flushed: %.2f s = %.0f trials/s; file %.1f MB\n",
      (unsigned long long)n, append, n / append, std::filesystem::file_size(h5) / 1e6);
  std::printf("history: reopen to resume (%llu trials into memory): %.3f s\n", (unsigned long long)n, reopen);
  std::printf(
      "baseline: the same rows as text lines, one write() each: %.2f s = %.0f rows/s; read back %.3f s (%llu "
      "lines)\n",
      base_append, n / base_append, base_read, (unsigned long long)lines);
  std::printf("ratio: history append / plain write throughput = %.3f; reopen / plain read = %.1f\n",
              base_append / append, reopen / base_read);
  std::filesystem::remove_all(dir);
  return 0;
}
