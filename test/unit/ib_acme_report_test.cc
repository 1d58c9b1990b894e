// ib_acme_report_test.cc: provider testing's pieces: p50/p99, the path
// comparison, counting and summary, and the destination lists.
#include <arpa/inet.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/base/big_endian.h"
#include "test/support/check_ok.h"
#include "util/ib_acme/check_report.h"
#include "util/ib_acme/check_targets.h"
#include "util/ib_acme/latency_stats.h"
#include "util/ib_acme/path_compare.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace ssa::acme;

namespace {

ibv_path_record Path(uint16_t dlid, uint8_t sl) {
  ibv_path_record p;
  memset(&p, 0, sizeof(p));
  inet_pton(AF_INET6, "fe80::20:1", p.dgid.raw);
  inet_pton(AF_INET6, "fe80::10:3", p.sgid.raw);
  p.dlid = ssa::ToBe16(dlid);
  p.slid = ssa::ToBe16(4);
  p.reversible_numpath = 0x81;
  p.pkey = ssa::ToBe16(0xffff);
  p.qosclass_sl = ssa::ToBe16(sl);
  p.mtu = 0x84;
  p.rate = 0x83;
  p.packetlifetime = 0x92;
  return p;
}

TargetResult Result(TestOutcome outcome, double ms, const char* label = "lid 1") {
  TargetResult r;
  r.label = label;
  r.outcome = outcome;
  r.latency_ms = ms;
  return r;
}

}  // namespace

TEST_GROUP(IbAcmeReport){};

TEST(IbAcmeReport, PercentilesAreNearestRank) {
  LatencyStats s;
  DOUBLES_EQUAL(0.0, s.Percentile(50), 0);
  s.Add(5);
  DOUBLES_EQUAL(5, s.Percentile(50), 0);
  DOUBLES_EQUAL(5, s.Percentile(99), 0);
  LatencyStats four;
  for (double v : {4.0, 1.0, 3.0, 2.0}) four.Add(v);
  DOUBLES_EQUAL(2, four.Percentile(50), 0);  // rank ceil(0.5 * 4) = 2
  DOUBLES_EQUAL(4, four.Percentile(99), 0);
  DOUBLES_EQUAL(1, four.Percentile(25), 0);
  LatencyStats hundred;
  for (int i = 100; i >= 1; --i) hundred.Add(i);
  DOUBLES_EQUAL(50, hundred.Percentile(50), 0);
  DOUBLES_EQUAL(99, hundred.Percentile(99), 0);
  DOUBLES_EQUAL(100, hundred.Percentile(100), 0);
  LatencyStats thousand;
  for (int i = 1; i <= 1000; ++i) thousand.Add(i * 0.5);
  DOUBLES_EQUAL(250, thousand.Percentile(50), 0);
  DOUBLES_EQUAL(495, thousand.Percentile(99), 0);
}

TEST(IbAcmeReport, EqualPathsHaveNoDifferences) {
  CHECK_TRUE(ComparePaths(Path(3, 0), Path(3, 0)).empty());
  // Selectors and request-dependent fields do not count.
  ibv_path_record a = Path(3, 0), b = Path(3, 0);
  b.mtu = 0x04;
  b.service_id = ssa::ToBe64(7);
  b.reversible_numpath = 0x80;
  CHECK_TRUE(ComparePaths(a, b).empty());
}

TEST(IbAcmeReport, DifferencesNameTheFields) {
  ibv_path_record a = Path(3, 0), b = Path(5, 1);
  inet_pton(AF_INET6, "fe80::5", b.dgid.raw);
  std::vector<FieldDifference> d = ComparePaths(a, b);
  LONGS_EQUAL(3, d.size());
  STRCMP_EQUAL("dgid", d[0].field.c_str());
  STRCMP_EQUAL("fe80::20:1", d[0].daemon.c_str());
  STRCMP_EQUAL("fe80::5", d[0].expected.c_str());
  STRCMP_EQUAL("dlid 3 != 5 (SA)", DescribeDifferences({d[1]}).c_str());
  STRCMP_EQUAL("dgid fe80::20:1 != fe80::5 (SA); dlid 3 != 5 (SA); sl 0 != 1 (SA)",
               DescribeDifferences(d).c_str());
}

TEST(IbAcmeReport, CountingAndSummary) {
  TestSummary s;
  s.Add(Result(TestOutcome::kMatched, 1.0));
  s.Add(Result(TestOutcome::kMatched, 3.0));
  s.Add(Result(TestOutcome::kMismatched, 2.0));
  s.Add(Result(TestOutcome::kResolveError, 99.0));  // no latency sample
  s.Add(Result(TestOutcome::kVerifyError, 4.0));
  LONGS_EQUAL(5, s.destinations);
  LONGS_EQUAL(4, s.resolved);
  LONGS_EQUAL(2, s.matched);
  LONGS_EQUAL(1, s.mismatched);
  LONGS_EQUAL(2, s.errors);
  LONGS_EQUAL(4, s.latency.count());
  CHECK_FALSE(s.ok());
  STRCMP_EQUAL(
      "Provider test: /run/ibacm-unix.sock\n"
      "  destinations: 5\n"
      "  resolved:     4\n"
      "  matched:      2\n"
      "  mismatched:   1\n"
      "  errors:       2\n"
      "  latency:      p50 2.000 ms, p99 4.000 ms\n"
      "  result:       FAIL\n",
      FormatSummary("/run/ibacm-unix.sock", s).c_str());
  TestSummary good;
  good.Add(Result(TestOutcome::kMatched, 0.25));
  CHECK_TRUE(good.ok());
  STRCMP_CONTAINS("result:       PASS", FormatSummary("x", good).c_str());
  TestSummary unverified;
  unverified.verified = false;
  unverified.Add(Result(TestOutcome::kResolved, 0.5));
  CHECK_TRUE(unverified.ok());
  STRCMP_CONTAINS("matched:      - (not verified)", FormatSummary("x", unverified).c_str());
}

TEST(IbAcmeReport, LinesAndProgressBar) {
  TargetResult r = Result(TestOutcome::kMatched, 0.2125, "lid 3");
  STRCMP_EQUAL("lid 3: ok (0.212 ms)", FormatResultLine(r).c_str());
  r.outcome = TestOutcome::kMismatched;
  r.detail = "sl 0 != 1 (SA)";
  STRCMP_EQUAL("lid 3: MISMATCH (0.212 ms): sl 0 != 1 (SA)", FormatResultLine(r).c_str());
  r.outcome = TestOutcome::kResolveError;
  r.detail = "resolve failed: x";
  STRCMP_EQUAL("lid 3: ERROR: resolve failed: x", FormatResultLine(r).c_str());
  TestSummary s;
  s.Add(Result(TestOutcome::kMatched, 1));
  s.Add(Result(TestOutcome::kResolveError, 1));
  STRCMP_EQUAL("[#####.....] 2/4 ok 1 mismatched 0 errors 1",
               FormatProgressBar(2, 4, s, 10).c_str());
}

TEST(IbAcmeReport, DestinationsGuessTheirFormat) {
  TestTarget t;
  CHECK_OK(MakeTarget("12", AddrFormat::kUnspecified, &t));
  CHECK(t.format == AddrFormat::kLid);
  LONGS_EQUAL(12, t.lid);
  STRCMP_EQUAL("lid 12", t.Label().c_str());
  CHECK_OK(MakeTarget("0x1f", AddrFormat::kUnspecified, &t));
  LONGS_EQUAL(31, t.lid);
  CHECK_OK(MakeTarget("10.0.0.2", AddrFormat::kUnspecified, &t));
  CHECK(t.format == AddrFormat::kIp);
  LONGS_EQUAL(ssa::acm::kAddrIp, t.address.type);
  CHECK_OK(MakeTarget("node2", AddrFormat::kUnspecified, &t));
  CHECK(t.format == AddrFormat::kName);
  STRCMP_EQUAL("name node2", t.Label().c_str());
  CHECK_OK(MakeTarget("fe80::2", AddrFormat::kGid, &t));
  STRCMP_EQUAL("gid fe80::2", t.Label().c_str());
  CHECK_FALSE(MakeTarget("0", AddrFormat::kLid, &t).ok());
  CHECK_FALSE(MakeTarget("node2", AddrFormat::kGid, &t).ok());
  CHECK_FALSE(MakeTarget("x", AddrFormat::kIp, &t).ok());
  CHECK_FALSE(MakeTarget(std::string(64, 'n'), AddrFormat::kName, &t).ok());
}

TEST(IbAcmeReport, DestinationFilesExpandRanges) {
  std::vector<TestTarget> v;
  CHECK_OK(ParseDestinationText("# LIDs\n1\n[3-4] 9  # two more\n\n", "f", AddrFormat::kUnspecified,
                                &v));
  LONGS_EQUAL(4, v.size());
  LONGS_EQUAL(1, v[0].lid);
  LONGS_EQUAL(3, v[1].lid);
  LONGS_EQUAL(4, v[2].lid);
  LONGS_EQUAL(9, v[3].lid);
  v.clear();
  CHECK_OK(ParseDestinationText("node[1-2]\n", "f", AddrFormat::kName, &v));
  LONGS_EQUAL(2, v.size());
  STRCMP_EQUAL("node2", v[1].address.name().c_str());
  ssa::Status st = ParseDestinationText("1\nfe80::zz\n", "dests.txt", AddrFormat::kGid, &v);
  CHECK_FALSE(st.ok());
  STRCMP_CONTAINS("dests.txt:1", st.message().c_str());
}

TEST(IbAcmeReport, HostsFilesGiveAddressesAndExpectedGids) {
  std::vector<TestTarget> v;
  CHECK_OK(
      ParseHostsText("127.0.0.1 localhost\n# c\n10.0.0.2 node2 n2\n"
                     "node3 fe80::10:5\nfe80::1 ip6-host\n",
                     "hosts", &v));
  LONGS_EQUAL(4, v.size());
  CHECK(v[0].format == AddrFormat::kIp);
  CHECK_FALSE(v[0].has_expected_dgid);
  STRCMP_EQUAL("ip 10.0.0.2", v[1].Label().c_str());
  CHECK(v[2].format == AddrFormat::kName);
  CHECK_TRUE(v[2].has_expected_dgid);
  STRCMP_EQUAL("fe80::10:5", GidToText(v[2].expected_dgid).c_str());
  CHECK(v[3].format == AddrFormat::kIp);
  LONGS_EQUAL(ssa::acm::kAddrIp6, v[3].address.type);
}
