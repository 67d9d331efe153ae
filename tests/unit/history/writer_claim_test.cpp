// SPDX-License-Identifier: GPL-2.0-or-later
#include "history/writer_claim.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "history/history.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

namespace fs = std::filesystem;
using testing::HasSubstr;

WriterRecord record(const std::string& host, std::int64_t pid, std::uint64_t start = 77) {
  WriterRecord r;
  r.host = host;
  r.boot_id = "boot-1";
  r.pid = pid;
  r.pid_start = start;
  r.started = "2026-11-24T10:00:00Z";
  return r;
}

// Processes of a pretend host: pid 10 started at tick 77, nothing else.
std::optional<std::uint64_t> one_process(std::int64_t pid) {
  return pid == 10 ? std::optional<std::uint64_t>(77) : std::nullopt;
}

JobLookup answering(JobStatus st, int* asked = nullptr) {
  return [st, asked](std::uint32_t) {
    if (asked) ++*asked;
    return st;
  };
}

TEST(JudgeOwner, OnThisHostTheProcessTableDecides) {
  const WriterRecord here = record("n1", 99);
  EXPECT_FALSE(judge_owner(record("n1", 10), here, one_process, {}).stale);
  const auto gone = judge_owner(record("n1", 11), here, one_process, {});
  EXPECT_TRUE(gone.stale);
  EXPECT_EQ(gone.why, "process 11 is gone");
  const auto reused = judge_owner(record("n1", 10, 5), here, one_process, {});
  EXPECT_TRUE(reused.stale);
  EXPECT_THAT(reused.why, HasSubstr("belongs to another process"));
  WriterRecord rebooted = record("n1", 10);
  rebooted.boot_id = "boot-0";
  EXPECT_TRUE(judge_owner(rebooted, here, one_process, {}).stale);
}

TEST(JudgeOwner, OnAnotherHostSlurmDecidesAndNothingElse) {
  const WriterRecord here = record("n1", 99);
  int asked = 0;
  // Outside a job nothing here can tell: never stale, Slurm not asked.
  const auto outside =
      judge_owner(record("n2", 11), here, one_process, answering({JobStatus::Kind::Ended}, &asked));
  EXPECT_FALSE(outside.stale);
  EXPECT_THAT(outside.why, HasSubstr("cannot be checked from here"));
  EXPECT_EQ(asked, 0);

  WriterRecord owner = record("n2", 11);
  owner.job = 77;
  owner.job_restarts = 1;
  EXPECT_TRUE(
      judge_owner(owner, here, one_process, answering({JobStatus::Kind::Ended, 0, "", "COMPLETED"})).stale);
  EXPECT_FALSE(
      judge_owner(owner, here, one_process, answering({JobStatus::Kind::Active, 1, "", "RUNNING"})).stale);
  const auto requeued =
      judge_owner(owner, here, one_process, answering({JobStatus::Kind::Active, 2, "", "RUNNING"}));
  EXPECT_TRUE(requeued.stale);
  EXPECT_THAT(requeued.why, HasSubstr("requeued since"));
  const auto unreachable =
      judge_owner(owner, here, one_process,
                  answering({JobStatus::Kind::Unknown, 0, "", "Unable to contact slurm controller"}));
  EXPECT_FALSE(unreachable.stale);
  EXPECT_THAT(unreachable.why, HasSubstr("Unable to contact"));
  EXPECT_FALSE(judge_owner(owner, here, one_process, {}).stale);  // no Slurm here at all
  owner.cluster = "alpha";
  const auto other =
      judge_owner(owner, here, one_process, answering({JobStatus::Kind::Ended, 0, "beta", "COMPLETED"}));
  EXPECT_FALSE(other.stale);
  EXPECT_THAT(other.why, HasSubstr("belongs to cluster alpha"));
}

TEST(WriterRecordText, RoundTripsAndRefusesGarbage) {
  WriterRecord r = record("n1", 10);
  r.job = 5;
  r.cluster = "c";
  const auto back = WriterRecord::from_json(r.to_json());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->describe(),
            "pid 10 on host n1 (Slurm job 5 on cluster c), writing since 2026-11-24T10:00:00Z");
  EXPECT_FALSE(WriterRecord::from_json(""));
  EXPECT_FALSE(WriterRecord::from_json("{\"host\": \"\", \"pid\": 3}"));
  EXPECT_FALSE(WriterRecord::from_json("\x01\x02{{"));
}

class WriterClaimTest : public testing_support::TempDirTest,
                        public testing::WithParamInterface<bool> {  // kernel locks on, off
 protected:
  WriterClaim::Options options(WriterRecord self) const {
    WriterClaim::Options o;
    o.self = std::move(self);
    o.kernel_locks = GetParam();
    return o;
  }
  // The files beside the history, sorted.
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(file(name)) << text; }
};

TEST_P(WriterClaimTest, OneWriterAtATimeAndNothingLeftBehind) {
  const std::string h = file("h.h5");
  {
    auto claim = WriterClaim::take(h, options(this_process()));
    EXPECT_EQ(claim.kernel_locks(), GetParam());
    EXPECT_EQ(files(), std::vector<std::string>{"h.h5.lock"});
    std::ifstream in(h + ".lock");
    const auto rec = WriterRecord::from_json(std::string(std::istreambuf_iterator<char>(in), {}));
    ASSERT_TRUE(rec);
    EXPECT_EQ(rec->pid, ::getpid());
    // A second writer (this very process seen as another one on this host) is
    // refused by name, and its failed start leaves no file.
    WriterRecord other = this_process();
    other.pid = ::getpid() + 100000;
    try {
      WriterClaim::take(h, options(other));
      FAIL() << "a second writer got the claim";
    } catch (const HistoryError& e) {
      EXPECT_THAT(e.what(), HasSubstr("another tune process is writing this history: pid " +
                                      std::to_string(::getpid())));
      EXPECT_THAT(e.what(), HasSubstr("Wait for it to end, or give another history file"));
    }
    EXPECT_EQ(files(), std::vector<std::string>{"h.h5.lock"});
  }
  EXPECT_TRUE(files().empty()) << "released: FILE.lock removed";
}

TEST_P(WriterClaimTest, TakesOverFromAWriterThatIsGone) {
  const std::string h = file("h.h5");
  const pid_t child = ::fork();
  if (child == 0) _exit(0);
  ::waitpid(child, nullptr, 0);  // a pid that no longer runs
  WriterRecord dead = this_process();
  dead.pid = child;
  write("h.h5.lock", dead.to_json());
  auto claim = WriterClaim::take(h, options(this_process()));
  EXPECT_THAT(claim.note(), HasSubstr("took over " + h + " from pid " + std::to_string(child)));
  EXPECT_EQ(files(), std::vector<std::string>{"h.h5.lock"});
}

TEST_P(WriterClaimTest, ATakerKilledMidWayDoesNotBlockTheNext) {
  const std::string h = file("h.h5");
  const pid_t child = ::fork();
  if (child == 0) _exit(0);
  ::waitpid(child, nullptr, 0);
  WriterRecord dead = this_process();
  dead.pid = child;
  write("h.h5.lock", dead.to_json());
  write("h.h5.lock.takeover", dead.to_json());  // it died taking over
  auto o = options(this_process());
  o.takeover_wait = 0.2;
  auto claim = WriterClaim::take(h, o);
  EXPECT_THAT(claim.note(), HasSubstr("took over"));
  EXPECT_EQ(files(), std::vector<std::string>{"h.h5.lock"});
}

TEST_P(WriterClaimTest, AnotherHostsRecordGoesByItsSlurmJob) {
  const std::string h = file("h.h5");
  WriterRecord remote = record("elsewhere", 4242);
  remote.job = 77;
  write("h.h5.lock", remote.to_json());
  auto o = options(this_process());
  o.jobs = answering({JobStatus::Kind::Active, 0, "", "RUNNING"});
  try {
    WriterClaim::take(h, o);
    FAIL() << "took a running job's history";
  } catch (const HistoryError& e) {
    EXPECT_THAT(e.what(), HasSubstr("pid 4242 on host elsewhere (Slurm job 77)"));
    EXPECT_THAT(e.what(), HasSubstr("Slurm job 77 is still RUNNING"));
  }
  o.jobs = answering({JobStatus::Kind::Ended, 0, "", "CANCELLED"});
  auto claim = WriterClaim::take(h, o);
  EXPECT_THAT(claim.note(), HasSubstr("Slurm job 77 has ended (CANCELLED)"));
}

// A writer whose claim was judged stale and taken over (its node cut off
// while Slurm requeued its job elsewhere) learns it, and who has it now; its
// release leaves the new writer's record alone.
TEST_P(WriterClaimTest, AWriterLearnsItsClaimWasTakenOver) {
  const std::string h = file("h.h5");
  auto claim = WriterClaim::take(h, options(this_process()));
  EXPECT_FALSE(claim.taken());
  ASSERT_EQ(::unlink((h + ".lock").c_str()), 0);
  EXPECT_THAT(claim.taken().value_or(""), HasSubstr("nobody: its owner record " + h + ".lock was removed"));
  WriterRecord taker = record("node2", 77);
  taker.job = 5;
  write("h.h5.lock", taker.to_json());
  EXPECT_THAT(claim.taken().value_or(""), HasSubstr("pid 77 on host node2 (Slurm job 5)"));
  claim.release();
  EXPECT_FALSE(claim.taken());  // released: nothing to lose
  EXPECT_EQ(files(), std::vector<std::string>{"h.h5.lock"});
}

TEST_P(WriterClaimTest, ARecordNobodyCanCheckIsRefusedWithTheWayOut) {
  const std::string h = file("h.h5");
  write("h.h5.lock", record("elsewhere", 4242).to_json());
  try {
    WriterClaim::take(h, options(this_process()));
    FAIL();
  } catch (const HistoryError& e) {
    EXPECT_THAT(e.what(), HasSubstr("If it is no longer running, remove " + h + ".lock and run again"));
  }
  EXPECT_EQ(files(), std::vector<std::string>{"h.h5.lock"});
}

TEST_P(WriterClaimTest, AnOlderTunesEmptyLockFileIsNoOwner) {
  const std::string h = file("h.h5");
  write("h.h5.lock", "");
  auto claim = WriterClaim::take(h, options(this_process()));
  EXPECT_THAT(claim.note(), HasSubstr("unreadable"));
}

TEST_P(WriterClaimTest, HistoryCreateAndResumeUseTheCallersClaim) {
  const std::string h = file("h.h5");
  StudyInfo s;
  s.name = "claimed";
  s.space = SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})");
  auto claim = WriterClaim::take(h, options(this_process()));
  History::create(h, s, claim).close();
  EXPECT_TRUE(fs::exists(h + ".lock")) << "the caller's claim outlives the History";
  History::resume(h, std::nullopt, claim).close();
  EXPECT_THROW(History::resume(h), HistoryError);  // its own claim meets the caller's
  claim.release();
  History::resume(h).close();
  EXPECT_EQ(files(), std::vector<std::string>{"h.h5"});
}

INSTANTIATE_TEST_SUITE_P(Locks, WriterClaimTest, testing::Values(true, false),
                         [](const auto& info) { return info.param ? "flock" : "record_only"; });

}  // namespace
}  // namespace tune
