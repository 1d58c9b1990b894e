// addr_db_test.cc: the address database (common/smdb/addr_db.h): hosts
// text parsed into sorted, unique records, lookups by any-case name and by
// IPv4/IPv6, bad lines reported by number, and versions that survive the
// container format and its deltas like the SMDB's.
#include <arpa/inet.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/smdb/addr_db.h"
#include "common/smdb/smdb_delta.h"
#include "test/support/check_ok.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using ssa::smdb::AddrDb;
using ssa::smdb::HostsIssue;

namespace {

std::string GidAt(const uint8_t gid[16]) {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, gid, buf, sizeof(buf));
  return buf;
}

const char kHosts[] =
    "# ibacm_hosts.data\n"
    "node1 fe80::10:1\n"
    "NODE2 fe80::10:3   # upper case in the file\n"
    "10.0.0.1 fe80::10:1\n"
    "fd00::2 fe80::10:3\n"
    "node1 fe80::10:5\n"  // a later line replaces the first node1
    "broken\n"
    "node3 not-a-gid\n"
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa fe80::1\n"
    "node4 fe80::10:9 extra\n";

}  // namespace

TEST_GROUP(AddrDb){};

TEST(AddrDb, HostsLinesBecomeSortedUniqueRecordsAndBadLinesAreReported) {
  AddrDb db;
  std::vector<HostsIssue> issues;
  size_t taken = ssa::smdb::ParseHosts(kHosts, &db, &issues);
  LONGS_EQUAL(6, taken);                    // 5 good lines + node4 (its extra text is ignored)
  LONGS_EQUAL(3, db.names.records.size());  // node1, node2, node4
  LONGS_EQUAL(2, db.ips.records.size());
  LONGS_EQUAL(4, issues.size());
  LONGS_EQUAL(7, issues[0].line);
  STRCMP_CONTAINS("no GID", issues[0].message.c_str());
  LONGS_EQUAL(8, issues[1].line);
  LONGS_EQUAL(9, issues[2].line);
  STRCMP_CONTAINS("longer than 63", issues[2].message.c_str());
  LONGS_EQUAL(10, issues[3].line);

  uint8_t gid[16];
  CHECK_TRUE(db.FindName("Node1", gid));
  STRCMP_EQUAL("fe80::10:5", GidAt(gid).c_str());
  CHECK_TRUE(db.FindName("node2", gid));
  STRCMP_EQUAL("fe80::10:3", GidAt(gid).c_str());
  CHECK_FALSE(db.FindName("node3", gid));
  CHECK_FALSE(db.FindName("", gid));
  uint8_t v4[4];
  inet_pton(AF_INET, "10.0.0.1", v4);
  CHECK_TRUE(db.FindIp(v4, 4, gid));
  STRCMP_EQUAL("fe80::10:1", GidAt(gid).c_str());
  uint8_t v6[16];
  inet_pton(AF_INET6, "fd00::2", v6);
  CHECK_TRUE(db.FindIp(v6, 16, gid));
  inet_pton(AF_INET, "10.0.0.2", v4);
  CHECK_FALSE(db.FindIp(v4, 4, gid));
}

TEST(AddrDb, VersionsRoundTripAndTravelAsDeltas) {
  AddrDb v1;
  ssa::smdb::ParseHosts(kHosts, &v1, nullptr);
  v1.global_epoch = 1;
  v1.names.epoch = v1.ips.epoch = 1;
  std::string bytes;
  CHECK_OK(v1.Serialize(&bytes));
  AddrDb back;
  CHECK_OK(AddrDb::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &back));
  CHECK_TRUE(back == v1);

  // One name added: a delta that turns v1 into v2, and only the names
  // table's epoch moves.
  AddrDb v2;
  ssa::smdb::ParseHosts(std::string(kHosts) + "node7 fe80::10:d\n", &v2, nullptr);
  ssa::smdb::BumpEpochs(v1, &v2);
  LONGS_EQUAL(2, v2.global_epoch);
  LONGS_EQUAL(2, v2.names.epoch);
  LONGS_EQUAL(1, v2.ips.epoch);
  std::string delta;
  CHECK_OK(ssa::smdb::MakeDelta(v1, v2, &delta));
  CHECK(delta.size() < bytes.size());
  AddrDb applied;
  CHECK_OK(ssa::smdb::ApplyDelta(v1, reinterpret_cast<const uint8_t*>(delta.data()), delta.size(),
                                 &applied));
  CHECK_TRUE(applied == v2);
  uint8_t gid[16];
  CHECK_TRUE(applied.FindName("NODE7", gid));

  // A flipped byte is caught by the format's CRC.
  bytes[bytes.size() / 2] ^= 0x40;
  AddrDb bad;
  CHECK_FALSE(
      AddrDb::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &bad).ok());
}
