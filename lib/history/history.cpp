#include "history/history.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

namespace tune {
namespace {

constexpr int kFormatVersion = 1;
constexpr std::size_t kHostLen = 64, kMessageLen = 256, kMetricLen = 72;
constexpr hsize_t kTrialChunk = 64, kReportChunk = 512;

// --- HDF5 plumbing ---------------------------------------------------------------------

// The innermost message of HDF5's error stack, for our own error text.
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        if (n == 0 && e->desc) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &reason);
  H5Eclear2(H5E_DEFAULT);
  return reason;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  const std::string reason = hdf5_reason();
  throw HistoryError(path + ": " + what + (reason.empty() ? "" : " (" + reason + ")"));
}

// Owns one HDF5 identifier.
class Id {
 public:
  Id() = default;
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Id(Id&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  Id& operator=(Id&& o) noexcept {
    reset();
    id_ = std::exchange(o.id_, H5I_INVALID_HID);
    close_ = o.close_;
    return *this;
  }
  ~Id() { reset(); }
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = H5I_INVALID_HID;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

Id checked(hid_t id, herr_t (*close)(hid_t), const std::string& path, const char* what) {
  if (id < 0) fail(path, what);
  return Id(id, close);
}

void quiet_hdf5() {
  static const bool once = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // we report errors ourselves
    return true;
  }();
  (void)once;
}

Id string_type(std::size_t len) {
  Id t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t.get(), std::max<std::size_t>(len, 1));
  H5Tset_strpad(t.get(), H5T_STR_NULLPAD);
  return t;
}

void copy_fixed(char* dst, std::size_t len, const std::string& s) {
  std::memset(dst, 0, len);
  std::memcpy(dst, s.data(), std::min(len, s.size()));
}
std::string read_fixed(const char* src, std::size_t len) { return std::string(src, strnlen(src, len)); }

// --- row layouts -----------------------------------------------------------------------------

// A packed compound layout built field by field, used alike in memory and file.
class Layout {
 public:
  std::size_t add(const char* name, hid_t type) {
    const std::size_t at = size_;
    fields_.push_back({name, type, at});
    size_ += H5Tget_size(type);
    return at;
  }
  std::size_t size() const { return size_; }
  Id build() const {
    Id t(H5Tcreate(H5T_COMPOUND, size_), H5Tclose);
    for (const auto& f : fields_) H5Tinsert(t.get(), f.name.c_str(), f.offset, f.type);
    return t;
  }

 private:
  struct Field {
    std::string name;
    hid_t type;
    std::size_t offset;
  };
  std::vector<Field> fields_;
  std::size_t size_ = 0;
};

// The /trials row of one study: fixed fields, then a nested compound "params"
// with one member per parameter of the space; a conditional space adds a
// compound "active" with a boolean per conditional parameter (false: the
// parameter did not exist in that trial; its params member then holds NaN,
// 0 or "").
struct TrialLayout {
  Id state_type, host_type, message_type, params_type, bool_type, active_type, objectives_type, row_type;
  std::vector<Id> choice_types;
  std::size_t id, state, objective, start_time, end_time, wall_time, rank, exit_code, signal, peak_rss_kb,
      last_step, host, message, params, active = 0, values = 0;
  std::vector<std::size_t> value_offsets;  // named objectives
  std::vector<std::size_t> param_offsets;
  std::vector<std::optional<std::size_t>> active_offsets;  // of conditional parameters
  std::vector<std::size_t> choice_lens;
  std::size_t size = 0;

  TrialLayout(const SearchSpace& space, const std::vector<ObjectiveSpec>& objectives) {
    state_type = Id(H5Tenum_create(H5T_NATIVE_UINT8), H5Tclose);
    for (int s = 0; s < kTrialStates; ++s) {
      const auto v = static_cast<std::uint8_t>(s);
      H5Tenum_insert(state_type.get(), std::string(state_name(static_cast<TrialState>(s))).c_str(), &v);
    }
    host_type = string_type(kHostLen);
    message_type = string_type(kMessageLen);

    Layout params_layout;
    for (const auto& p : space.parameters()) {
      std::size_t len = 0;
      hid_t type = H5T_NATIVE_DOUBLE;
      if (p.kind == ParamKind::Int) type = H5T_NATIVE_INT64;
      if (p.kind == ParamKind::Choice) {
        for (const auto& c : p.choices) len = std::max(len, c.size());
        choice_types.push_back(string_type(len));
        type = choice_types.back().get();
      }
      choice_lens.push_back(len);
      param_offsets.push_back(params_layout.add(p.name.c_str(), type));
    }
    params_type = params_layout.build();
    Layout active_layout;
    if (space.conditional()) {
      // As h5py writes numpy's bool: an int8 enum FALSE = 0, TRUE = 1.
      bool_type = Id(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose);
      const std::int8_t no = 0, yes = 1;
      H5Tenum_insert(bool_type.get(), "FALSE", &no);
      H5Tenum_insert(bool_type.get(), "TRUE", &yes);
      for (const auto& p : space.parameters())
        active_offsets.push_back(p.when.empty() ? std::nullopt
                                                : std::optional<std::size_t>(active_layout.add(p.name.c_str(), bool_type.get())));
      active_type = active_layout.build();
    }

    Layout row;
    id = row.add("id", H5T_NATIVE_UINT64);
    state = row.add("state", state_type.get());
    objective = row.add("objective", H5T_NATIVE_DOUBLE);
    start_time = row.add("start_time", H5T_NATIVE_DOUBLE);
    end_time = row.add("end_time", H5T_NATIVE_DOUBLE);
    wall_time = row.add("wall_time", H5T_NATIVE_DOUBLE);
    rank = row.add("rank", H5T_NATIVE_INT32);
    exit_code = row.add("exit_code", H5T_NATIVE_INT32);
    signal = row.add("signal", H5T_NATIVE_INT32);
    peak_rss_kb = row.add("peak_rss_kb", H5T_NATIVE_INT64);
    last_step = row.add("last_step", H5T_NATIVE_INT64);
    host = row.add("host", host_type.get());
    message = row.add("message", message_type.get());
    params = row.add("params", params_type.get());
    if (space.conditional()) active = row.add("active", active_type.get());
    if (!objectives.empty()) {
      // With named objectives: "objectives", a float64 per name (NaN if none).
      Layout objectives_layout;
      for (const auto& o : objectives) value_offsets.push_back(objectives_layout.add(o.name.c_str(), H5T_NATIVE_DOUBLE));
      objectives_type = objectives_layout.build();
      values = row.add("objectives", objectives_type.get());
    }
    row_type = row.build();
    size = row.size();
  }

  template <typename T>
  static void put(std::vector<char>& buf, std::size_t at, T v) {
    std::memcpy(buf.data() + at, &v, sizeof v);
  }
  template <typename T>
  static T get(const char* buf, std::size_t at) {
    T v;
    std::memcpy(&v, buf + at, sizeof v);
    return v;
  }

  std::vector<char> encode(const Trial& t, const SearchSpace& space) const {
    std::vector<char> buf(size, 0);
    put<std::uint64_t>(buf, id, t.id);
    put<std::uint8_t>(buf, state, static_cast<std::uint8_t>(t.state));
    put<double>(buf, objective, t.objective.value_or(std::nan("")));
    put<double>(buf, start_time, t.start_time);
    put<double>(buf, end_time, t.end_time);
    put<double>(buf, wall_time, t.wall_time());
    put<std::int32_t>(buf, rank, t.rank);
    put<std::int32_t>(buf, exit_code, t.exit_code);
    put<std::int32_t>(buf, signal, t.signal);
    put<std::int64_t>(buf, peak_rss_kb, t.peak_rss_kb);
    put<std::int64_t>(buf, last_step, t.last_step);
    copy_fixed(buf.data() + host, kHostLen, t.host);
    copy_fixed(buf.data() + message, kMessageLen, t.message);
    for (std::size_t k = 0; k < value_offsets.size(); ++k)
      put<double>(buf, values + value_offsets[k], k < t.values.size() ? t.values[k] : std::nan(""));
    const auto& ps = space.parameters();
    for (std::size_t i = 0; i < ps.size() && i < t.params.size(); ++i) {
      const std::size_t at = params + param_offsets[i];
      const auto& v = t.params[i];
      if (!active_offsets.empty() && active_offsets[i])
        put<std::int8_t>(buf, active + *active_offsets[i], is_absent(v) ? 0 : 1);
      if (is_absent(v)) {
        if (ps[i].kind != ParamKind::Int && ps[i].kind != ParamKind::Choice) put<double>(buf, at, std::nan(""));
        continue;  // int 0, string "": the buffer's zeros
      }
      switch (ps[i].kind) {
        case ParamKind::Int: put<std::int64_t>(buf, at, std::get<std::int64_t>(v)); break;
        case ParamKind::Choice: copy_fixed(buf.data() + at, choice_lens[i], std::get<std::string>(v)); break;
        default: put<double>(buf, at, std::get<double>(v)); break;
      }
    }
    return buf;
  }

  Trial decode(const char* buf, const SearchSpace& space) const {
    Trial t;
    t.id = get<std::uint64_t>(buf, id);
    const auto s = get<std::uint8_t>(buf, state);
    t.state = s < kTrialStates ? static_cast<TrialState>(s) : TrialState::Interrupted;
    const double obj = get<double>(buf, objective);
    if (!std::isnan(obj)) t.objective = obj;
    t.start_time = get<double>(buf, start_time);
    t.end_time = get<double>(buf, end_time);
    t.rank = get<std::int32_t>(buf, rank);
    t.exit_code = get<std::int32_t>(buf, exit_code);
    t.signal = get<std::int32_t>(buf, signal);
    t.peak_rss_kb = get<std::int64_t>(buf, peak_rss_kb);
    t.last_step = get<std::int64_t>(buf, last_step);
    t.host = read_fixed(buf + host, kHostLen);
    t.message = read_fixed(buf + message, kMessageLen);
    for (std::size_t k = 0; k < value_offsets.size(); ++k) {
      const double v = get<double>(buf, values + value_offsets[k]);
      if (std::isnan(v)) {
        t.values.clear();  // none, or not all: the trial has no values
        break;
      }
      t.values.push_back(v);
    }
    const auto& ps = space.parameters();
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const std::size_t at = params + param_offsets[i];
      if (!active_offsets.empty() && active_offsets[i] && get<std::int8_t>(buf, active + *active_offsets[i]) == 0) {
        t.params.emplace_back(std::monostate{});
        continue;
      }
      switch (ps[i].kind) {
        case ParamKind::Int: t.params.emplace_back(get<std::int64_t>(buf, at)); break;
        case ParamKind::Choice: t.params.emplace_back(read_fixed(buf + at, choice_lens[i])); break;
        default: t.params.emplace_back(get<double>(buf, at)); break;
      }
    }
    return t;
  }
};

struct ReportLayout {
  Id metric_type, row_type;
  std::size_t trial, step, time, value, metric, size;
  ReportLayout() {
    metric_type = string_type(kMetricLen);
    Layout row;
    trial = row.add("trial", H5T_NATIVE_UINT64);
    step = row.add("step", H5T_NATIVE_INT64);
    time = row.add("time", H5T_NATIVE_DOUBLE);
    value = row.add("value", H5T_NATIVE_DOUBLE);
    metric = row.add("metric", metric_type.get());
    row_type = row.build();
    size = row.size();
  }
};

// --- attributes --------------------------------------------------------------------------

void write_string_attr(hid_t obj, const char* name, const std::string& value, const std::string& path) {
  Id type = string_type(value.size());
  Id space = checked(H5Screate(H5S_SCALAR), H5Sclose, path, "cannot create a dataspace");
  Id attr = checked(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, path,
                    "cannot create an attribute");
  if (H5Awrite(attr.get(), type.get(), value.data()) < 0) fail(path, std::string("cannot write attribute ") + name);
}

template <typename T>
void write_number_attr(hid_t obj, const char* name, hid_t type, T value, const std::string& path) {
  Id space = checked(H5Screate(H5S_SCALAR), H5Sclose, path, "cannot create a dataspace");
  Id attr = checked(H5Acreate2(obj, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, path,
                    "cannot create an attribute");
  if (H5Awrite(attr.get(), type, &value) < 0) fail(path, std::string("cannot write attribute ") + name);
}

// Writes a number attribute whether or not it exists (not under SWMR writing).
template <typename T>
void set_number_attr(hid_t obj, const char* name, hid_t type, T value, const std::string& path) {
  if (H5Aexists(obj, name) <= 0) return write_number_attr<T>(obj, name, type, value, path);
  Id attr = checked(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, path, "cannot open an attribute");
  if (H5Awrite(attr.get(), type, &value) < 0) fail(path, std::string("cannot write attribute ") + name);
}

std::string read_string_attr(hid_t obj, const char* name, const std::string& path) {
  Id attr = checked(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, path,
                    (std::string("not a tune history: no attribute ") + name).c_str());
  Id ftype = checked(H5Aget_type(attr.get()), H5Tclose, path, "cannot read an attribute type");
  if (H5Tget_class(ftype.get()) != H5T_STRING || H5Tis_variable_str(ftype.get()) > 0)
    fail(path, std::string("attribute ") + name + " is not a fixed-length string");
  const std::size_t len = H5Tget_size(ftype.get());
  std::string out(len, '\0');
  Id mtype = string_type(len);
  if (H5Aread(attr.get(), mtype.get(), out.data()) < 0) fail(path, std::string("cannot read attribute ") + name);
  out.resize(strnlen(out.data(), len));
  return out;
}

template <typename T>
T read_number_attr(hid_t obj, const char* name, hid_t type, const std::string& path) {
  Id attr = checked(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, path,
                    (std::string("not a tune history: no attribute ") + name).c_str());
  T v{};
  if (H5Aread(attr.get(), type, &v) < 0) fail(path, std::string("cannot read attribute ") + name);
  return v;
}

void write_study(hid_t file, const StudyInfo& s, const std::string& path) {
  write_string_attr(file, "format", "tune-history", path);
  write_number_attr<std::int32_t>(file, "format_version", H5T_NATIVE_INT32, kFormatVersion, path);
  write_string_attr(file, "name", s.name, path);
  write_string_attr(file, "space", s.space.to_json().dump(), path);
  write_string_attr(file, "sampler", s.sampler, path);
  write_number_attr<std::uint64_t>(file, "seed", H5T_NATIVE_UINT64, s.seed, path);
  write_number_attr<std::int32_t>(file, "grid_points", H5T_NATIVE_INT32, s.grid_points, path);
  write_string_attr(file, "direction", s.minimize ? "min" : "max", path);
  write_string_attr(file, "command", s.command, path);
  write_string_attr(file, "program_version", s.program_version, path);
  write_string_attr(file, "created", s.created, path);
  write_string_attr(file, "tune_version", s.tune_version, path);
  write_string_attr(file, "pruner", s.pruner.to_json().dump(), path);
  // Only in studies that have them (files of earlier studies lack them).
  if (s.imported > 0) {
    write_number_attr<std::uint64_t>(file, "imported", H5T_NATIVE_UINT64, s.imported, path);
    write_string_attr(file, "imported_from", s.imported_from, path);
  }
  if (!s.enqueued.empty()) write_string_attr(file, "enqueued", s.enqueued, path);
  if (s.trials > 0) write_number_attr<std::uint64_t>(file, "trials", H5T_NATIVE_UINT64, s.trials, path);
  if (!s.objectives.empty()) {
    nlohmann::json objectives = nlohmann::json::array();
    for (const auto& o : s.objectives) objectives.push_back({{"name", o.name}, {"direction", o.minimize ? "min" : "max"}});
    write_string_attr(file, "objectives", objectives.dump(), path);
  }
}

StudyInfo read_study(hid_t file, const std::string& path) {
  if (H5Aexists(file, "format") <= 0 || read_string_attr(file, "format", path) != "tune-history")
    throw HistoryError(path + ": not a tune history file (no format=\"tune-history\" attribute)");
  const auto version = read_number_attr<std::int32_t>(file, "format_version", H5T_NATIVE_INT32, path);
  if (version != kFormatVersion)
    throw HistoryError(path + ": history format version " + std::to_string(version) + ", this tune reads version " +
                       std::to_string(kFormatVersion) + "; use a matching tune");
  StudyInfo s;
  s.name = read_string_attr(file, "name", path);
  try {
    s.space = SearchSpace::parse(read_string_attr(file, "space", path), "the history's space attribute");
  } catch (const SpaceError& e) {
    throw HistoryError(path + ": " + e.what());
  }
  s.sampler = read_string_attr(file, "sampler", path);
  s.seed = read_number_attr<std::uint64_t>(file, "seed", H5T_NATIVE_UINT64, path);
  s.grid_points = read_number_attr<std::int32_t>(file, "grid_points", H5T_NATIVE_INT32, path);
  s.minimize = read_string_attr(file, "direction", path) != "max";
  s.command = read_string_attr(file, "command", path);
  s.program_version = read_string_attr(file, "program_version", path);
  s.created = read_string_attr(file, "created", path);
  s.tune_version = read_string_attr(file, "tune_version", path);
  if (H5Aexists(file, "pruner") > 0) {  // absent in files of studies without early stopping
    try {
      s.pruner = PrunerOptions::from_json(nlohmann::json::parse(read_string_attr(file, "pruner", path)));
    } catch (const std::exception& e) {
      throw HistoryError(path + ": the pruner attribute is unreadable: " + e.what());
    }
  }
  if (H5Aexists(file, "imported") > 0) {
    s.imported = read_number_attr<std::uint64_t>(file, "imported", H5T_NATIVE_UINT64, path);
    s.imported_from = read_string_attr(file, "imported_from", path);
  }
  if (H5Aexists(file, "enqueued") > 0) s.enqueued = read_string_attr(file, "enqueued", path);
  if (H5Aexists(file, "trials") > 0) s.trials = read_number_attr<std::uint64_t>(file, "trials", H5T_NATIVE_UINT64, path);
  if (H5Aexists(file, "objectives") > 0) {
    try {
      for (const auto& o : nlohmann::json::parse(read_string_attr(file, "objectives", path)))
        s.objectives.push_back({o.at("name").get<std::string>(), o.at("direction").get<std::string>() != "max"});
    } catch (const std::exception& e) {
      throw HistoryError(path + ": the objectives attribute is unreadable: " + e.what());
    }
  }
  return s;
}

Id latest_format_fapl(const std::string& path) {
  Id fapl = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, path, "cannot create file properties");
  // SWMR needs the 1.10 file format.
  if (H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0)
    fail(path, "cannot select the HDF5 1.10 format");
  return fapl;
}

Id create_table(hid_t file, const char* name, hid_t type, hsize_t chunk, const std::string& path) {
  hsize_t dims = 0, maxdims = H5S_UNLIMITED;
  Id space = checked(H5Screate_simple(1, &dims, &maxdims), H5Sclose, path, "cannot create a dataspace");
  Id dcpl = checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, path, "cannot create dataset properties");
  H5Pset_chunk(dcpl.get(), 1, &chunk);
  return checked(H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose, path,
                 "cannot create a dataset");
}

hsize_t rows_of(hid_t dset, const std::string& path) {
  Id space = checked(H5Dget_space(dset), H5Sclose, path, "cannot read a dataset's size");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  return n;
}

// Writes `count` rows from `buf` at row `at`, growing the dataset if needed.
void write_rows(hid_t dset, hid_t type, hsize_t at, hsize_t count, const void* buf, const std::string& path) {
  const hsize_t need = at + count;
  if (need > rows_of(dset, path) && H5Dset_extent(dset, &need) < 0) fail(path, "cannot grow a dataset");
  Id fspace = checked(H5Dget_space(dset), H5Sclose, path, "cannot select rows");
  H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &at, nullptr, &count, nullptr);
  Id mspace = checked(H5Screate_simple(1, &count, nullptr), H5Sclose, path, "cannot create a dataspace");
  if (H5Dwrite(dset, type, mspace.get(), fspace.get(), H5P_DEFAULT, buf) < 0) fail(path, "cannot write rows");
}

std::vector<char> read_rows(hid_t dset, hid_t type, std::size_t row_size, const std::string& path) {
  const hsize_t n = rows_of(dset, path);
  std::vector<char> buf(n * row_size);
  if (n > 0 && H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
    fail(path, "cannot read rows");
  return buf;
}

// flock on FILE.lock: one writer per history, released by the kernel however
// the writer ends (so a killed writer never blocks a resume).
int take_writer_lock(const std::string& path) {
  const std::string lock = path + ".lock";
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw HistoryError(lock + ": cannot create the lock file: " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err != EWOULDBLOCK) throw HistoryError(lock + ": cannot lock: " + std::strerror(err));
    throw HistoryError(path + ": another tune process is writing this history; wait for it to end, or give another "
                              "history file");
  }
  return fd;
}

}  // namespace

// --- History ------------------------------------------------------------------------------

struct History::Impl {
  std::string path;
  StudyInfo study;
  std::vector<Trial> trials;
  std::uint64_t report_rows = 0;
  bool recovered = false;
  int lock_fd = -1;
  std::unique_ptr<TrialLayout> trial_layout;
  ReportLayout report_layout;
  Id file, trials_dset, reports_dset;

  ~Impl() {
    close_file();
    if (lock_fd >= 0) ::close(lock_fd);
  }
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
    reports_dset = checked(H5Dopen2(file.get(), "reports", H5P_DEFAULT), H5Dclose, path, "no /reports dataset");
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
  quiet_hdf5();
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->lock_fd = take_writer_lock(path);
  if (std::filesystem::exists(path))
    throw HistoryError(path + ": already exists; continue that study with --resume, or choose another history file");
  HistorySnapshot snap{study, {}, {}};
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

History History::resume(const std::string& path, std::optional<std::uint64_t> trials) {
  quiet_hdf5();
  if (!std::filesystem::exists(path))
    throw HistoryError(path + ": no such history file; start a new study without --resume");
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->lock_fd = take_writer_lock(path);
  Id fapl = latest_format_fapl(path);
  if (trials && *trials > 0) {
    // A new trial budget is written before SWMR writing starts (attributes
    // cannot change under it); a file left open by a killed writer does not
    // open here and gets it in its repaired copy below.
    if (const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get()); f >= 0) {
      Id file(f, H5Fclose);
      set_number_attr<std::uint64_t>(f, "trials", H5T_NATIVE_UINT64, *trials, path);
    } else {
      H5Eclear2(H5E_DEFAULT);
    }
  }
  const hid_t fid = H5Fopen(path.c_str(), H5F_ACC_RDWR | H5F_ACC_SWMR_WRITE, fapl.get());
  if (fid >= 0) {
    impl->file = Id(fid, H5Fclose);
    impl->study = read_study(fid, path);
    impl->trial_layout = std::make_unique<TrialLayout>(impl->study.space, impl->study.objectives);
    impl->open_tables();
    const auto rows = read_rows(impl->trials_dset.get(), impl->trial_layout->row_type.get(),
                                impl->trial_layout->size, path);
    for (std::size_t i = 0; i < rows.size() / impl->trial_layout->size; ++i)
      impl->trials.push_back(impl->trial_layout->decode(rows.data() + i * impl->trial_layout->size, impl->study.space));
    impl->report_rows = rows_of(impl->reports_dset.get(), path);
    return History(std::move(impl));
  }
  H5Eclear2(H5E_DEFAULT);
  // Left open for writing by a writer that was killed: HDF5 will not open it
  // for writing again, but it reads consistently. Copy it into a new file.
  HistorySnapshot snap = read_history(path);
  if (trials && *trials > 0) snap.study.trials = *trials;
  const std::string tmp = path + ".recovering";
  std::filesystem::remove(tmp);
  build_file(*impl, tmp, snap);
  const std::string backup = path + ".before-recovery";
  std::filesystem::remove(backup);
  if (::link(path.c_str(), backup.c_str()) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    impl->close_file();
    throw HistoryError(path + ": cannot replace it with its repaired copy " + tmp + ": " + std::strerror(err));
  }
  impl->recovered = true;
  return History(std::move(impl));
}

namespace {

void build_file(History::Impl& impl, const std::string& tmp, const HistorySnapshot& snap) {
  Id fapl = latest_format_fapl(tmp);
  impl.file = checked(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()), H5Fclose, tmp,
                      "cannot create the history file");
  impl.study = snap.study;
  impl.trial_layout = std::make_unique<TrialLayout>(impl.study.space, impl.study.objectives);
  write_study(impl.file.get(), impl.study, tmp);
  impl.trials_dset = create_table(impl.file.get(), "trials", impl.trial_layout->row_type.get(), kTrialChunk, tmp);
  impl.reports_dset = create_table(impl.file.get(), "reports", impl.report_layout.row_type.get(), kReportChunk, tmp);
  // Copy what a recovered file held, in bulk.
  std::vector<char> rows;
  for (const auto& t : snap.trials) {
    const auto row = impl.trial_layout->encode(t, impl.study.space);
    rows.insert(rows.end(), row.begin(), row.end());
  }
  if (!snap.trials.empty())
    write_rows(impl.trials_dset.get(), impl.trial_layout->row_type.get(), 0, snap.trials.size(), rows.data(), tmp);
  const auto& rl = impl.report_layout;
  std::vector<char> reports(snap.reports.size() * rl.size, 0);
  for (std::size_t i = 0; i < snap.reports.size(); ++i) {
    char* at = reports.data() + i * rl.size;
    const auto& r = snap.reports[i];
    std::memcpy(at + rl.trial, &r.trial, sizeof r.trial);
    std::memcpy(at + rl.step, &r.step, sizeof r.step);
    std::memcpy(at + rl.time, &r.time, sizeof r.time);
    std::memcpy(at + rl.value, &r.value, sizeof r.value);
    copy_fixed(at + rl.metric, kMetricLen, r.metric);
  }
  if (!snap.reports.empty())
    write_rows(impl.reports_dset.get(), rl.row_type.get(), 0, snap.reports.size(), reports.data(), tmp);
  impl.trials = snap.trials;
  impl.report_rows = snap.reports.size();
  if (H5Fstart_swmr_write(impl.file.get()) < 0) fail(tmp, "cannot start SWMR writing");
  if (H5Fflush(impl.file.get(), H5F_SCOPE_LOCAL) < 0) fail(tmp, "cannot flush to disk");
}

}  // namespace

const std::string& History::path() const { return impl_->path; }
const StudyInfo& History::study() const { return impl_->study; }
const std::vector<Trial>& History::trials() const { return impl_->trials; }
std::uint64_t History::report_rows() const { return impl_->report_rows; }
bool History::recovered() const { return impl_->recovered; }

void History::put(const Trial& t) {
  auto& im = *impl_;
  if (!im.file.valid()) throw HistoryError(im.path + ": history is closed");
  if (t.id > im.trials.size())
    throw std::logic_error("History::put: trial " + std::to_string(t.id) + " skips ids (have " +
                           std::to_string(im.trials.size()) + ")");
  const auto row = im.trial_layout->encode(t, im.study.space);
  write_rows(im.trials_dset.get(), im.trial_layout->row_type.get(), t.id, 1, row.data(), im.path);
  im.flush();
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
    std::memcpy(at + rl.trial, &trial, sizeof trial);
    std::memcpy(at + rl.step, &step, sizeof step);
    std::memcpy(at + rl.time, &time, sizeof time);
    std::memcpy(at + rl.value, &values[i].second, sizeof(double));
    copy_fixed(at + rl.metric, kMetricLen, values[i].first);
  }
  write_rows(im.reports_dset.get(), rl.row_type.get(), im.report_rows, values.size(), buf.data(), im.path);
  im.flush();
  im.report_rows += values.size();
}

void History::close() {
  if (!impl_) return;
  if (impl_->file.valid()) {
    impl_->flush();
    impl_->close_file();
  }
  if (impl_->lock_fd >= 0) {  // done writing: another process may resume now
    ::close(impl_->lock_fd);
    impl_->lock_fd = -1;
  }
}

namespace {

std::vector<ReportRow> read_report_rows(hid_t dset, const std::string& path) {
  ReportLayout rl;
  const auto buf = read_rows(dset, rl.row_type.get(), rl.size, path);
  std::vector<ReportRow> out;
  for (std::size_t i = 0; i < buf.size() / rl.size; ++i) {
    const char* at = buf.data() + i * rl.size;
    ReportRow r;
    std::memcpy(&r.trial, at + rl.trial, sizeof r.trial);
    std::memcpy(&r.step, at + rl.step, sizeof r.step);
    std::memcpy(&r.time, at + rl.time, sizeof r.time);
    std::memcpy(&r.value, at + rl.value, sizeof r.value);
    r.metric = read_fixed(at + rl.metric, kMetricLen);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::vector<ReportRow> History::reports() const {
  if (!impl_->file.valid()) throw HistoryError(impl_->path + ": history is closed");
  return read_report_rows(impl_->reports_dset.get(), impl_->path);
}

HistorySnapshot read_history(const std::string& path, bool with_reports) {
  quiet_hdf5();
  if (!std::filesystem::exists(path)) throw HistoryError(path + ": no such history file");
  Id fapl = latest_format_fapl(path);
  // SWMR read: consistent while a writer appends, and after it was killed.
  hid_t fid = H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl.get());
  if (fid < 0) {
    H5Eclear2(H5E_DEFAULT);
    fid = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
  }
  Id file = checked(fid, H5Fclose, path, "cannot open as an HDF5 file (is it a tune history?)");
  HistorySnapshot snap;
  snap.study = read_study(file.get(), path);
  TrialLayout tl(snap.study.space, snap.study.objectives);
  Id trials = checked(H5Dopen2(file.get(), "trials", H5P_DEFAULT), H5Dclose, path, "no /trials dataset");
  const auto rows = read_rows(trials.get(), tl.row_type.get(), tl.size, path);
  for (std::size_t i = 0; i < rows.size() / tl.size; ++i) snap.trials.push_back(tl.decode(rows.data() + i * tl.size, snap.study.space));
  if (with_reports) {
    Id reports = checked(H5Dopen2(file.get(), "reports", H5P_DEFAULT), H5Dclose, path, "no /reports dataset");
    snap.reports = read_report_rows(reports.get(), path);
  }
  return snap;
}

}  // namespace tune
