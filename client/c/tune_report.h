/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Talk to tune from a C or C++ trial program (header only).
 *
 *   double lr = tune_param_double("lr", 0.01);
 *   for (int epoch = 0; epoch < 10; ++epoch) {
 *     ...
 *     tune_report(epoch, "loss", loss);
 *   }
 *   tune_objective(accuracy);
 *
 * Lines go to the descriptor in TUNE_REPORT_FD as key=value pairs (see
 * tune(1), TRIAL CONTRACT), or are appended to the file in TUNE_REPORT_FILE
 * (a trial started with srun across nodes); outside tune they go to stderr.
 *
 * Checkpoints: tune_checkpoint_dir() is the trial's own directory, kept when
 * the trial is interrupted and given back when it runs again (NULL outside
 * tune); tune_restored() is 1 when this attempt found an earlier one's files. */
#ifndef TUNE_REPORT_H
#define TUNE_REPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/stat.h>

static inline int tune_report_fd(void) {
  static int file_fd = -1;
  const char *fd = getenv("TUNE_REPORT_FD");
  if (fd && *fd) return atoi(fd);
  const char *path = getenv("TUNE_REPORT_FILE");
  if (path && *path) {
    if (file_fd < 0) file_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (file_fd >= 0) return file_fd;
  }
  return 2;
}

static inline void tune_report_line_(const char *line, int len) {
  if (len <= 0) return;
  const int fd = tune_report_fd();
  while (len > 0) {
    const ssize_t n = write(fd, line, (size_t)len);
    if (n <= 0) return;
    line += n;
    len -= (int)n;
  }
}

/* An intermediate report: one metric at a step (step < 0: no step). */
static inline void tune_report(long step, const char *metric, double value) {
  char line[256];
  int len = step >= 0 ? snprintf(line, sizeof line, "step=%ld %s=%.17g\n", step, metric, value)
                      : snprintf(line, sizeof line, "%s=%.17g\n", metric, value);
  if (len >= (int)sizeof line) return; /* a metric name this long is a bug in the caller */
  tune_report_line_(line, len);
}

/* The trial's result. */
static inline void tune_objective(double value) {
  char line[64];
  tune_report_line_(line, snprintf(line, sizeof line, "objective=%.17g\n", value));
}

/* A parameter from TUNE_PARAM_<name>, or `fallback` when it is not set. */
static inline double tune_param_double(const char *name, double fallback) {
  char var[128];
  snprintf(var, sizeof var, "TUNE_PARAM_%s", name);
  const char *v = getenv(var);
  return v && *v ? strtod(v, NULL) : fallback;
}

static inline const char *tune_param_string(const char *name, const char *fallback) {
  char var[128];
  snprintf(var, sizeof var, "TUNE_PARAM_%s", name);
  const char *v = getenv(var);
  return v ? v : fallback;
}

/* The trial's checkpoint directory, created on the first call (its parent,
 * the trial directory, exists); NULL outside tune. */
static inline const char *tune_checkpoint_dir(void) {
  const char *v = getenv("TUNE_CHECKPOINT_DIR");
  if (!v || !*v) return NULL;
  mkdir(v, 0755); /* EEXIST after the first call, or when an earlier attempt made it */
  return v;
}

static inline int tune_restored(void) {
  const char *v = getenv("TUNE_CHECKPOINT_RESTORED");
  return v && strcmp(v, "1") == 0;
}

/* The last step this trial should train to (TUNE_STEP_LIMIT: a segment of
 * population-based training, --algo pbt), else `fallback`. */
static inline long tune_step_limit(long fallback) {
  const char *v = getenv("TUNE_STEP_LIMIT");
  return v && *v ? strtol(v, NULL, 10) : fallback;
}

#endif
