// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What a study writes beside its history (the trials' directories and
// files, the jobs file, results, temporary files) is no more open than the
// directory it is written in: a private home stays private, a group's
// project directory gives its group what it already has, and nothing is
// ever writable by others, nor by the group where the directory is
// writable by all (a shared scratch such as /tmp). The umask still applies.
// Fixed names are created afresh (O_EXCL, O_NOFOLLOW): a link another user
// planted at one is removed, never followed.
#include <fcntl.h>
#include <sys/types.h>

#include <optional>
#include <string>

namespace tune {

// The modes for a new directory and a new file in the directory `parent`
// (0700 and 0600 when it cannot be examined).
mode_t dir_mode_in(const std::string& parent);
mode_t file_mode_in(const std::string& parent);

// Makes `dir` and the directories missing above it, each with its parent's
// dir_mode_in; 0 when it is there (made or found), else the errno.
int make_dirs(const std::string& dir);

// Opens `path` (`access`: O_WRONLY or O_RDWR) as a new file (whatever was
// at that name is removed first: a file of an earlier attempt, or a planted
// link), with file_mode_in its directory, or `mode` when given and
// narrower; -1 and errno when it cannot.
int open_fresh(const std::string& path, int access = O_WRONLY, std::optional<mode_t> mode = std::nullopt);

// Writes `text` to `path` whole: into a temporary file of an unguessable
// name beside it, renamed over it, so a reader sees the old text or the new.
// 0, or the errno.
int write_whole(const std::string& path, const std::string& text, std::optional<mode_t> mode = std::nullopt);

}  // namespace tune
