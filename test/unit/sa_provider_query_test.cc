// sa_provider_query_test.cc: the SubnAdmGet(PathRecord) MADs the sa
// provider sends (component masks built from what is known) and how it
// reads the SA's answers.
#include <arpa/inet.h>
#include <infiniband/acm.h>

#include <cerrno>
#include <cstring>

#include "common/base/big_endian.h"
#include "common/mad/mad_wire.h"
#include "providers/shared/path_query.h"
#include "test/support/check_ok.h"
#include "test/support/sa_reply.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

namespace mad = ssa::mad;
using ssa::provider_shared::BuildPassThroughQuery;
using ssa::provider_shared::BuildRouteQuery;
using ssa::provider_shared::InterpretSaAnswer;
using ssa::provider_shared::QuerySource;
using ssa::provider_shared::RouteKey;
using ssa::provider_shared::SaAnswer;

namespace {

const uint8_t kSgid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0x03};
const uint8_t kDgid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0x01};

QuerySource Source() {
  QuerySource s;
  memcpy(s.sgid, kSgid, 16);
  s.slid = 4;
  s.pkey = 0xffff;
  return s;
}

void Decode(const uint8_t* m, mad::MadHeader* h, mad::SaHeader* sa, mad::PathRecord* rec) {
  CHECK_OK(mad::DecodeMadHeader(m, mad::kMadSize, h));
  CHECK_OK(mad::DecodeSaHeader(m, mad::kMadSize, sa));
  CHECK_OK(mad::DecodePathRecord(m + mad::kSaDataOffset, mad::kPathRecordSize, rec));
}

// A SubnAdmGetResp(PathRecord) as OpenSM sends it.
void Response(uint16_t status, const mad::PathRecord& rec, uint8_t* m) {
  memset(m, 0, mad::kMadSize);
  ssa::test::EncodeSaPathReply(rec, status, m);
}

mad::PathRecord Answered() {
  mad::PathRecord r;
  memcpy(r.sgid, kSgid, 16);
  memcpy(r.dgid, kDgid, 16);
  r.slid = 4;
  r.dlid = 1;
  r.pkey = 0xffff;
  ssa::test::TypicalPathFields(&r);
  return r;
}

}  // namespace

TEST_GROUP(SaProviderQuery){};

TEST(SaProviderQuery, GidDestinationsAreAskedForBySgidAndDgid) {
  uint8_t m[mad::kMadSize];
  uint64_t mask = BuildRouteQuery(Source(), RouteKey::Gid(1, kDgid), m);
  mad::MadHeader h;
  mad::SaHeader sa;
  mad::PathRecord rec;
  Decode(m, &h, &sa, &rec);
  LONGS_EQUAL(mad::kClassSubnAdm, h.mgmt_class);
  LONGS_EQUAL(mad::kSaClassVersion, h.class_version);
  LONGS_EQUAL(mad::kMethodGet, h.method);
  LONGS_EQUAL(mad::kAttrPathRecord, h.attr_id);
  const uint64_t want = mad::kPrCompSgid | mad::kPrCompDgid | mad::kPrCompPkey |
                        mad::kPrCompReversible | mad::kPrCompNumbPath;
  CHECK(mask == want);
  CHECK(sa.comp_mask == want);
  MEMCMP_EQUAL(kSgid, rec.sgid, 16);
  MEMCMP_EQUAL(kDgid, rec.dgid, 16);
  LONGS_EQUAL(0, rec.slid);
  LONGS_EQUAL(0, rec.dlid);
  LONGS_EQUAL(0xffff, rec.pkey);
  CHECK_TRUE(rec.reversible);
  LONGS_EQUAL(1, rec.numb_path);
}

TEST(SaProviderQuery, LidDestinationsAreAskedForBySlidAndDlid) {
  uint8_t m[mad::kMadSize];
  QuerySource s = Source();
  s.pkey = 0;  // unknown P_Key: left out of the mask
  uint64_t mask = BuildRouteQuery(s, RouteKey::Lid(1, 0x1234), m);
  mad::MadHeader h;
  mad::SaHeader sa;
  mad::PathRecord rec;
  Decode(m, &h, &sa, &rec);
  CHECK(mask ==
        (mad::kPrCompSlid | mad::kPrCompDlid | mad::kPrCompReversible | mad::kPrCompNumbPath));
  LONGS_EQUAL(4, rec.slid);
  LONGS_EQUAL(0x1234, rec.dlid);
  uint8_t zero[16] = {};
  MEMCMP_EQUAL(zero, rec.sgid, 16);
}

TEST(SaProviderQuery, PassThroughMasksExactlyTheFieldsTheClientSet) {
  // What ib_acme -v sends back to verify a path: the resolved record.
  ibv_path_record path;
  mad::ToIbvPathRecord(Answered(), &path);
  uint8_t m[mad::kMadSize];
  uint64_t mask = BuildPassThroughQuery(path, m);
  CHECK(mask == (mad::kPrCompSgid | mad::kPrCompDgid | mad::kPrCompSlid | mad::kPrCompDlid |
                 mad::kPrCompReversible | mad::kPrCompPkey | mad::kPrCompMtuSelector |
                 mad::kPrCompMtu | mad::kPrCompRateSelector | mad::kPrCompRate |
                 mad::kPrCompPacketLifeTimeSelector | mad::kPrCompPacketLifeTime));
  MEMCMP_EQUAL(&path, m + mad::kSaDataOffset, sizeof(path));
  // Nothing forced: a bare DLID query stays one.
  ibv_path_record bare{};
  bare.dlid = ssa::ToBe16(7);
  bare.reversible_numpath = 1;
  mask = BuildPassThroughQuery(bare, m);
  CHECK(mask == (mad::kPrCompDlid | mad::kPrCompNumbPath));
}

TEST(SaProviderQuery, ARecordIsReturnedByteForByte) {
  uint8_t m[mad::kMadSize];
  Response(0, Answered(), m);
  m[mad::kSaDataOffset + 60] = 0xaa;  // a reserved byte survives too
  SaAnswer a = InterpretSaAnswer(0, m, sizeof(m));
  LONGS_EQUAL(ACM_STATUS_SUCCESS, a.status);
  CHECK_TRUE(a.cacheable);
  MEMCMP_EQUAL(m + mad::kSaDataOffset, &a.path, sizeof(a.path));
}

TEST(SaProviderQuery, SaErrorsBecomeClearStatuses) {
  uint8_t m[mad::kMadSize];
  struct {
    uint16_t mad_status;
    uint8_t acm_status;
  } cases[] = {
      {mad::kSaStatusNoRecords, ACM_STATUS_EDESTADDR},
      {mad::kSaStatusInvalidGid, ACM_STATUS_EDESTADDR},
      {mad::kSaStatusReqDenied, ACM_STATUS_EDESTADDR},
      {mad::kSaStatusNoResources, ACM_STATUS_ENODATA},
      {mad::kStatusBusy, ACM_STATUS_ENODATA},
      {mad::kSaStatusReqInvalid, ACM_STATUS_EINVAL},
      {mad::kSaStatusInsufficientComponents, ACM_STATUS_EINVAL},
      {mad::kStatusInvalidAttrValue, ACM_STATUS_EINVAL},
  };
  for (const auto& c : cases) {
    Response(c.mad_status, mad::PathRecord(), m);
    SaAnswer a = InterpretSaAnswer(0, m, sizeof(m));
    LONGS_EQUAL_TEXT(c.acm_status, a.status, a.why.c_str());
    CHECK_TRUE(a.cacheable);  // the same query gets the same answer for a while
    CHECK(!a.why.empty());
  }
  Response(mad::kSaStatusNoRecords, mad::PathRecord(), m);
  STRCMP_CONTAINS("ERR_NO_RECORDS", InterpretSaAnswer(0, m, sizeof(m)).why.c_str());
}

TEST(SaProviderQuery, TransportOutcomesAndMalformedAnswers) {
  SaAnswer a = InterpretSaAnswer(-ETIMEDOUT, nullptr, 0);
  LONGS_EQUAL(ACM_STATUS_ETIMEDOUT, a.status);
  CHECK_TRUE(a.cacheable);
  a = InterpretSaAnswer(-ECANCELED, nullptr, 0);
  LONGS_EQUAL(ACM_STATUS_ENOTCONN, a.status);
  CHECK_FALSE(a.cacheable);  // the port is going away, not the destination
  a = InterpretSaAnswer(-EHOSTUNREACH, nullptr, 0);
  LONGS_EQUAL(ACM_STATUS_ENOTCONN, a.status);
  // A GetResp with a bad record, and a MAD of another attribute.
  uint8_t m[mad::kMadSize];
  Response(0, mad::PathRecord(), m);  // DLID/SLID 0: not a record an SA sends
  a = InterpretSaAnswer(0, m, sizeof(m));
  LONGS_EQUAL(ACM_STATUS_EINVAL, a.status);
  CHECK_FALSE(a.cacheable);
  Response(0, Answered(), m);
  m[17] = 0x36;  // attribute 0x0036
  a = InterpretSaAnswer(0, m, sizeof(m));
  LONGS_EQUAL(ACM_STATUS_EINVAL, a.status);
  STRCMP_CONTAINS("bad SA answer", a.why.c_str());
  a = InterpretSaAnswer(0, m, 10);  // too short for a header
  LONGS_EQUAL(ACM_STATUS_EINVAL, a.status);
}
