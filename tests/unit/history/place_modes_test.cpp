// SPDX-License-Identifier: GPL-2.0-or-later
// What a study writes beside its history is no more open than where it is
// written (lib/history/place_modes), and fixed names are made afresh.
#include "history/place_modes.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

class PlaceModesTest : public testing_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    old_umask_ = ::umask(0);  // the modes alone, without the umask's say
  }
  void TearDown() override {
    ::umask(old_umask_);
    TempDirTest::TearDown();
  }
  static mode_t mode_of(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  }
  std::string place(const std::string& name, mode_t mode) {
    const std::string d = file(name);
    EXPECT_EQ(::mkdir(d.c_str(), 0700), 0);
    EXPECT_EQ(::chmod(d.c_str(), mode), 0);
    return d;
  }
  mode_t old_umask_ = 022;
};

TEST_F(PlaceModesTest, APrivateHomeStaysPrivateAndAGroupsDirectoryGivesItsGroupWhatItHas) {
  const std::string home = place("home", 0700), project = place("project", 02770), open = place("open", 0755),
                    scratch = place("scratch", 01777);
  EXPECT_EQ(dir_mode_in(home), 0700u);
  EXPECT_EQ(file_mode_in(home), 0600u);
  EXPECT_EQ(dir_mode_in(project), 0770u);
  EXPECT_EQ(file_mode_in(project), 0660u);
  EXPECT_EQ(dir_mode_in(open), 0755u);
  EXPECT_EQ(file_mode_in(open), 0644u);
  // Where everyone may write, neither others nor the group may write what is made there.
  EXPECT_EQ(dir_mode_in(scratch), 0755u);
  EXPECT_EQ(file_mode_in(scratch), 0644u);
  // Each directory made is no more open than the one it is made in.
  ASSERT_EQ(make_dirs(home + "/s.trials/4"), 0);
  EXPECT_EQ(mode_of(home + "/s.trials"), 0700u);
  EXPECT_EQ(mode_of(home + "/s.trials/4"), 0700u);
  ASSERT_EQ(make_dirs(project + "/s.trials/4"), 0);
  EXPECT_EQ(mode_of(project + "/s.trials/4") & 0777, 0770u);
  EXPECT_EQ(make_dirs(project + "/s.trials/4"), 0);  // there already
  std::ofstream(file("plain")) << "x";
  EXPECT_EQ(make_dirs(file("plain")), ENOTDIR);
}

TEST_F(PlaceModesTest, AFixedNameIsMadeAfreshAndALinkPlantedThereIsNotFollowed) {
  const std::string dir = place("project", 02770);
  const std::string victim = file("victim"), name = dir + "/params.json";
  std::ofstream(victim) << "the owner's file";
  ASSERT_EQ(::symlink(victim.c_str(), name.c_str()), 0);
  const int fd = open_fresh(name);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  ASSERT_EQ(::write(fd, "new", 3), 3);
  ::close(fd);
  std::stringstream kept;
  kept << std::ifstream(victim).rdbuf();
  EXPECT_EQ(kept.str(), "the owner's file");
  EXPECT_EQ(mode_of(name), 0660u);
  // write_whole: whole, through an unguessable temporary name, narrowed by its mode.
  ASSERT_EQ(::symlink(victim.c_str(), (dir + "/result.json.tmp").c_str()), 0);
  ASSERT_EQ(write_whole(dir + "/result.json", "{}\n", 0600), 0);
  EXPECT_EQ(mode_of(dir + "/result.json"), 0600u);
  std::stringstream still;
  still << std::ifstream(victim).rdbuf();
  EXPECT_EQ(still.str(), "the owner's file");
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 3);  // params.json, result.json and the planted link: no temporary left
}

}  // namespace
}  // namespace tune
