// ProgressMeter: the report's text, silence for short runs, and plain
// lines at the configured period when not on a terminal.
#include "common/base/progress_meter.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

namespace {

// Everything written to a memory stream, as text.
struct Captured {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  ~Captured() {
    if (f) fclose(f);
    free(buf);
  }
  std::string Text() {
    fflush(f);
    return std::string(buf, len);
  }
};

}  // namespace

TEST_GROUP(ProgressMeter){};

TEST(ProgressMeter, FormatGivesDoneTotalPercentAndRate) {
  STRCMP_EQUAL("1200/5000 SA queries answered (24%), 600/s",
               ssa::ProgressMeter::Format("SA queries answered", 1200, 5000, 2.0).c_str());
  STRCMP_EQUAL("0/0 x (100%), 0/s", ssa::ProgressMeter::Format("x", 0, 0, 0).c_str());
}

TEST(ProgressMeter, AShortRunPrintsNothing) {
  Captured c;
  ssa::ProgressMeter m(c.f, false, "items", 10, std::chrono::seconds(5));
  for (size_t i = 1; i <= 10; ++i) m.Update(i);
  m.Finish(10);
  STRCMP_EQUAL("", c.Text().c_str());
}

TEST(ProgressMeter, PlainLinesComeOncePerPeriodAndFinishAddsTheLast) {
  Captured c;
  ssa::ProgressMeter m(c.f, false, "items", 100, std::chrono::milliseconds(200));
  m.Update(1);  // before the first period: nothing
  STRCMP_EQUAL("", c.Text().c_str());
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  m.Update(40);
  m.Update(41);  // same period: nothing more
  std::string text = c.Text();
  STRCMP_CONTAINS("40/100 items (40%)", text.c_str());
  CHECK(text.find("41/100") == std::string::npos);
  m.Finish(100);
  STRCMP_CONTAINS("\n100/100 items (100%)", c.Text().c_str());
}

TEST(ProgressMeter, OnATerminalTheLineIsRedrawnAndEndedOnce) {
  Captured c;
  ssa::ProgressMeter m(c.f, true, "items", 10);
  std::this_thread::sleep_for(std::chrono::milliseconds(1010));
  m.Update(5);
  m.Finish(10);
  std::string text = c.Text();
  STRCMP_CONTAINS("\r\033[K5/10 items (50%)", text.c_str());
  STRCMP_CONTAINS("\r\033[K10/10 items (100%)", text.c_str());
  LONGS_EQUAL('\n', text.back());
}

TEST(ProgressMeter, InPlaceLineRedrawsAtMostOncePerPeriodUnlessForced) {
  Captured c;
  ssa::InPlaceLine line(c.f, std::chrono::hours(1));
  CHECK_TRUE(line.Draw("1/3"));   // the first drawing is never held back
  CHECK_FALSE(line.Draw("2/3"));  // within the period
  line.PrintAbove("a problem");   // scrolls up where the line was
  CHECK_TRUE(line.Draw("3/3", true));
  line.End();
  STRCMP_EQUAL("\r\033[K1/3\r\033[Ka problem\n\r\033[K3/3\n", c.Text().c_str());
}

TEST(ProgressMeter, InPlaceLineNeverDrawnEndsWithoutANewline) {
  Captured c;
  ssa::InPlaceLine line(c.f, std::chrono::milliseconds(100));
  line.End();
  STRCMP_EQUAL("", c.Text().c_str());
}
