// SPDX-License-Identifier: GPL-2.0-or-later
// GoogleTest main that also speaks TAP, so automake's tap-driver counts every
// test case (not every binary) and scripts/test can report them one by one.
// GoogleTest's own output stays in the log for reading failures.
#include <gtest/gtest.h>

#include <cstdio>

namespace {

class TapPrinter : public testing::EmptyTestEventListener {
 public:
  void OnTestProgramStart(const testing::UnitTest& unit) override {
    std::printf("1..%d\n", unit.test_to_run_count());
    std::fflush(stdout);
  }
  void OnTestEnd(const testing::TestInfo& info) override {
    ++number_;
    const auto* result = info.result();
    const char* status = result->Passed() ? "ok" : "not ok";
    std::printf("%s %d - %s.%s%s\n", status, number_, info.test_suite_name(), info.name(),
                result->Skipped() ? " # SKIP" : "");
    std::fflush(stdout);
  }

 private:
  int number_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  testing::UnitTest::GetInstance()->listeners().Append(new TapPrinter);
  return RUN_ALL_TESTS();
}
