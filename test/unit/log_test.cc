#include "common/base/log.h"

#include <CppUTest/TestHarness.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "test/support/check_ok.h"

TEST_GROUP(Log){};

TEST(Log, ParsesNamesAndUpstreamNumbers) {
  ssa::LogLevel l;
  CHECK_TRUE(ssa::ParseLogLevel("warn", &l));
  CHECK(l == ssa::LogLevel::kWarn);
  CHECK_TRUE(ssa::ParseLogLevel("0", &l));
  CHECK(l == ssa::LogLevel::kInfo);
  CHECK_TRUE(ssa::ParseLogLevel("2", &l));
  CHECK(l == ssa::LogLevel::kTrace);
  CHECK_FALSE(ssa::ParseLogLevel("loud", &l));
  CHECK_FALSE(ssa::ParseLogLevel("3", &l));
}

TEST(Log, LevelFiltersLines) {
  ssa::Logger log;
  std::vector<std::string> lines;
  log.set_sink([&](ssa::LogLevel, const std::string& line) { lines.push_back(line); });
  log.set_level(ssa::LogLevel::kWarn);
  log.Log(ssa::LogLevel::kInfo, "hidden %d", 1);
  SSA_LOG(log, kError, "shown %s", "error");
  SSA_LOG(log, kDebug, "hidden too");
  LONGS_EQUAL(1, lines.size());
  STRCMP_EQUAL("shown error", lines[0].c_str());
}

TEST(Log, LongLinesAreNotTruncated) {
  ssa::Logger log;
  std::string got;
  log.set_sink([&](ssa::LogLevel, const std::string& line) { got = line; });
  std::string big(5000, 'x');
  log.Log(ssa::LogLevel::kError, "%s!", big.c_str());
  LONGS_EQUAL(5001, got.size());
}

TEST(Log, FileTargetGetsTimestampedLines) {
  char path[] = "/tmp/ssa-log-test-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  {
    ssa::Logger log;
    CHECK_OK(log.Open(path, "unit"));
    log.Log(ssa::LogLevel::kWarn, "port %d changed", 1);
  }
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  unlink(path);
  std::string text = ss.str();
  CHECK(text.find("unit[") != std::string::npos);
  CHECK(text.find("warn: port 1 changed") != std::string::npos);
  CHECK(text.find("Z ") != std::string::npos);  // UTC timestamp
}

TEST(Log, UnopenableFileFallsBackToStderrWithError) {
  ssa::Logger log;
  ssa::Status st = log.Open("/nonexistent-dir/x.log", "unit");
  CHECK_FALSE(st.ok());
  CHECK(st.message().find("/nonexistent-dir/x.log") != std::string::npos);
}
