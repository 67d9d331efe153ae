// SPDX-License-Identifier: GPL-2.0-or-later
#include "history/history.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <utility>

#include "history/schema.hpp"

namespace tune {
using namespace schema;

// --- History ------------------------------------------------------------------------------

struct History::Impl {
  std::string path;
  StudyInfo study;
  std::vector<Trial> trials;
  std::uint64_t report_rows = 0;
  bool recovered = false;
  std::string recovery_warning;
  std::optional<WriterClaim> own_claim;  // when the caller gave none
  bool hdf5_locks = true;
  std::unique_ptr<TrialLayout> trial_layout;
  ReportLayout report_layout;
  Id file, trials_dset, reports_dset;
  // Writes the storage refused (History::stalled): trials by id, then
  // report rows (their first row, count and encoded bytes), in order.
  std::set<std::uint64_t> queued_trials;
  struct QueuedReports {
    std::uint64_t at, count;
    std::vector<char> bytes;
  };
  std::vector<QueuedReports> queued_reports;
  std::optional<int> stalled;

  ~Impl() { close_file(); }
  void close_file() {
    trials_dset.reset();
    reports_dset.reset();
    file.reset();
  }
  void flush() {
    if (H5Fflush(file.get(), H5F_SCOPE_LOCAL) < 0) fail(path, "cannot flush to disk");
  }
  void open_tables() {
    trials_dset = checked(H5Dopen2(file.get(), "trials", H5P_DEFAULT), H5Dclose, path, "no /trials dataset");
    reports_dset =
        checked(H5Dopen2(file.get(), "reports", H5P_DEFAULT), H5Dclose, path, "no /reports dataset");
  }
};

History::History(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
History::History(History&&) noexcept = default;
History& History::operator=(History&&) noexcept = default;
History::~History() = default;

namespace {

// Writes a complete new history file at `tmp` holding `snap` and leaves it
// open in SWMR-write mode inside `impl`.
void build_file(History::Impl& impl, const std::string& tmp, const HistorySnapshot& snap);

}  // namespace

History History::create(const std::string& path, const StudyInfo& study) {
  auto claim = WriterClaim::take(path);
  History h = create(path, study, claim);
  h.impl_->own_claim.emplace(std::move(claim));
  return h;
}

History History::resume(const std::string& path, std::optional<std::uint64_t> trials) {
  if (!std::filesystem::exists(path))
    throw HistoryError(path + ": no such history file; start a new study without --resume");
  auto claim = WriterClaim::take(path);
  History h = resume(path, trials, claim);
  h.impl_->own_claim.emplace(std::move(claim));
  return h;
}

History History::create(const std::string& path, const StudyInfo& study, const WriterClaim& claim) {
  quiet_hdf5();
  if (claim.lock_path() != path + ".lock")
    throw std::logic_error("History::create: the claim is not for " + path);
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->hdf5_locks = claim.kernel_locks();
  if (std::filesystem::exists(path))
    throw HistoryError(path +
                       ": already exists; continue that study with --resume, or choose another history file");
  HistorySnapshot snap{study, {}, {}, {}};
  // Built under a temporary name and linked into place: a crash during
  // creation never leaves a half-made file under the real name.
  const std::string tmp = path + ".creating";
  std::filesystem::remove(tmp);
  build_file(*impl, tmp, snap);
  if (::link(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    impl->close_file();
    std::filesystem::remove(tmp);
    throw HistoryError(path + ": cannot create: " + std::strerror(err));
  }
  std::filesystem::remove(tmp);
  return History(std::move(impl));
}

History History::resume(const std::string& path, std::optional<std::uint64_t> trials,
                        const WriterClaim& claim, bool continues) {
  quiet_hdf5();
  if (claim.lock_path() != path + ".lock")
    throw std::logic_error("History::resume: the claim is not for " + path);
  if (!std::filesystem::exists(path))
    throw HistoryError(path + ": no such history file; start a new study without --resume");
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->hdf5_locks = claim.kernel_locks();
  Id fapl = latest_format_fapl(path, impl->hdf5_locks);
  if ((trials && *trials > 0) || continues) {
    // A new trial budget is written before SWMR writing starts (attributes
    // cannot change under it), and an earlier end removed; a file left open
    // by a killed writer does not open here and gets both in its repaired
    // copy below.
    if (const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get()); f >= 0) {
      Id file(f, H5Fclose);
      if (trials && *trials > 0)
        set_number_attr<std::uint64_t>(f, "trials", H5T_NATIVE_UINT64, *trials, path);
      if (continues && H5Aexists(f, "ended") > 0 && H5Adelete(f, "ended") < 0)
        fail(path, "cannot remove the attribute ended");
    } else {
      H5Eclear2(H5E_DEFAULT);
    }
  }
  const hid_t fid = H5Fopen(path.c_str(), H5F_ACC_RDWR | H5F_ACC_SWMR_WRITE, fapl.get());
  if (fid >= 0) {
    impl->file = Id(fid, H5Fclose);
    impl->study = read_study(fid, path);
    impl->open_tables();
    // A file from before checksums (or lineage) is continued without them (rows match the file's).
    impl->trial_layout = std::make_unique<TrialLayout>(impl->study.space, impl->study.objectives,
                                                       has_member(impl->trials_dset.get(), "check"),
                                                       has_member(impl->trials_dset.get(), "from"));
    impl->report_layout = ReportLayout(has_member(impl->reports_dset.get(), "check"));
    const auto rows = read_rows(impl->trials_dset.get(), impl->trial_layout->row_type.get(),
                                impl->trial_layout->size, path);
    for (std::size_t i = 0; i < rows.size() / impl->trial_layout->size; ++i)
      impl->trials.push_back(
          impl->trial_layout->decode(rows.data() + i * impl->trial_layout->size, impl->study.space));
    impl->report_rows = rows_of(impl->reports_dset.get(), path);
    return History(std::move(impl));
  }
  H5Eclear2(H5E_DEFAULT);
  // Left open for writing by a writer that was killed: HDF5 will not open it
  // for writing again, but it reads consistently. Copy it into a new file.
  HistorySnapshot snap = read_history(path);
  impl->recovery_warning = snap.warning;
  if (trials && *trials > 0) snap.study.trials = *trials;
  if (continues) snap.study.ended.clear();
  const std::string tmp = path + ".recovering";
  std::filesystem::remove(tmp);
  build_file(*impl, tmp, snap);
  const std::string backup = path + ".before-recovery";
  std::filesystem::remove(backup);
  if (::link(path.c_str(), backup.c_str()) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    impl->close_file();
    throw HistoryError(path + ": cannot replace it with its repaired copy " + tmp + ": " +
                       std::strerror(err));
  }
  impl->recovered = true;
  return History(std::move(impl));
}

namespace {

void build_file(History::Impl& impl, const std::string& tmp, const HistorySnapshot& snap) {
  Id fapl = latest_format_fapl(tmp, impl.hdf5_locks);
  impl.file = checked(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()), H5Fclose, tmp,
                      "cannot create the history file");
  impl.study = snap.study;
  impl.trial_layout = std::make_unique<TrialLayout>(impl.study.space, impl.study.objectives);
  write_study(impl.file.get(), impl.study, tmp);
  impl.trials_dset =
      create_table(impl.file.get(), "trials", impl.trial_layout->row_type.get(), kTrialChunk, tmp);
  impl.reports_dset =
      create_table(impl.file.get(), "reports", impl.report_layout.row_type.get(), kReportChunk, tmp);
  // Copy what a recovered file held, in bulk.
  std::vector<char> rows;
  for (const auto& t : snap.trials) {
    const auto row = impl.trial_layout->encode(t, impl.study.space);
    rows.insert(rows.end(), row.begin(), row.end());
  }
  if (!snap.trials.empty())
    write_rows(impl.trials_dset.get(), impl.trial_layout->row_type.get(), 0, snap.trials.size(), rows.data(),
               tmp);
  const auto& rl = impl.report_layout;
  std::vector<char> reports(snap.reports.size() * rl.size, 0);
  for (std::size_t i = 0; i < snap.reports.size(); ++i) {
    char* at = reports.data() + i * rl.size;
    const auto& r = snap.reports[i];
    rl.encode(at, r.trial, r.step, r.time, r.value, r.metric);
  }
  if (!snap.reports.empty())
    write_rows(impl.reports_dset.get(), rl.row_type.get(), 0, snap.reports.size(), reports.data(), tmp);
  impl.trials = snap.trials;
  impl.report_rows = snap.reports.size();
  if (H5Fstart_swmr_write(impl.file.get()) < 0) fail(tmp, "cannot start SWMR writing");
  if (H5Fflush(impl.file.get(), H5F_SCOPE_LOCAL) < 0) fail(tmp, "cannot flush to disk");
}

}  // namespace

const std::string& History::path() const {
  return impl_->path;
}
const StudyInfo& History::study() const {
  return impl_->study;
}
const std::vector<Trial>& History::trials() const {
  return impl_->trials;
}
std::uint64_t History::report_rows() const {
  return impl_->report_rows;
}
bool History::recovered() const {
  return impl_->recovered;
}
const std::string& History::recovery_warning() const {
  return impl_->recovery_warning;
}

bool storage_errno(int error) {
  return error == ENOSPC || error == EDQUOT || error == EROFS || error == EIO;
}

namespace {

// Runs a write; one the storage refuses queues instead (`queue`), any other
// failure throws.
template <class Write, class Queue>
void write_or_queue(History::Impl& im, Write write, Queue queue) {
  if (im.stalled) return queue();
  try {
    write();
    im.flush();
  } catch (const HistoryError& e) {
    if (!storage_errno(e.error())) throw;
    im.stalled = e.error();
    queue();
  }
}

}  // namespace

void History::put(const Trial& t) {
  auto& im = *impl_;
  if (!im.file.valid()) throw HistoryError(im.path + ": history is closed");
  if (t.id > im.trials.size())
    throw std::logic_error("History::put: trial " + std::to_string(t.id) + " skips ids (have " +
                           std::to_string(im.trials.size()) + ")");
  write_or_queue(
      im,
      [&] {
        const auto row = im.trial_layout->encode(t, im.study.space);
        write_rows(im.trials_dset.get(), im.trial_layout->row_type.get(), t.id, 1, row.data(), im.path);
      },
      [&] { im.queued_trials.insert(t.id); });
  if (t.id == im.trials.size()) {
    im.trials.push_back(t);
  } else {
    im.trials[t.id] = t;
  }
}

void History::add_report(std::uint64_t trial, const Report& report, double time) {
  auto& im = *impl_;
  if (!im.file.valid()) throw HistoryError(im.path + ": history is closed");
  std::vector<std::pair<std::string, double>> values = report.metrics;
  if (report.objective) values.emplace_back("objective", *report.objective);
  if (values.empty()) return;
  const auto& rl = im.report_layout;
  std::vector<char> buf(values.size() * rl.size, 0);
  const std::int64_t step = report.step.value_or(-1);
  for (std::size_t i = 0; i < values.size(); ++i) {
    char* at = buf.data() + i * rl.size;
    rl.encode(at, trial, step, time, values[i].second, values[i].first);
  }
  const std::uint64_t at = im.report_rows;
  write_or_queue(
      im,
      [&] { write_rows(im.reports_dset.get(), rl.row_type.get(), at, values.size(), buf.data(), im.path); },
      [&] {
        im.queued_reports.push_back({at, values.size(), std::move(buf)});
      });
  im.report_rows += values.size();
}

std::optional<int> History::stalled() const {
  return impl_->stalled;
}

bool History::retry() {
  auto& im = *impl_;
  if (!im.stalled) return true;
  if (!im.file.valid()) throw HistoryError(im.path + ": history is closed");
  try {
    for (const auto id : im.queued_trials) {
      const auto row = im.trial_layout->encode(im.trials[id], im.study.space);
      write_rows(im.trials_dset.get(), im.trial_layout->row_type.get(), id, 1, row.data(), im.path);
    }
    for (const auto& q : im.queued_reports)
      write_rows(im.reports_dset.get(), im.report_layout.row_type.get(), q.at, q.count, q.bytes.data(),
                 im.path);
    im.flush();
  } catch (const HistoryError& e) {
    if (!storage_errno(e.error())) throw;
    im.stalled = e.error();
    return false;
  }
  im.queued_trials.clear();
  im.queued_reports.clear();
  im.stalled.reset();
  return true;
}

void History::close() {
  (void)close_ended({});
}

std::optional<std::string> History::close_ended(const std::string& how) {
  if (!impl_) return std::nullopt;
  struct Release {  // done writing, however this ends: another process may resume now
    Impl& im;
    ~Release() {
      if (im.own_claim) im.own_claim->release();
    }
  } release{*impl_};
  if (!impl_->file.valid()) return std::nullopt;
  if (!retry()) {
    const int error = *impl_->stalled;
    impl_->close_file();
    throw HistoryError(
        impl_->path + ": cannot write its last " + std::to_string(impl_->queued_trials.size()) +
            " trial change(s): " + std::strerror(error) + " (the file holds everything recorded before)",
        error);
  }
  impl_->flush();
  impl_->close_file();
  if (how.empty()) return std::nullopt;
  // Attributes cannot change under SWMR writing: the closed file is opened
  // once more, without it, for this one attribute.
  const std::string& path = impl_->path;
  try {
    Id fapl = latest_format_fapl(path, impl_->hdf5_locks);
    Id file =
        checked(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose, path, "cannot open it again");
    if (H5Aexists(file.get(), "ended") > 0 && H5Adelete(file.get(), "ended") < 0)
      fail(path, "cannot replace the attribute ended");
    write_string_attr(file.get(), "ended", how, path);
    impl_->study.ended = how;
  } catch (const HistoryError& e) {
    H5Eclear2(H5E_DEFAULT);
    return std::string("how the study ended is not kept in the history: ") + e.what();
  }
  return std::nullopt;
}

std::vector<ReportRow> History::reports() const {
  if (!impl_->file.valid()) throw HistoryError(impl_->path + ": history is closed");
  return read_report_rows(impl_->reports_dset.get(), impl_->path);
}

std::string objective_text(const std::vector<ObjectiveSpec>& objectives) {
  std::string s;
  for (const auto& o : objectives) s += (s.empty() ? "" : ",") + o.name;
  return s;
}

std::string direction_text(const std::vector<ObjectiveSpec>& objectives, bool minimize) {
  if (objectives.empty()) return minimize ? "min" : "max";
  std::string s;
  for (const auto& o : objectives) s += (s.empty() ? "" : ",") + std::string(o.minimize ? "min" : "max");
  return s;
}

}  // namespace tune
