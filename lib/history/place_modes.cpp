// SPDX-License-Identifier: GPL-2.0-or-later
#include "history/place_modes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <random>

namespace tune {

namespace {

std::string parent_of(const std::string& path) {
  const auto p = std::filesystem::path(path).parent_path();
  return p.empty() ? "." : p.string();
}

// The permission bits a directory lends what is made in it.
mode_t lent_by(const std::string& parent) {
  struct stat st {};
  if (::stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return 0700;
  mode_t m = st.st_mode & 0777;
  m &= ~static_cast<mode_t>(S_IWOTH);  // others never write
  if (st.st_mode & S_IWOTH)
    m &= ~static_cast<mode_t>(S_IWGRP);  // where all may write, the group may not either
  return m | S_IRWXU;
}

std::string unguessable() {
  static std::random_device device;
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 16; ++i) s += hex[device() & 15];
  return s;
}

}  // namespace

mode_t dir_mode_in(const std::string& parent) {
  return lent_by(parent);
}

mode_t file_mode_in(const std::string& parent) {
  return lent_by(parent) & 0666;
}

int make_dirs(const std::string& dir) {
  if (dir.empty()) return 0;
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
  const std::string parent = parent_of(dir);
  if (parent != dir)
    if (const int e = make_dirs(parent)) return e;
  if (::mkdir(dir.c_str(), dir_mode_in(parent)) == 0) return 0;
  const int e = errno;
  return e == EEXIST && ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) ? 0 : e;
}

int open_fresh(const std::string& path, int access, std::optional<mode_t> mode) {
  mode_t m = file_mode_in(parent_of(path));
  if (mode) m &= *mode;
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return -1;
  return ::open(path.c_str(), access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, m);
}

int write_whole(const std::string& path, const std::string& text, std::optional<mode_t> mode) {
  const std::string tmp = path + ".tmp-" + unguessable();
  mode_t m = file_mode_in(parent_of(path));
  if (mode) m &= *mode;
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, m);
  if (fd < 0) return errno;
  errno = 0;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  int error = ok ? 0 : (errno ? errno : EIO);
  if (::close(fd) != 0 && ok) ok = false, error = errno;
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) ok = false, error = errno;
  if (!ok) ::unlink(tmp.c_str());  // never a torn file at the name, nor a temporary one left
  return ok ? 0 : error;
}

}  // namespace tune
