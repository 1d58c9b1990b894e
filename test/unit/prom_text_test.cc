// The Prometheus text format writer and the metrics file
// (common/metrics/): names checked, values and label values as the format
// says, every write whole (a reader never sees half a file), a failing
// write counted and retried, and the file gone at a clean stop.
#include "common/metrics/prom_text.h"
#include "common/metrics/metrics_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "common/base/event_loop.h"

// Last: its memory-leak macros redefine new.
#include <CppUTest/TestHarness.h>

using namespace ssa;
using namespace ssa::metrics;

namespace {
std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_GROUP(PromText){};

TEST(PromText, FamiliesSamplesAndEscapes) {
  PromText t;
  t.Family("ibacm_resolves_total", PromText::Type::kCounter, "Resolves, by \\ and\nline.");
  t.Add({{"provider", "ssa"}, {"note", "a \"quoted\"\\path\n"}}, 1027);
  t.Add(3);
  t.Family("ibacm_epoch_age_seconds", PromText::Type::kGauge, "Age.");
  t.Add(1.5);
  t.Add(NAN);
  t.Add(INFINITY);
  STRCMP_EQUAL("", t.error().c_str());
  STRCMP_EQUAL(
      "# HELP ibacm_resolves_total Resolves, by \\\\ and\\nline.\n"
      "# TYPE ibacm_resolves_total counter\n"
      "ibacm_resolves_total{provider=\"ssa\",note=\"a \\\"quoted\\\"\\\\path\\n\"} 1027\n"
      "ibacm_resolves_total 3\n"
      "# HELP ibacm_epoch_age_seconds Age.\n"
      "# TYPE ibacm_epoch_age_seconds gauge\n"
      "ibacm_epoch_age_seconds 1.5\n"
      "ibacm_epoch_age_seconds NaN\n"
      "ibacm_epoch_age_seconds +Inf\n",
      t.text().c_str());
}

// A gauge in its shortest exact form, not %.17g's 17.163753971999999.
TEST(PromText, AValueIsWrittenInItsShortestExactForm) {
  PromText t;
  t.Family("ibacm_x_seconds", PromText::Type::kGauge, "x");
  t.Add(17.163753972);
  t.Add(0.1);
  t.Add(1e-7);
  t.Add(123456789012.5);
  STRCMP_EQUAL(
      "# HELP ibacm_x_seconds x\n# TYPE ibacm_x_seconds gauge\n"
      "ibacm_x_seconds 17.163753972\nibacm_x_seconds 0.1\nibacm_x_seconds 1e-07\n"
      "ibacm_x_seconds 123456789012.5\n",
      t.text().c_str());
}

TEST(PromText, BadNamesAndRepeatedFamiliesAreLeftOutAndSaid) {
  PromText a;
  a.Family("9lives", PromText::Type::kGauge, "x");
  a.Add(1);
  STRCMP_CONTAINS("bad metric name '9lives'", a.error().c_str());
  STRCMP_EQUAL("", a.text().c_str());
  PromText b;
  b.Family("ok_total", PromText::Type::kCounter, "x");
  b.Add({{"le:x", "1"}}, 1);
  STRCMP_CONTAINS("bad label name 'le:x'", b.error().c_str());
  PromText c;
  c.Family("ok_total", PromText::Type::kCounter, "x");
  c.Family("ok_total", PromText::Type::kCounter, "x");
  STRCMP_CONTAINS("written twice", c.error().c_str());
  CHECK_FALSE(PromText::ValidLabelName("__name__"));
  CHECK(PromText::ValidMetricName("ibssa_core:lag"));
}

TEST_GROUP(MetricsFile) {
  std::string dir;
  EventLoop loop;
  Logger log;
  void setup() override {
    char tmpl[] = "/tmp/ssa-metrics-XXXXXX";
    CHECK(mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    CHECK(loop.Init().ok());
    log.set_sink([](LogLevel, const std::string&) {});
  }
  void teardown() override { CHECK_EQUAL(0, system(("rm -rf '" + dir + "'").c_str())); }
};

TEST(MetricsFile, WrittenWholeEveryIntervalReadableByAllAndGoneAtStop) {
  int n = 0;
  std::string path = dir + "/ibacm.prom";
  MetricsFile f(&loop, &log, path, std::chrono::milliseconds(20), [&n](PromText* out) {
    out->Family("test_snapshots_total", PromText::Type::kCounter, "Snapshots.");
    out->Add(++n);
  });
  mode_t old = umask(077);
  f.Start();
  umask(old);
  STRCMP_CONTAINS("test_snapshots_total 1\n", Read(path).c_str());
  struct stat st;
  CHECK_EQUAL(0, stat(path.c_str(), &st));
  LONGS_EQUAL(0644, st.st_mode & 0777);
  CHECK(loop.RunUntil([&] { return f.writes() >= 3; }, std::chrono::seconds(5)));
  STRCMP_CONTAINS(("test_snapshots_total " + std::to_string(n) + "\n").c_str(), Read(path).c_str());
  // No temporary file is left beside it.
  std::string ls;
  FILE* p = popen(("ls -A '" + dir + "'").c_str(), "r");
  char buf[256];
  while (fgets(buf, sizeof(buf), p)) ls += buf;
  pclose(p);
  STRCMP_EQUAL("ibacm.prom\n", ls.c_str());
  f.Stop();
  CHECK(access(path.c_str(), F_OK) != 0);
}

TEST(MetricsFile, AFailingWriteIsCountedAndTheNextOneWorks) {
  std::string sub = dir + "/gone";
  std::string path = sub + "/ibssa.prom";
  bool bad = false;
  MetricsFile f(&loop, &log, path, std::chrono::seconds(60), [&bad](PromText* out) {
    out->Family(bad ? "bad name" : "fine_total", PromText::Type::kCounter, "x");
    out->Add(1);
  });
  CHECK_FALSE(f.WriteNow());  // no such directory
  LONGS_EQUAL(1, f.failures());
  CHECK_EQUAL(0, mkdir(sub.c_str(), 0755));
  CHECK(f.WriteNow());
  bad = true;  // a snapshot promtool would reject is not written
  CHECK_FALSE(f.WriteNow());
  LONGS_EQUAL(2, f.failures());
  STRCMP_CONTAINS("fine_total 1", Read(path).c_str());
}
