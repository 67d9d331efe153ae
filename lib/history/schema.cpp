// SPDX-License-Identifier: GPL-2.0-or-later
#include "history/schema.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace tune::schema {

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
  const int saved = errno;
  const std::string reason = hdf5_reason();
  // HDF5's file driver names the system call's errno in its message
  // ("..., errno = 28, error message = 'No space left on device', ...").
  int error = 0;
  if (const auto at = reason.find("errno = "); at != std::string::npos)
    error = std::atoi(reason.c_str() + at + 8);
  if (!error && storage_errno(saved)) error = saved;
  throw HistoryError(path + ": " + what + (reason.empty() ? "" : " (" + reason + ")"), error);
}

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
std::string read_fixed(const char* src, std::size_t len) {
  return std::string(src, strnlen(src, len));
}

void write_string_attr(hid_t obj, const char* name, const std::string& value, const std::string& path) {
  Id type = string_type(value.size());
  Id space = checked(H5Screate(H5S_SCALAR), H5Sclose, path, "cannot create a dataspace");
  Id attr = checked(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, path,
                    "cannot create an attribute");
  if (H5Awrite(attr.get(), type.get(), value.data()) < 0)
    fail(path, std::string("cannot write attribute ") + name);
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
  if (H5Aread(attr.get(), mtype.get(), out.data()) < 0)
    fail(path, std::string("cannot read attribute ") + name);
  out.resize(strnlen(out.data(), len));
  return out;
}

void write_study(hid_t file, const StudyInfo& s, const std::string& path) {
  write_string_attr(file, "format", "tune-history", path);
  write_number_attr<std::int32_t>(file, "format_version", H5T_NATIVE_INT32, kFormatVersion, path);
  write_string_attr(file, "name", s.name, path);
  write_string_attr(file, "space", s.space.to_json().dump(), path);
  write_string_attr(file, "sampler", s.sampler, path);
  write_number_attr<std::uint64_t>(file, "seed", H5T_NATIVE_UINT64, s.seed, path);
  write_string_attr(file, "sampler_settings", s.sampler_settings.to_json().dump(), path);
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
    for (const auto& o : s.objectives)
      objectives.push_back({{"name", o.name}, {"direction", o.minimize ? "min" : "max"}});
    write_string_attr(file, "objectives", objectives.dump(), path);
  }
}

StudyInfo read_study(hid_t file, const std::string& path) {
  if (H5Aexists(file, "format") <= 0 || read_string_attr(file, "format", path) != "tune-history")
    throw HistoryError(path + ": not a tune history file (no format=\"tune-history\" attribute)");
  const auto version = read_number_attr<std::int32_t>(file, "format_version", H5T_NATIVE_INT32, path);
  if (version < kOldestFormatVersion || version > kFormatVersion)
    throw HistoryError(path + ": history format version " + std::to_string(version) +
                       ", this tune reads versions " + std::to_string(kOldestFormatVersion) + " to " +
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
  if (H5Aexists(file, "sampler_settings") > 0) {
    try {
      s.sampler_settings =
          Settings::from_json(nlohmann::json::parse(read_string_attr(file, "sampler_settings", path)));
    } catch (const std::exception& e) {
      throw HistoryError(path + ": the sampler_settings attribute is unreadable: " + e.what());
    }
  } else if (H5Aexists(file, "grid_points") > 0) {  // files written before sampler_settings
    s.sampler_settings.set("grid_points",
                           read_number_attr<std::int32_t>(file, "grid_points", H5T_NATIVE_INT32, path));
  }
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
  if (H5Aexists(file, "trials") > 0)
    s.trials = read_number_attr<std::uint64_t>(file, "trials", H5T_NATIVE_UINT64, path);
  if (H5Aexists(file, "ended") > 0) s.ended = read_string_attr(file, "ended", path);
  if (H5Aexists(file, "objectives") > 0) {
    try {
      for (const auto& o : nlohmann::json::parse(read_string_attr(file, "objectives", path)))
        s.objectives.push_back(
            {o.at("name").get<std::string>(), o.at("direction").get<std::string>() != "max"});
    } catch (const std::exception& e) {
      throw HistoryError(path + ": the objectives attribute is unreadable: " + e.what());
    }
  }
  return s;
}

// `hdf5_locks`: whether HDF5 takes its own flock() on the file. Kept where
// flock() works (it keeps other HDF5 programs from opening a file that is
// being written without SWMR); off where it fails, since HDF5's
// ignore-when-disabled covers ENOSYS only (not ENOLCK, EOPNOTSUPP or EINVAL)
// and the writer claim (writer_claim.hpp) keeps one writer per history
// either way. HDF5_USE_FILE_LOCKING in the environment still overrides both.
Id latest_format_fapl(const std::string& path, bool hdf5_locks) {
  Id fapl = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, path, "cannot create file properties");
  // SWMR needs the 1.10 file format.
  if (H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0)
    fail(path, "cannot select the HDF5 1.10 format");
  if (H5Pset_file_locking(fapl.get(), hdf5_locks, true) < 0) fail(path, "cannot set HDF5's file locking");
  return fapl;
}

Id create_table(hid_t file, const char* name, hid_t type, hsize_t chunk, const std::string& path) {
  hsize_t dims = 0, maxdims = H5S_UNLIMITED;
  Id space = checked(H5Screate_simple(1, &dims, &maxdims), H5Sclose, path, "cannot create a dataspace");
  Id dcpl = checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, path, "cannot create dataset properties");
  H5Pset_chunk(dcpl.get(), 1, &chunk);
  return checked(H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose,
                 path, "cannot create a dataset");
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

bool has_member(hid_t dset, const char* name) {
  Id type(H5Dget_type(dset), H5Tclose);
  return type.valid() && H5Tget_member_index(type.get(), name) >= 0;
}

std::vector<ReportRow> read_report_rows(hid_t dset, const std::string& path, std::size_t* torn) {
  ReportLayout rl(has_member(dset, "check"));
  const auto buf = read_rows(dset, rl.row_type.get(), rl.size, path);
  std::vector<ReportRow> out;
  for (std::size_t i = 0; i < buf.size() / rl.size; ++i) {
    const char* at = buf.data() + i * rl.size;
    if (!rl.intact(at)) {
      if (torn) ++*torn;
      continue;
    }
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

}  // namespace tune::schema
