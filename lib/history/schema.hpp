// SPDX-License-Identifier: GPL-2.0-or-later
// The HDF5 side of a history file: handles, the row layouts of /trials and
// /reports, the study's attributes and row I/O. Used by the writer
// (history.cpp) and the reader (history_reader.cpp); nothing outside
// lib/history includes it.
#pragma once

#include <hdf5.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "history/history.hpp"

namespace tune::schema {

// 2: the search algorithm's settings in sampler_settings (JSON). Version 1
// files (grid_points instead) are read as well.
constexpr int kFormatVersion = 2;
constexpr int kOldestFormatVersion = 1;
constexpr std::size_t kHostLen = 64, kMessageLen = 256, kMetricLen = 72;
constexpr hsize_t kTrialChunk = 64, kReportChunk = 512;

// The innermost message of HDF5's error stack, for our own error text.
std::string hdf5_reason();
[[noreturn]] void fail(const std::string& path, const std::string& what);
void quiet_hdf5();

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

Id checked(hid_t id, herr_t (*close)(hid_t), const std::string& path, const char* what);
// CRC-32 of a row's first `len` bytes (the fields before its "check" member).
inline std::uint32_t row_checksum(const char* row, std::size_t len) {
  return static_cast<std::uint32_t>(
      crc32(crc32(0, nullptr, 0), reinterpret_cast<const Bytef*>(row), static_cast<uInt>(len)));
}
// Whether dataset `dset`'s rows have a member `name`.
bool has_member(hid_t dset, const char* name);
Id string_type(std::size_t len);
void copy_fixed(char* dst, std::size_t len, const std::string& s);
std::string read_fixed(const char* src, std::size_t len);

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
  // Lineage (Trial::from, member, step_limit; -1: none): absent in files
  // written before trials could start from a checkpoint.
  std::optional<std::size_t> from, member, step_limit;
  std::vector<std::size_t> value_offsets;  // named objectives
  std::vector<std::size_t> param_offsets;
  std::vector<std::optional<std::size_t>> active_offsets;  // of conditional parameters
  std::vector<std::size_t> choice_lens;
  std::size_t size = 0;
  std::optional<std::size_t> check;  // absent in files written before tune kept checksums

  TrialLayout(const SearchSpace& space, const std::vector<ObjectiveSpec>& objectives, bool with_check = true,
              bool with_lineage = true) {
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
        active_offsets.push_back(
            p.when.empty() ? std::nullopt
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
      for (const auto& o : objectives)
        value_offsets.push_back(objectives_layout.add(o.name.c_str(), H5T_NATIVE_DOUBLE));
      objectives_type = objectives_layout.build();
      values = row.add("objectives", objectives_type.get());
    }
    if (with_lineage) {
      from = row.add("from", H5T_NATIVE_INT64);
      member = row.add("member", H5T_NATIVE_INT64);
      step_limit = row.add("step_limit", H5T_NATIVE_INT64);
    }
    if (with_check) check = row.add("check", H5T_NATIVE_UINT32);
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
        if (ps[i].kind != ParamKind::Int && ps[i].kind != ParamKind::Choice)
          put<double>(buf, at, std::nan(""));
        continue;  // int 0, string "": the buffer's zeros
      }
      switch (ps[i].kind) {
        case ParamKind::Int: put<std::int64_t>(buf, at, std::get<std::int64_t>(v)); break;
        case ParamKind::Choice: copy_fixed(buf.data() + at, choice_lens[i], std::get<std::string>(v)); break;
        default: put<double>(buf, at, std::get<double>(v)); break;
      }
    }
    if (from) {
      put<std::int64_t>(buf, *from, t.from ? static_cast<std::int64_t>(*t.from) : -1);
      put<std::int64_t>(buf, *member, t.member ? static_cast<std::int64_t>(*t.member) : -1);
      put<std::int64_t>(buf, *step_limit, t.step_limit.value_or(-1));
    }
    if (check) put<std::uint32_t>(buf, *check, row_checksum(buf.data(), *check));
    return buf;
  }
  // False when the row's checksum does not match its bytes: written only in
  // part when read (a file on NFS read while another host writes it).
  bool intact(const char* row) const {
    return !check || get<std::uint32_t>(row, *check) == row_checksum(row, *check);
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
    if (from) {
      if (const auto f = get<std::int64_t>(buf, *from); f >= 0) t.from = static_cast<std::uint64_t>(f);
      if (const auto m = get<std::int64_t>(buf, *member); m >= 0) t.member = static_cast<std::uint32_t>(m);
      if (const auto l = get<std::int64_t>(buf, *step_limit); l >= 0) t.step_limit = l;
    }
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
      if (!active_offsets.empty() && active_offsets[i] &&
          get<std::int8_t>(buf, active + *active_offsets[i]) == 0) {
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
  std::optional<std::size_t> check;  // as in TrialLayout
  explicit ReportLayout(bool with_check = true) {
    metric_type = string_type(kMetricLen);
    Layout row;
    trial = row.add("trial", H5T_NATIVE_UINT64);
    step = row.add("step", H5T_NATIVE_INT64);
    time = row.add("time", H5T_NATIVE_DOUBLE);
    value = row.add("value", H5T_NATIVE_DOUBLE);
    metric = row.add("metric", metric_type.get());
    if (with_check) check = row.add("check", H5T_NATIVE_UINT32);
    row_type = row.build();
    size = row.size();
  }
  // Writes one row at `row` (size bytes, zeroed), its checksum included.
  void encode(char* row, std::uint64_t trial_id, std::int64_t step_no, double at_time, double v,
              const std::string& name) const {
    std::memcpy(row + trial, &trial_id, sizeof trial_id);
    std::memcpy(row + step, &step_no, sizeof step_no);
    std::memcpy(row + time, &at_time, sizeof at_time);
    std::memcpy(row + value, &v, sizeof v);
    copy_fixed(row + metric, kMetricLen, name);
    seal(row);
  }
  void seal(char* row) const {
    if (!check) return;
    const std::uint32_t sum = row_checksum(row, *check);
    std::memcpy(row + *check, &sum, sizeof sum);
  }
  bool intact(const char* row) const {
    if (!check) return true;
    std::uint32_t sum;
    std::memcpy(&sum, row + *check, sizeof sum);
    return sum == row_checksum(row, *check);
  }
};

void write_string_attr(hid_t obj, const char* name, const std::string& value, const std::string& path);
std::string read_string_attr(hid_t obj, const char* name, const std::string& path);

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

template <typename T>
T read_number_attr(hid_t obj, const char* name, hid_t type, const std::string& path) {
  Id attr = checked(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, path,
                    (std::string("not a tune history: no attribute ") + name).c_str());
  T v{};
  if (H5Aread(attr.get(), type, &v) < 0) fail(path, std::string("cannot read attribute ") + name);
  return v;
}

void write_study(hid_t file, const StudyInfo& s, const std::string& path);
StudyInfo read_study(hid_t file, const std::string& path);
Id latest_format_fapl(const std::string& path, bool hdf5_locks);
Id create_table(hid_t file, const char* name, hid_t type, hsize_t chunk, const std::string& path);
hsize_t rows_of(hid_t dset, const std::string& path);
// Writes `count` rows from `buf` at row `at`, growing the dataset if needed.
void write_rows(hid_t dset, hid_t type, hsize_t at, hsize_t count, const void* buf, const std::string& path);
std::vector<char> read_rows(hid_t dset, hid_t type, std::size_t row_size, const std::string& path);
// Every row of /reports; rows whose checksum fails are left out and counted in `torn`.
std::vector<ReportRow> read_report_rows(hid_t dset, const std::string& path, std::size_t* torn = nullptr);

}  // namespace tune::schema
