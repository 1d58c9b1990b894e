// big_endian_test.cc: common/base/big_endian.h against fixed wire bytes, so
// the helpers hold network order whatever the host's.
#include "common/base/big_endian.h"

#include <cstring>

#include "CppUTest/TestHarness.h"

namespace {

const uint8_t kWire[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};

// The host's own reading of the bytes, worked out from a byte written
// through an integer (not from the helpers under test).
bool HostIsBigEndian() {
  const uint16_t one = 1;
  uint8_t b[2];
  std::memcpy(b, &one, 2);
  return b[1] == 1;
}

}  // namespace

TEST_GROUP(BigEndian){};

TEST(BigEndian, PutWritesTheMostSignificantByteFirst) {
  uint8_t b[8] = {};
  ssa::PutBe16(b, 0x0102);
  MEMCMP_EQUAL(kWire, b, 2);
  ssa::PutBe32(b, 0x01020304);
  MEMCMP_EQUAL(kWire, b, 4);
  ssa::PutBe64(b, 0x0102030405060708ULL);
  MEMCMP_EQUAL(kWire, b, 8);
}

TEST(BigEndian, GetReadsTheMostSignificantByteFirstAtAnyAlignment) {
  uint8_t b[9] = {0xee};
  std::memcpy(b + 1, kWire, 8);
  UNSIGNED_LONGS_EQUAL(0x0102, ssa::GetBe16(b + 1));
  UNSIGNED_LONGS_EQUAL(0x01020304, ssa::GetBe32(b + 1));
  UNSIGNED_LONGLONGS_EQUAL(0x0102030405060708ULL, ssa::GetBe64(b + 1));
}

TEST(BigEndian, ToBeGivesTheFieldThatHoldsTheWireBytes) {
  uint16_t v16 = ssa::ToBe16(0x0102);
  uint32_t v32 = ssa::ToBe32(0x01020304);
  uint64_t v64 = ssa::ToBe64(0x0102030405060708ULL);
  MEMCMP_EQUAL(kWire, &v16, 2);
  MEMCMP_EQUAL(kWire, &v32, 4);
  MEMCMP_EQUAL(kWire, &v64, 8);
}

TEST(BigEndian, FromBeReadsAFieldThatHoldsTheWireBytes) {
  uint16_t v16;
  uint32_t v32;
  uint64_t v64;
  std::memcpy(&v16, kWire, 2);
  std::memcpy(&v32, kWire, 4);
  std::memcpy(&v64, kWire, 8);
  UNSIGNED_LONGS_EQUAL(0x0102, ssa::FromBe16(v16));
  UNSIGNED_LONGS_EQUAL(0x01020304, ssa::FromBe32(v32));
  UNSIGNED_LONGLONGS_EQUAL(0x0102030405060708ULL, ssa::FromBe64(v64));
  // Round trips, both ways.
  UNSIGNED_LONGLONGS_EQUAL(0x0102030405060708ULL,
                           ssa::FromBe64(ssa::ToBe64(0x0102030405060708ULL)));
  UNSIGNED_LONGLONGS_EQUAL(v64, ssa::ToBe64(ssa::FromBe64(v64)));
}

TEST(BigEndian, KnowsTheHostsByteOrder) { CHECK_EQUAL(HostIsBigEndian(), ssa::kHostBigEndian); }
