/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A preload library that makes file locks unavailable, as on Lustre mounted
 * without -o flock, NFSv3 without lockd or some GPFS and DVS set-ups:
 * flock(), lockf() and fcntl()'s lock commands fail with the errno named by
 * TUNE_TEST_LOCK_ERRNO (ENOSYS, ENOLCK, EOPNOTSUPP or EINVAL; ENOSYS when
 * unset). Everything else reaches libc. Used by the integration tests:
 *   LD_PRELOAD=tests/integration/programs/no_locks.so tune run ... */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static int lock_errno(void) {
  const char *name = getenv("TUNE_TEST_LOCK_ERRNO");
  if (!name || !*name || strcmp(name, "ENOSYS") == 0) return ENOSYS;
  if (strcmp(name, "ENOLCK") == 0) return ENOLCK;
  if (strcmp(name, "EOPNOTSUPP") == 0) return EOPNOTSUPP;
  if (strcmp(name, "EINVAL") == 0) return EINVAL;
  return ENOSYS;
}

int flock(int fd, int op) {
  (void)fd;
  (void)op;
  errno = lock_errno();
  return -1;
}

int lockf(int fd, int cmd, off_t len) {
  (void)fd;
  (void)len;
  if (cmd == F_ULOCK) return 0;
  errno = lock_errno();
  return -1;
}

static int is_lock_command(int cmd) {
  return cmd == F_SETLK || cmd == F_SETLKW || cmd == F_GETLK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW ||
         cmd == F_OFD_GETLK;
}

/* fcntl() and fcntl64(): lock commands fail, the rest reach libc's `name`. */
static int lock_or_pass(const char *name, int (**real)(int, int, ...), int fd, int cmd, void *arg) {
  if (is_lock_command(cmd)) {
    errno = lock_errno();
    return -1;
  }
  if (!*real) *real = (int (*)(int, int, ...))dlsym(RTLD_NEXT, name);
  return (*real)(fd, cmd, arg);
}

int fcntl(int fd, int cmd, ...) {
  static int (*real)(int, int, ...);
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return lock_or_pass("fcntl", &real, fd, cmd, arg);
}
/* glibc 2.28+ routes fcntl through fcntl64 for 64-bit offsets. */
int fcntl64(int fd, int cmd, ...) {
  static int (*real)(int, int, ...);
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return lock_or_pass("fcntl64", &real, fd, cmd, arg);
}
