// smdb_corrupt_test.cc: every way an SMDB byte stream can be wrong is
// rejected with a message naming the table and the reason; newer minors
// are read; the stream reader agrees with the whole-buffer parse and fails
// as soon as the bad bytes arrive.
#include <random>
#include <string>
#include <vector>

#include "common/smdb/smdb.h"
#include "common/smdb/smdb_stream.h"
#include "test/support/check_ok.h"
#include "test/unit/smdb_test_util.h"

// Last: CppUTest redefines operator new for what follows it.
#include <CppUTest/TestHarness.h>

using namespace ssa::smdb;
using smdb_test::PutU16;
using smdb_test::PutU32;
using smdb_test::Section;
using smdb_test::Sections;

namespace {

ssa::Status ParseBytes(const std::string& bytes, Smdb* out = nullptr) {
  Smdb db;
  return Smdb::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out ? out : &db);
}

// Fails the test unless parsing `bytes` fails with `code` and a message
// containing every one of `parts`.
void ExpectRejected(const std::string& bytes, int code, std::vector<std::string> parts) {
  ssa::Status s = ParseBytes(bytes);
  CHECK_FALSE_TEXT(s.ok(), "accepted a corrupted database");
  LONGS_EQUAL_TEXT(-code, s.code(), s.ToString().c_str());
  for (const std::string& part : parts) STRCMP_CONTAINS(part.c_str(), s.message().c_str());
}

std::string TableName(const Section& s) {
  return std::string("table '") + Smdb::Schema().tables[s.id - 1].name + "' (id " +
         std::to_string(s.id) + ")";
}

}  // namespace

TEST_GROUP(SmdbCorrupt) {
  std::string good;
  std::vector<Section> sections;
  void setup() override {
    good = smdb_test::Serialized(smdb_test::SampleSmdb());
    sections = Sections(good);
  }
};

TEST(SmdbCorrupt, BadMagic) {
  std::string b = good;
  b[0] = 'X';
  ExpectRejected(b, EBADMSG, {"smdb: bad magic 0x58534442 (expected 0x53534442)"});
  ExpectRejected(smdb_test::Serialized(Smdb()).replace(0, 4, "SSDL"), EBADMSG, {"bad magic"});
}

TEST(SmdbCorrupt, WrongMajorVersion) {
  std::string b = good;
  PutU16(&b, 4, 2);  // no reseal: the major is checked before the CRC
  const std::string minor = std::to_string(ssa::smdb::kFormatMinor);
  ExpectRejected(b, EPROTONOSUPPORT,
                 {"smdb: format version 2." + minor + " not supported (this reader reads 1.x)"});
  PutU16(&b, 4, 0);
  ExpectRejected(b, EPROTONOSUPPORT, {"format version 0." + minor});
}

TEST(SmdbCorrupt, TruncatedFileHeader) {
  for (size_t n = 0; n < 32; ++n) {
    ExpectRejected(good.substr(0, n), EBADMSG,
                   {"smdb: truncated in the file header (" + std::to_string(n) + " of 32 bytes)"});
  }
}

TEST(SmdbCorrupt, EveryTruncationNamesItsTable) {
  for (const Section& s : sections) {
    for (size_t n = s.header; n < s.end(); ++n) {
      std::string where = n < s.payload ? "truncated in the section header" : "truncated payload";
      // Fewer than 2 header bytes do not say which table comes next.
      std::string table = n < s.header + 2 ? "table section" : TableName(s);
      ExpectRejected(good.substr(0, n), EBADMSG, {table, where});
    }
  }
}

TEST(SmdbCorrupt, PayloadCrcMismatchInEveryTable) {
  for (const Section& s : sections) {
    if (s.count == 0) continue;
    std::string b = good;
    b[s.end() - 1] ^= 0x40;
    ExpectRejected(b, EBADMSG, {"smdb: " + TableName(s) + ": payload CRC mismatch"});
  }
}

TEST(SmdbCorrupt, HeaderCrcMismatch) {
  std::string b = good;
  b[20] ^= 1;  // global epoch
  ExpectRejected(b, EBADMSG, {"smdb: header: CRC mismatch"});
  for (const Section& s : sections) {
    b = good;
    b[s.header + 20] ^= 1;  // table epoch
    ExpectRejected(b, EBADMSG, {TableName(s), "section header CRC mismatch"});
  }
}

TEST(SmdbCorrupt, ReservedFieldsAndHeaderSizes) {
  std::string b = good;
  PutU32(&b, 24, 1);
  smdb_test::ResealFileHeader(&b);
  ExpectRejected(b, EBADMSG, {"header: reserved field is not zero"});
  b = good;
  PutU16(&b, 10, 40);
  ExpectRejected(
      b, EBADMSG,
      {"header_size 40 invalid for version 1." + std::to_string(ssa::smdb::kFormatMinor)});
  b = good;
  PutU32(&b, sections[2].header + 24, 7);
  smdb_test::ResealSection(&b, sections[2].header);
  ExpectRejected(b, EBADMSG, {TableName(sections[2]), "reserved field is not zero"});
  b = good;
  PutU16(&b, sections[3].header + 2, 33);
  ExpectRejected(b, EBADMSG, {TableName(sections[3]), "section header_size 33 invalid"});
}

TEST(SmdbCorrupt, RecordSizeMismatch) {
  std::string b = good;
  const Section& nodes = sections[2];
  PutU32(&b, nodes.header + 4, 95);
  smdb_test::ResealSection(&b, nodes.header);
  ExpectRejected(b, EBADMSG, {"smdb: table 'nodes' (id 3): record size 95, expected 94"});
  PutU32(&b, nodes.header + 4, 0);
  smdb_test::ResealSection(&b, nodes.header);
  ExpectRejected(b, EBADMSG, {"table 'nodes' (id 3): record size 0"});
}

TEST(SmdbCorrupt, RecordCountOverflow) {
  std::string b = good;
  const Section& lft = sections[6];
  PutU32(&b, lft.header + 8, 0xFFFFFFFF);
  smdb_test::ResealSection(&b, lft.header);
  ExpectRejected(b, EBADMSG,
                 {"table 'lft_blocks' (id 7): record count 4294967295 x record size 74",
                  "exceeds the table limit of 1073741824"});
}

TEST(SmdbCorrupt, SingleRecordTableHoldsOne) {
  std::string b = good;
  const Section& subnet = sections[0];
  b.insert(subnet.end(), b.substr(subnet.payload, 44));
  PutU32(&b, subnet.header + 8, 2);
  smdb_test::RecrcPayload(&b, Sections(b)[0]);
  ExpectRejected(b, EBADMSG, {"table 'subnet' (id 1): 2 records, expected exactly 1"});
}

TEST(SmdbCorrupt, RecordsOutOfKeyOrder) {
  std::string b = good;
  const Section& nodes = sections[2];
  std::string first = b.substr(nodes.payload, 94);
  b.replace(nodes.payload, 94, b.substr(nodes.payload + 94, 94));
  b.replace(nodes.payload + 94, 94, first);
  smdb_test::RecrcPayload(&b, nodes);
  ExpectRejected(b, EBADMSG, {"table 'nodes' (id 3): record 1 is not after record 0 in key order"});
}

TEST(SmdbCorrupt, UnknownTableIdIsRejectedInTheSameMinor) {
  std::string b = good;
  uint8_t extra[32] = {};
  PutBe16(extra, 42);
  PutBe16(extra + 2, 32);
  PutBe32(extra + 4, 8);
  SealHeader(extra, 32, 28);
  b.append(reinterpret_cast<const char*>(extra), 32);
  PutU32(&b, 12, static_cast<uint32_t>(sections.size() + 1));
  smdb_test::ResealFileHeader(&b);
  ExpectRejected(b, EBADMSG,
                 {"smdb: table id 42: unknown table id in a version 1." +
                  std::to_string(ssa::smdb::kFormatMinor) + " smdb"});
}

TEST(SmdbCorrupt, TablesOutOfOrderMissingOrTrailing) {
  // Swap sections 4 and 5 (ports, links).
  const Section& ports = sections[3];
  const Section& links = sections[4];
  std::string b = good.substr(0, ports.header) +
                  good.substr(links.header, links.end() - links.header) +
                  good.substr(ports.header, ports.end() - ports.header) + good.substr(links.end());
  ExpectRejected(b, EBADMSG, {"table 'ports' (id 4): out of order (after table id 5"});
  // Drop the links table.
  b = good.substr(0, links.header) + good.substr(links.end());
  const uint32_t n = static_cast<uint32_t>(sections.size());
  PutU32(&b, 12, n - 1);
  smdb_test::ResealFileHeader(&b);
  ExpectRejected(b, EBADMSG,
                 {"smdb: table 'links' (id 5): missing (the header lists " + std::to_string(n - 1) +
                  " tables)"});
  // A table twice.
  b = good.substr(0, links.end()) + good.substr(links.header, links.end() - links.header) +
      good.substr(links.end());
  PutU32(&b, 12, n + 1);
  smdb_test::ResealFileHeader(&b);
  ExpectRejected(b, EBADMSG, {"table 'links' (id 5): out of order (after table id 5"});
  ExpectRejected(good + "xy", EBADMSG,
                 {"smdb: unexpected bytes after the last table (which ends at offset " +
                  std::to_string(good.size()) + ")"});
}

TEST(SmdbCorrupt, WrongDbType) {
  std::string prdb = smdb_test::Serialized(smdb_test::SamplePrdb());
  ExpectRejected(prdb, EBADMSG, {"smdb: header: db_type 2 (prdb), expected 1"});
  Prdb p;
  ssa::Status s = Prdb::Parse(reinterpret_cast<const uint8_t*>(good.data()), good.size(), &p);
  STRCMP_CONTAINS("prdb: header: db_type 1 (smdb), expected 2", s.message().c_str());
}

// A file of a newer minor: a longer file header, longer records in "nodes",
// a longer section header in "ports", and a table this reader does not know.
// The reader takes what it knows and skips the rest.
TEST(SmdbCorrupt, NewerMinorIsReadForwardCompatibly) {
  std::string b = good.substr(0, 32);
  PutU16(&b, 6, 3);                                            // minor 3
  PutU16(&b, 10, 40);                                          // header_size
  PutU32(&b, 12, static_cast<uint32_t>(sections.size() + 1));  // one more table
  b.append(8, '\x5a');
  smdb_test::ResealFileHeader(&b);
  for (const Section& s : sections) {
    std::string header = good.substr(s.header, 32);
    std::string payload = good.substr(s.payload, s.end() - s.payload);
    if (s.id == 3) {  // nodes: 6 new bytes per record
      std::string longer;
      for (uint32_t i = 0; i < s.count; ++i) longer += payload.substr(i * 94, 94) + "NEWFLD";
      payload = longer;
      PutU32(&header, 4, 100);
      PutU32(&header, 12, Crc32(reinterpret_cast<const uint8_t*>(payload.data()), payload.size()));
    }
    if (s.id == 4) {  // ports: a 36-byte section header
      header += "EXT!";
      PutU16(&header, 2, 36);
    }
    smdb_test::ResealSection(&header, 0);
    b += header + payload;
  }
  uint8_t extra[32] = {};
  PutBe16(extra, 99);
  PutBe16(extra + 2, 32);
  PutBe32(extra + 4, 3);
  PutBe32(extra + 8, 2);
  PutBe32(extra + 12, Crc32(reinterpret_cast<const uint8_t*>("abcdef"), 6));
  SealHeader(extra, 32, 28);
  b.append(reinterpret_cast<const char*>(extra), 32);
  b += "abcdef";
  Smdb db;
  ssa::Status s = ParseBytes(b, &db);
  CHECK_OK(s);
  CHECK_TRUE(db == smdb_test::SampleSmdb());
  // The skipped table is still CRC-checked.
  b[b.size() - 1] = 'X';
  ExpectRejected(b, EBADMSG, {"table id 99: payload CRC mismatch"});
}

TEST_GROUP(SmdbStream) {
  std::string good;
  void setup() override { good = smdb_test::Serialized(smdb_test::RandomSmdb(&rng, 20)); }
  std::mt19937 rng{7};
};

TEST(SmdbStream, OneByteAtATimeEqualsWholeBuffer) {
  Smdb whole;
  CHECK_OK(ParseBytes(good, &whole));
  std::vector<std::string> reported;
  SmdbStreamReader reader([&](const TableSchema& t, size_t records) {
    reported.push_back(std::string(t.name) + ":" + std::to_string(records));
  });
  for (size_t i = 0; i < good.size(); ++i) {
    CHECK_FALSE(reader.done());
    ssa::Status s = reader.Feed(reinterpret_cast<const uint8_t*>(good.data()) + i, 1);
    CHECK_OK(s);
  }
  CHECK_TRUE(reader.done());
  Smdb streamed;
  CHECK_OK(reader.Finish(&streamed));
  CHECK_TRUE(streamed == whole);
  LONGS_EQUAL(Smdb::Schema().tables.size(), reported.size());
  STRCMP_EQUAL("subnet:1", reported[0].c_str());
  STRCMP_EQUAL(("nodes:" + std::to_string(whole.nodes.records.size())).c_str(),
               reported[2].c_str());
}

TEST(SmdbStream, RandomChunksEqualWholeBuffer) {
  Smdb whole;
  CHECK_OK(ParseBytes(good, &whole));
  for (int round = 0; round < 20; ++round) {
    SmdbStreamReader reader;
    size_t off = 0;
    while (off < good.size()) {
      size_t n = std::min(good.size() - off, size_t{rng() % 300});
      CHECK_OK(reader.Feed(reinterpret_cast<const uint8_t*>(good.data()) + off, n));
      off += n;
    }
    Smdb streamed;
    CHECK_OK(reader.Finish(&streamed));
    CHECK_TRUE(streamed == whole);
  }
}

TEST(SmdbStream, FailsAsSoonAsTheBadTableCompletes) {
  std::vector<Section> sections = Sections(good);
  const Section& ports = sections[3];
  std::string b = good;
  b[ports.payload] ^= 1;
  SmdbStreamReader reader;
  const uint8_t* p = reinterpret_cast<const uint8_t*>(b.data());
  for (size_t i = 0; i + 1 < ports.end(); ++i) CHECK_OK(reader.Feed(p + i, 1));
  ssa::Status s = reader.Feed(p + ports.end() - 1, 1);
  STRCMP_CONTAINS("table 'ports' (id 4): payload CRC mismatch", s.message().c_str());
  // The reader stays failed.
  STRCMP_EQUAL(s.message().c_str(), reader.Feed(p + ports.end(), 1).message().c_str());
  Smdb out;
  STRCMP_EQUAL(s.message().c_str(), reader.Finish(&out).message().c_str());
}

TEST(SmdbStream, FinishBeforeTheEndSaysWhatIsMissing) {
  std::vector<Section> sections = Sections(good);
  SmdbStreamReader reader;
  CHECK_OK(reader.Feed(reinterpret_cast<const uint8_t*>(good.data()), sections[2].payload + 5));
  Smdb out;
  ssa::Status s = reader.Finish(&out);
  LONGS_EQUAL(-EBADMSG, s.code());
  STRCMP_CONTAINS("table 'nodes' (id 3): truncated payload (5 of", s.message().c_str());
}
