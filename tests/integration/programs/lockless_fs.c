/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A FUSE file system that passes every call through to a backing directory
 * but locks as a shared file system without lock support does: a real kernel
 * mount on which flock() and fcntl() locks fail with the errno named by
 * TUNE_TEST_FUSE_LOCKS (ENOSYS, ENOLCK, EOPNOTSUPP or EINVAL), as on Lustre
 * without -o flock or NFSv3 without lockd; with TUNE_TEST_FUSE_LOCKS=local
 * the kernel grants locks that only this host sees, as Lustre's localflock.
 *
 *   lockless_fs BACKING_DIR MOUNTPOINT [FUSE options, e.g. -f]
 *   ... ; fusermount3 -u MOUNTPOINT (or umount as root)
 *
 * Used by tests/integration/history_locking.sh. */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>

static char backing[PATH_MAX];
static int lock_errno; /* 0: kernel-local locks */

static void real(char out[PATH_MAX], const char *path) { snprintf(out, PATH_MAX, "%s%s", backing, path); }
#define REAL(p) \
  char r_[PATH_MAX]; \
  real(r_, p)

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
  (void)conn;
  cfg->use_ino = 1;
  cfg->entry_timeout = cfg->attr_timeout = cfg->negative_timeout = 0;
  return NULL;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  if (fi) return fstat((int)fi->fh, st) < 0 ? -errno : 0;
  REAL(path);
  return lstat(r_, st) < 0 ? -errno : 0;
}
static int fs_access(const char *path, int mask) {
  REAL(path);
  return access(r_, mask) < 0 ? -errno : 0;
}
static int fs_readlink(const char *path, char *buf, size_t size) {
  REAL(path);
  ssize_t n = readlink(r_, buf, size - 1);
  if (n < 0) return -errno;
  buf[n] = '\0';
  return 0;
}
static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags) {
  (void)off;
  (void)fi;
  (void)flags;
  REAL(path);
  DIR *d = opendir(r_);
  if (!d) return -errno;
  struct dirent *e;
  while ((e = readdir(d))) {
    struct stat st = {0};
    st.st_ino = e->d_ino;
    st.st_mode = (mode_t)e->d_type << 12;
    if (fill(buf, e->d_name, &st, 0, 0)) break;
  }
  closedir(d);
  return 0;
}
static int fs_mkdir(const char *path, mode_t mode) {
  REAL(path);
  return mkdir(r_, mode) < 0 ? -errno : 0;
}
static int fs_unlink(const char *path) {
  REAL(path);
  return unlink(r_) < 0 ? -errno : 0;
}
static int fs_rmdir(const char *path) {
  REAL(path);
  return rmdir(r_) < 0 ? -errno : 0;
}
static int fs_symlink(const char *to, const char *from) {
  REAL(from);
  return symlink(to, r_) < 0 ? -errno : 0;
}
static int fs_rename(const char *from, const char *to, unsigned int flags) {
  if (flags) return -EINVAL;
  char a[PATH_MAX], b[PATH_MAX];
  real(a, from);
  real(b, to);
  return rename(a, b) < 0 ? -errno : 0;
}
static int fs_link(const char *from, const char *to) {
  char a[PATH_MAX], b[PATH_MAX];
  real(a, from);
  real(b, to);
  return link(a, b) < 0 ? -errno : 0;
}
static int fs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
  if (fi) return fchmod((int)fi->fh, mode) < 0 ? -errno : 0;
  REAL(path);
  return chmod(r_, mode) < 0 ? -errno : 0;
}
static int fs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
  if (fi) return fchown((int)fi->fh, uid, gid) < 0 ? -errno : 0;
  REAL(path);
  return lchown(r_, uid, gid) < 0 ? -errno : 0;
}
static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
  if (fi) return ftruncate((int)fi->fh, size) < 0 ? -errno : 0;
  REAL(path);
  return truncate(r_, size) < 0 ? -errno : 0;
}
static int fs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
  if (fi) return futimens((int)fi->fh, tv) < 0 ? -errno : 0;
  REAL(path);
  return utimensat(AT_FDCWD, r_, tv, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}
static int fs_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
  REAL(path);
  int fd = open(r_, fi->flags, mode);
  if (fd < 0) return -errno;
  fi->fh = (uint64_t)fd;
  return 0;
}
static int fs_open(const char *path, struct fuse_file_info *fi) {
  REAL(path);
  int fd = open(r_, fi->flags);
  if (fd < 0) return -errno;
  fi->fh = (uint64_t)fd;
  return 0;
}
static int fs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  (void)path;
  ssize_t n = pread((int)fi->fh, buf, size, off);
  return n < 0 ? -errno : (int)n;
}
static int fs_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  (void)path;
  ssize_t n = pwrite((int)fi->fh, buf, size, off);
  return n < 0 ? -errno : (int)n;
}
static int fs_statfs(const char *path, struct statvfs *st) {
  REAL(path);
  return statvfs(r_, st) < 0 ? -errno : 0;
}
static int fs_release(const char *path, struct fuse_file_info *fi) {
  (void)path;
  close((int)fi->fh);
  return 0;
}
static int fs_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
  (void)path;
  int rc = datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh);
  return rc < 0 ? -errno : 0;
}
/* Only registered when locks fail: without them the kernel keeps locks itself. */
static int fs_flock(const char *path, struct fuse_file_info *fi, int op) {
  (void)path;
  (void)fi;
  (void)op;
  return -lock_errno;
}
static int fs_lock(const char *path, struct fuse_file_info *fi, int cmd, struct flock *lock) {
  (void)path;
  (void)fi;
  (void)cmd;
  (void)lock;
  return -lock_errno;
}

int main(int argc, char *argv[]) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s BACKING_DIR MOUNTPOINT [FUSE options]\n", argv[0]);
    return 2;
  }
  if (!realpath(argv[1], backing)) {
    perror(argv[1]);
    return 1;
  }
  const char *mode = getenv("TUNE_TEST_FUSE_LOCKS");
  if (!mode || !*mode || strcmp(mode, "ENOSYS") == 0) lock_errno = ENOSYS;
  else if (strcmp(mode, "ENOLCK") == 0) lock_errno = ENOLCK;
  else if (strcmp(mode, "EOPNOTSUPP") == 0) lock_errno = EOPNOTSUPP;
  else if (strcmp(mode, "EINVAL") == 0) lock_errno = EINVAL;
  else if (strcmp(mode, "local") == 0) lock_errno = 0;
  else {
    fprintf(stderr, "%s: TUNE_TEST_FUSE_LOCKS=%s: give ENOSYS, ENOLCK, EOPNOTSUPP, EINVAL or local\n", argv[0], mode);
    return 2;
  }
  static struct fuse_operations ops = {
      .init = fs_init,       .getattr = fs_getattr, .access = fs_access,   .readlink = fs_readlink,
      .readdir = fs_readdir, .mkdir = fs_mkdir,     .unlink = fs_unlink,   .rmdir = fs_rmdir,
      .symlink = fs_symlink, .rename = fs_rename,   .link = fs_link,       .chmod = fs_chmod,
      .chown = fs_chown,     .truncate = fs_truncate, .utimens = fs_utimens, .create = fs_create,
      .open = fs_open,       .read = fs_read,       .write = fs_write,     .statfs = fs_statfs,
      .release = fs_release, .fsync = fs_fsync,
  };
  if (lock_errno) {
    ops.flock = fs_flock;
    ops.lock = fs_lock;
  }
  /* argv without BACKING_DIR: fuse_main sees MOUNTPOINT and its options. */
  argv[1] = argv[0];
  return fuse_main(argc - 1, argv + 1, &ops, NULL);
}
