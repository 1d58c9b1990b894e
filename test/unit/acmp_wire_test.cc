// acmp_wire_test.cc: the ACM message codec byte for byte (upstream's
// acm_mad/acm_resolve_rec offsets), every way a message can be malformed,
// random garbage, the MGID layout and address keys.
#include "providers/acmp/acmp_wire.h"

#include <arpa/inet.h>

#include <cstring>
#include <random>

#include "test/support/check_ok.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace ssa::acmp;
using ssa::dgram::Gid;

namespace {

Gid GidFrom(const char* text) {
  Gid g;
  inet_pton(AF_INET6, text, g.raw);
  return g;
}

AcmMessage SampleRequest() {
  AcmMessage m;
  m.method = kAcmMethodResolve;
  m.tid = 0x0102030405060708ULL;
  m.src.type = kAddrName;
  m.src.length = 64;
  strcpy(reinterpret_cast<char*>(m.src.data), "node1");
  m.dest.type = kAddrIp;
  m.dest.length = 64;
  uint8_t ip[4] = {10, 0, 0, 2};
  memcpy(m.dest.data, ip, 4);
  m.gid_count = 2;
  m.gids[0] = GidFrom("ff15:4001:ffff:3:400::");
  m.gids[1] = GidFrom("ff15:4001:ffff:7:400::");
  return m;
}

DecodeError DecodeWhy(const uint8_t* buf, size_t len) {
  AcmMessage m;
  DecodeError why = DecodeError::kNone;
  ssa::Status st = DecodeAcmMessage(buf, len, &m, &why);
  CHECK_EQUAL(st.ok(), why == DecodeError::kNone);
  return why;
}

}  // namespace

TEST_GROUP(AcmpWire){};

TEST(AcmpWire, RequestLayoutMatchesUpstreamOffsets) {
  uint8_t buf[kAcmMessageSize];
  EncodeAcmMessage(SampleRequest(), buf);
  // acm_mad header: base 1, class 0x2C, class version 1, method, status,
  // control 0x0001 (big-endian), TID.
  LONGS_EQUAL(1, buf[0]);
  LONGS_EQUAL(0x2c, buf[1]);
  LONGS_EQUAL(1, buf[2]);
  LONGS_EQUAL(0x01, buf[3]);
  LONGS_EQUAL(0, buf[4] | buf[5]);
  LONGS_EQUAL(0x00, buf[6]);
  LONGS_EQUAL(0x01, buf[7]);
  LONGS_EQUAL(0x01, buf[8]);
  LONGS_EQUAL(0x08, buf[15]);
  // acm_resolve_rec at 16: dest type/len, src type/len, gid_cnt.
  LONGS_EQUAL(kAddrIp, buf[16]);
  LONGS_EQUAL(64, buf[17]);
  LONGS_EQUAL(kAddrName, buf[18]);
  LONGS_EQUAL(64, buf[19]);
  LONGS_EQUAL(2, buf[20]);
  LONGS_EQUAL(10, buf[24]);  // dest[64] at 24
  LONGS_EQUAL(2, buf[27]);
  STRCMP_EQUAL("node1", reinterpret_cast<const char*>(buf + 88));  // src[64] at 88
  LONGS_EQUAL(0xff, buf[152]);                                     // gid[] at 152
  LONGS_EQUAL(0x07, buf[152 + 16 + 7]);
  LONGS_EQUAL(6, kAcmMaxGids);
}

TEST(AcmpWire, RequestAndResponseRoundTrip) {
  uint8_t buf[kAcmMessageSize];
  AcmMessage in = SampleRequest();
  EncodeAcmMessage(in, buf);
  AcmMessage out;
  DecodeError why;
  CHECK_OK(DecodeAcmMessage(buf, sizeof(buf), &out, &why));
  CHECK_FALSE(out.is_response());
  CHECK(out.tid == in.tid);
  LONGS_EQUAL(kAddrIp, out.dest.type);
  MEMCMP_EQUAL(in.dest.data, out.dest.data, 64);
  MEMCMP_EQUAL(in.src.data, out.src.data, 64);
  LONGS_EQUAL(2, out.gid_count);
  CHECK(out.gids[1] == in.gids[1]);

  // A response as upstream sends it: status 0, one GID, addresses zero.
  AcmMessage resp;
  resp.method = kAcmMethodResolve | kAcmMethodResponse;
  resp.tid = 77;
  resp.gid_count = 1;
  resp.gids[0] = in.gids[0];
  EncodeAcmMessage(resp, buf);
  LONGS_EQUAL(0x81, buf[3]);
  CHECK_OK(DecodeAcmMessage(buf, sizeof(buf), &out, &why));
  CHECK_TRUE(out.is_response());
  LONGS_EQUAL(0, out.acm_status());
  CHECK(out.gids[0] == in.gids[0]);

  // The ACM status travels in the high byte of the status field.
  resp.status = static_cast<uint16_t>(6 << 8);
  resp.gid_count = 0;
  EncodeAcmMessage(resp, buf);
  CHECK_OK(DecodeAcmMessage(buf, sizeof(buf), &out, &why));
  LONGS_EQUAL(6, out.acm_status());
}

TEST(AcmpWire, EveryMalformedShapeIsRejectedWithItsReason) {
  uint8_t good[kAcmMessageSize];
  EncodeAcmMessage(SampleRequest(), good);
  uint8_t b[kAcmMessageSize];
  auto fresh = [&] { memcpy(b, good, sizeof(b)); };
  // Why a good message with byte `at` set to `value` is refused.
  auto with_byte = [&](size_t at, uint8_t value) {
    fresh();
    b[at] = value;
    return DecodeWhy(b, sizeof(b));
  };

  fresh();
  CHECK(DecodeWhy(b, 151) == DecodeError::kShort);
  CHECK(DecodeWhy(b, 0) == DecodeError::kShort);
  CHECK(with_byte(0, 2) == DecodeError::kNotAcm);
  CHECK(with_byte(1, 0x03) == DecodeError::kNotAcm);  // an SA MAD
  CHECK(with_byte(2, 2) == DecodeError::kNotAcm);
  CHECK(with_byte(7, 2) == DecodeError::kBadControl);
  CHECK(with_byte(6, 0x80) == DecodeError::kBadControl);  // the old ACK control
  CHECK(with_byte(3, 0x02) == DecodeError::kBadMethod);
  CHECK(with_byte(3, 0x80) == DecodeError::kBadMethod);
  CHECK(with_byte(18, 0) == DecodeError::kBadAddressType);  // source type
  CHECK(with_byte(18, 6) == DecodeError::kBadAddressType);
  CHECK(with_byte(16, 9) == DecodeError::kBadAddressType);  // destination type
  CHECK(with_byte(19, 65) == DecodeError::kBadAddress);     // source length
  fresh();
  memset(b + 88, 'x', 64);  // a name without its NUL
  CHECK(DecodeWhy(b, sizeof(b)) == DecodeError::kBadAddress);
  CHECK(with_byte(88, 0) == DecodeError::kBadAddress);   // an empty name
  CHECK(with_byte(20, 7) == DecodeError::kBadGidCount);  // more GIDs than fit in 256 bytes
  fresh();
  b[20] = 2;  // two GIDs, but the datagram stops after one
  CHECK(DecodeWhy(b, 152 + 16) == DecodeError::kBadGidCount);
  fresh();
  b[3] = 0x81;
  b[20] = 0;  // a successful response needs its GID
  CHECK(DecodeWhy(b, sizeof(b)) == DecodeError::kBadGidCount);
  // A shorter datagram that still holds its GIDs is fine.
  fresh();
  CHECK(DecodeWhy(b, 152 + 32) == DecodeError::kNone);
}

TEST(AcmpWire, RandomBytesNeverCrashTheDecoder) {
  std::mt19937 rng(7);
  uint8_t buf[300];
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    size_t len = rng() % sizeof(buf);
    for (size_t j = 0; j < len; ++j) buf[j] = static_cast<uint8_t>(rng());
    if (i % 2) {  // half of them with a plausible header
      if (len >= 8) {
        buf[0] = 1;
        buf[1] = 0x2c;
        buf[2] = 1;
        buf[6] = 0;
        buf[7] = 1;
      }
    }
    AcmMessage m;
    DecodeError why;
    if (DecodeAcmMessage(buf, len, &m, &why).ok()) {
      ++accepted;
      CHECK(m.gid_count <= kAcmMaxGids);
    }
  }
  CHECK(accepted < 20000);
}

TEST(AcmpWire, MgidLayoutIsUpstreams) {
  // What OpenSM accepted as a join on the simulated fabric:
  // ff15:4001:ffff:0003:0400:0000:0000:0000 for P_Key 0xffff, 10 Gb/s, 2048.
  Gid g = AcmMgid(0xffff, 0, 3, 4);
  CHECK(g == GidFrom("ff15:4001:ffff:3:400::"));
  // The full-member bit is always set in the MGID.
  CHECK(AcmMgid(0x7fff, 0, 3, 4) == g);
  Gid h = AcmMgid(0x8001, 5, 7, 5);
  CHECK(h == GidFrom("ff15:4001:8001:507:500::"));
}

TEST(AcmpWire, AddressKeysAndText) {
  uint8_t a[64] = {}, b[64] = {};
  strcpy(reinterpret_cast<char*>(a), "Node7");
  strcpy(reinterpret_cast<char*>(b), "node7");
  CHECK(AddressKey(kAddrName, a) == AddressKey(kAddrName, b));
  CHECK(AddressKey(kAddrName, a) != AddressKey(kAddrIp, b));
  uint8_t ip1[64] = {10, 0, 0, 7}, ip2[64] = {10, 0, 0, 7, 0xee};  // bytes past 4 ignored
  CHECK(AddressKey(kAddrIp, ip1) == AddressKey(kAddrIp, ip2));
  STRCMP_EQUAL("10.0.0.7", AddressText(kAddrIp, ip1).c_str());
  STRCMP_EQUAL("Node7", AddressText(kAddrName, a).c_str());
  uint8_t ip6[64] = {};
  inet_pton(AF_INET6, "fd00::7", ip6);
  STRCMP_EQUAL("fd00::7", AddressText(kAddrIp6, ip6).c_str());
  uint8_t lid[64] = {0, 7};
  STRCMP_EQUAL("LID 7", AddressText(kAddrLid, lid).c_str());
}
