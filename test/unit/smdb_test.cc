// smdb_test.cc: the SMDB/PRDB format: pinned layouts, round trips (memory,
// bytes, files), canonical-order rules and the text dump.
#include "common/smdb/smdb.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/smdb/crc32_clmul.h"
#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_dump.h"
#include "common/smdb/smdb_format.h"
#include "common/smdb/smdb_prdb.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"
#include "test/unit/smdb_test_util.h"

// Last: CppUTest redefines operator new for what follows it.
#include <CppUTest/TestHarness.h>

using namespace ssa::smdb;
using smdb_test::GetU32;
using smdb_test::Sections;
using smdb_test::Serialized;

TEST_GROUP(Smdb){};

TEST(Smdb, Crc32IsTheZlibCrc) {
  const char* check = "123456789";
  const uint8_t* p = reinterpret_cast<const uint8_t*>(check);
  UNSIGNED_LONGS_EQUAL(0xCBF43926u, Crc32(p, 9));
  UNSIGNED_LONGS_EQUAL(0u, Crc32(p, 0));
  UNSIGNED_LONGS_EQUAL(Crc32(p, 9), Crc32(p + 4, 5, Crc32(p, 4)));
  // Long enough to use the 8-byte loop, at every alignment and tail length.
  std::string data;
  for (int i = 0; i < 100; ++i) data += static_cast<char>(i * 37);
  const uint8_t* d = reinterpret_cast<const uint8_t*>(data.data());
  for (size_t split = 0; split <= data.size(); ++split) {
    UNSIGNED_LONGS_EQUAL(Crc32(d, data.size()),
                         Crc32(d + split, data.size() - split, Crc32(d, split)));
  }
}

// A bit at a time, straight from the polynomial: the reference the fast
// paths (slicing-by-8, the carry-less folding) must equal.
static uint32_t BitwiseCrc32(const uint8_t* p, size_t n, uint32_t crc) {
  uint32_t c = ~crc;
  while (n--) {
    c ^= *p++;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
  }
  return ~c;
}

// Long runs take the carry-less folding where the CPU has it
// (crc32_clmul.h): every length around its 64- and 16-byte steps, every
// alignment, chained, and a megabyte.
TEST(Smdb, Crc32FoldingEqualsTheBitwiseCrc) {
  std::mt19937 rng(7);
  std::string data(1 << 20, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  const uint8_t* d = reinterpret_cast<const uint8_t*>(data.data());
  for (size_t len = 0; len <= 600; ++len)
    for (size_t off : {size_t{0}, size_t{1}, size_t{3}, size_t{8}, size_t{15}}) {
      uint32_t seed = static_cast<uint32_t>(len * 2654435761u);
      UNSIGNED_LONGS_EQUAL(BitwiseCrc32(d + off, len, seed), Crc32(d + off, len, seed));
    }
  UNSIGNED_LONGS_EQUAL(BitwiseCrc32(d, data.size(), 0), Crc32(d, data.size()));
  UNSIGNED_LONGS_EQUAL(BitwiseCrc32(d + 5, data.size() - 77, 0x12345678u),
                       Crc32(d + 5, data.size() - 77, 0x12345678u));
  if (ssa::smdb::internal::HaveCrc32Clmul()) {
    for (size_t len : {size_t{64}, size_t{80}, size_t{128}, size_t{4096}, size_t{65536}})
      UNSIGNED_LONGS_EQUAL(~BitwiseCrc32(d + 1, len, ~0xdeadbeefu),
                           ssa::smdb::internal::Crc32ClmulFold(0xdeadbeefu, d + 1, len));
  }
}

// The CRC arithmetic the incremental PRDB digests rely on.
TEST(Smdb, Crc32CombineAndPatchMatchAFullPass) {
  std::string data;
  for (int i = 0; i < 5000; ++i) data += static_cast<char>((i * 131) ^ (i >> 3));
  const uint8_t* d = reinterpret_cast<const uint8_t*>(data.data());
  for (size_t split : {size_t{0}, size_t{1}, size_t{7}, size_t{123}, size_t{4096}, data.size()})
    UNSIGNED_LONGS_EQUAL(
        Crc32(d, data.size()),
        Crc32Combine(Crc32(d, split), Crc32(d + split, data.size() - split), data.size() - split));
  uint32_t crc = Crc32(d, data.size());
  std::string changed = data;
  for (size_t off : {size_t{0}, size_t{10}, size_t{2500}, size_t{4950}}) {
    for (size_t n : {size_t{1}, size_t{50}}) {
      std::string before = changed.substr(off, n);
      for (size_t i = 0; i < n; ++i) changed[off + i] = static_cast<char>(changed[off + i] + 1 + i);
      crc = Crc32Patch(crc, changed.size(), off, reinterpret_cast<const uint8_t*>(before.data()),
                       reinterpret_cast<const uint8_t*>(changed.data()) + off, n);
      UNSIGNED_LONGS_EQUAL(Crc32(reinterpret_cast<const uint8_t*>(changed.data()), changed.size()),
                           crc);
    }
  }
}

TEST(Smdb, SchemasListTablesInIdOrder) {
  const DbSchema& s = Smdb::Schema();
  const char* names[] = {"subnet",          "guid_lids",      "nodes",           "ports",
                         "links",           "switches",       "lft_blocks",      "pkey_blocks",
                         "partitions",      "prefix_routes",  "qos_levels",      "qos_groups",
                         "qos_group_ports", "qos_rules",      "qos_rule_groups", "qos_ranges",
                         "route_sls",       "route_sl_hints", "sl2vl_drops"};
  const uint32_t sizes[] = {44, 20, 94, 38, 18, 16, 74, 70, 36, 20, 39, 35, 10, 4, 7, 22, 7, 2, 12};
  LONGS_EQUAL(19, s.tables.size());
  for (size_t i = 0; i < s.tables.size(); ++i) {
    LONGS_EQUAL(i + 1, s.tables[i].id);
    LONGS_EQUAL(i < 10 ? 0 : 1, s.tables[i].since_minor);  // minor 1: the QoS tables
    STRCMP_EQUAL(names[i], s.tables[i].name);
    LONGS_EQUAL(sizes[i], s.tables[i].record_size);
    CHECK_EQUAL(i == 0, s.tables[i].single_record);
  }
  const DbSchema& p = Prdb::Schema();
  LONGS_EQUAL(2, p.tables.size());
  STRCMP_EQUAL("source", p.tables[0].name);
  STRCMP_EQUAL("paths", p.tables[1].name);
  LONGS_EQUAL(36, p.tables[1].key_size);
}

TEST(Smdb, HeaderBytesFollowTheSpec) {
  Smdb db = smdb_test::SampleSmdb();
  db.global_epoch = 0x0102030405060708ull;
  std::string b = Serialized(db);
  const unsigned char want[] = {'S', 'S', 'D', 'B', 0, 1, 0, 1, 0, 1, 0, 32, 0, 0,
                                0,   19,  1,   2,   3, 4, 5, 6, 7, 8, 0, 0,  0, 0};
  MEMCMP_EQUAL(want, b.data(), sizeof(want));
  UNSIGNED_LONGS_EQUAL(Crc32(reinterpret_cast<const uint8_t*>(b.data()), 28), GetU32(b, 28));
  std::vector<smdb_test::Section> sections = Sections(b);
  LONGS_EQUAL(19, sections.size());
  LONGS_EQUAL(b.size(), sections.back().end());
  // The links table: records of node GUID (8), port (1), peer GUID (8),
  // peer port (1), big-endian.
  const smdb_test::Section& links = sections[4];
  LONGS_EQUAL(5, links.id);
  LONGS_EQUAL(18, links.record_size);
  LONGS_EQUAL(4, links.count);
  const unsigned char first_link[] = {0x00, 0x02, 0xc9, 0x03, 0, 0, 0, 0x01, 1,
                                      0x00, 0x02, 0xc9, 0x03, 0, 0, 1, 0x00, 1};
  MEMCMP_EQUAL(first_link, b.data() + links.payload, sizeof(first_link));
  UNSIGNED_LONGS_EQUAL(Crc32(reinterpret_cast<const uint8_t*>(b.data()) + links.payload, 4 * 18),
                       GetU32(b, links.header + 12));
}

TEST(Smdb, RoundTripIsExactAndByteIdentical) {
  std::mt19937 rng(1);
  for (int i = 0; i < 20; ++i) {
    Smdb db = i == 0 ? smdb_test::SampleSmdb() : smdb_test::RandomSmdb(&rng, 30);
    std::string bytes = Serialized(db);
    Smdb back;
    ssa::Status s =
        Smdb::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &back);
    CHECK_OK(s);
    CHECK_TRUE(back == db);
    CHECK_TRUE(Serialized(back) == bytes);
    STRCMP_EQUAL(DumpSmdb(db).c_str(), DumpSmdb(back).c_str());
  }
}

// CompareKeys and RecordsEqual (in memory) against the encodings they
// stand for, on every table of random databases and edits of them.
TEST(Smdb, InMemoryComparisonsOrderAsTheEncodings) {
  std::mt19937 rng(7);
  size_t compared = 0, equal = 0, less = 0;
  for (int i = 0; i < 20; ++i) {
    Smdb a = smdb_test::RandomSmdb(&rng, 30), b = a;
    smdb_test::RandomEdits(&rng, &b);
    Smdb::ForEachTable(a, [&](const auto& ta) {
      using R = typename std::decay_t<decltype(ta)>::Record;
      std::vector<R> all = ta.records;
      Smdb::ForEachTable(b, [&](const auto& tb) {
        if constexpr (std::is_same<typename std::decay_t<decltype(tb)>::Record, R>::value)
          all.insert(all.end(), tb.records.begin(), tb.records.end());
      });
      uint8_t ex[WireSize<R>()], ey[WireSize<R>()];
      for (const R& x : all)
        for (const R& y : all) {
          EncodeRecord(x, ex);
          EncodeRecord(y, ey);
          int key = std::memcmp(ex, ey, KeySize<R>());
          key = key < 0 ? -1 : key > 0 ? 1 : 0;
          LONGS_EQUAL(key, CompareKeys(x, y));
          bool same = std::memcmp(ex, ey, sizeof(ex)) == 0;
          CHECK_EQUAL(same, RecordsEqual(x, y));
          ++compared;
          equal += same;
          less += key < 0;
        }
    });
  }
  // Both outcomes of both comparisons were seen.
  CHECK(equal > 0 && equal < compared && less > 0 && less < compared);
}

TEST(Smdb, PrdbRoundTrip) {
  std::mt19937 rng(2);
  for (int i = 0; i < 10; ++i) {
    Prdb db = i == 0 ? smdb_test::SamplePrdb() : smdb_test::RandomPrdb(&rng, 40);
    std::string bytes = Serialized(db);
    LONGS_EQUAL(2, bytes[9]);  // db_type
    Prdb back;
    ssa::Status s =
        Prdb::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &back);
    CHECK_OK(s);
    CHECK_TRUE(back == db);
    CHECK_TRUE(Serialized(back) == bytes);
  }
}

TEST(Smdb, DefaultDatabasesSerialize) {
  Smdb empty;
  std::string bytes = Serialized(empty);
  LONGS_EQUAL(32 + 19 * 32 + 44, bytes.size());
  Smdb back;
  CHECK_OK(Smdb::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &back));
  CHECK_TRUE(back == empty);
  Prdb prdb;
  CHECK_EQUAL(32u + 2 * 32 + 27, Serialized(prdb).size());
}

TEST(Smdb, SerializeRejectsBrokenOrderAndSingleRecordTables) {
  Smdb db = smdb_test::SampleSmdb();
  std::swap(db.nodes.records[0], db.nodes.records[2]);
  std::string out = "untouched";
  ssa::Status s = db.Serialize(&out);
  LONGS_EQUAL(-EINVAL, s.code());
  STRCMP_CONTAINS("table 'nodes' (id 3)", s.message().c_str());
  STRCMP_CONTAINS("key order", s.message().c_str());
  CHECK_TRUE(out.empty());  // nothing half written is left

  db.SortRecords();
  CHECK_TRUE(db == smdb_test::SampleSmdb());

  db.ports.records.push_back(db.ports.records[1]);
  db.SortRecords();
  s = db.Serialize(&out);
  STRCMP_CONTAINS("table 'ports' (id 4): record 2 is not after record 1", s.message().c_str());

  Smdb two_subnets = smdb_test::SampleSmdb();
  two_subnets.subnet.records.push_back(SmdbSubnet{});
  s = two_subnets.Serialize(&out);
  LONGS_EQUAL(-EINVAL, s.code());
  STRCMP_CONTAINS("table 'subnet' (id 1): 2 records, expected exactly 1", s.message().c_str());
}

TEST(Smdb, FilesRoundTripAndErrorsNameTheFile) {
  ssa::test::TempDir dir("smdb_test.");
  CHECK_OK(dir.status());
  std::string path = dir.path() + "/fabric.smdb";
  Smdb db = smdb_test::SampleSmdb();
  ssa::Status s = db.WriteFile(path);
  CHECK_OK(s);
  Smdb back;
  s = Smdb::ReadFile(path, &back);
  CHECK_OK(s);
  CHECK_TRUE(back == db);

  // A PRDB file is not an SMDB.
  s = smdb_test::SamplePrdb().WriteFile(path);
  CHECK_OK(s);
  s = Smdb::ReadFile(path, &back);
  LONGS_EQUAL(-EBADMSG, s.code());
  STRCMP_CONTAINS(path.c_str(), s.message().c_str());
  STRCMP_CONTAINS("db_type 2 (prdb), expected 1", s.message().c_str());
  Prdb prdb;
  CHECK_OK(Prdb::ReadFile(path, &prdb));
  CHECK_TRUE(prdb == smdb_test::SamplePrdb());

  unlink(path.c_str());
  s = Smdb::ReadFile(path, &back);
  LONGS_EQUAL(-ENOENT, s.code());
  STRCMP_CONTAINS(path.c_str(), s.message().c_str());
  CHECK_TRUE(back == db);  // untouched by failures
}

TEST(Smdb, DumpIsOneLinePerRecord) {
  Smdb db;
  db.global_epoch = 7;
  db.subnet.epoch = 7;
  SmdbNode node;
  node.node_guid = 0x0002c90300000001ull;
  node.node_type = kNodeCa;
  node.num_ports = 2;
  node.vendor_id = 0x2c9;
  std::memcpy(node.description.data(), "ca \"1\"\n", 7);
  db.nodes.records.push_back(node);
  db.nodes.epoch = 5;
  SmdbPkeyBlock pkeys;
  pkeys.pkeys[0] = 0xffff;
  db.pkey_blocks.records.push_back(pkeys);
  std::string dump = DumpSmdb(db);
  STRCMP_CONTAINS(
      "smdb global_epoch=7 tables=19\ntable subnet id=1 epoch=7 records=1\n"
      "subnet subnet_prefix=0x0000000000000000 sm_port_guid=0x0000000000000000 sm_lid=0 "
      "sm_state=0 sm_priority=0 lmc=0 subnet_timeout=0 packet_life_time=0 default_sl=0 "
      "flags=0x00000000 routing_engine=\"\"\n"
      "table guid_lids id=2 epoch=0 records=0\n"
      "table nodes id=3 epoch=5 records=1\n"
      "node node_guid=0x0002c90300000001 system_image_guid=0x0000000000000000 "
      "node_type=1 num_ports=2 partition_cap=0 vendor_id=0x000002c9 device_id=0x0000 "
      "revision=0x00000000 description=\"ca \\\"1\\\"\\x0a\"\n"
      "table ports id=4",
      dump.c_str());
  STRCMP_CONTAINS("pkey_block table_id=0 block=0 pkeys=0xffff,0x0000,", dump.c_str());
  STRCMP_CONTAINS("\ntable prefix_routes id=10 epoch=0 records=0\n", dump.c_str());
  CHECK_EQUAL(dump.size() - 1, dump.rfind('\n'));
  STRCMP_CONTAINS("path dgid=0xfe800000000000000002c90300000001 sgid=0xfe80",
                  DumpPrdb(smdb_test::SamplePrdb()).c_str());
}

// A file of format minor 0 has no QoS tables: it reads, with them empty.
TEST(Smdb, AFileOfMinorZeroLacksTheQosTablesAndReads) {
  Smdb db = smdb_test::SampleSmdb();
  std::string b = Serialized(db);
  std::vector<smdb_test::Section> sections = Sections(b);
  size_t first_qos = sections[10].header;
  std::string old = b.substr(0, first_qos);
  smdb_test::PutU16(&old, 6, 0);    // minor 0
  smdb_test::PutU32(&old, 12, 10);  // ten tables
  smdb_test::ResealFileHeader(&old);
  Smdb back;
  ssa::Status st = Smdb::Parse(reinterpret_cast<const uint8_t*>(old.data()), old.size(), &back);
  CHECK_OK(st);
  CHECK_TRUE(back == db);
  // The same file claiming minor 1 lacks tables it must have.
  smdb_test::PutU16(&old, 6, 1);
  smdb_test::ResealFileHeader(&old);
  st = Smdb::Parse(reinterpret_cast<const uint8_t*>(old.data()), old.size(), &back);
  STRCMP_CONTAINS("table 'qos_levels' (id 11): missing", st.message().c_str());
}
