// mad_wire_test.cc: MAD/SA/PathRecord layouts byte for byte, against the
// IBA offsets and rdma-core's struct ibv_path_record.
#include "common/mad/mad_wire.h"

#include <CppUTest/TestHarness.h>
#include <infiniband/sa.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_types.h>

#include <cstring>

#include "common/base/big_endian.h"
#include "test/support/check_ok.h"
#include "test/support/sa_reply.h"

using namespace ssa::mad;
using ssa::Status;

namespace {

const uint8_t kSgid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x02, 0, 0, 0x1f, 0x11};
const uint8_t kDgid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x02, 0, 0, 0x1f, 0x12};

PathRecord SampleRecord() {
  PathRecord r;
  r.service_id = 0x1122334455667788ULL;
  memcpy(r.dgid, kDgid, 16);
  memcpy(r.sgid, kSgid, 16);
  r.dlid = 0x1234;
  r.slid = 0x0042;
  r.raw_traffic = true;
  r.flow_label = 0xabcde;
  r.hop_limit = 0x3f;
  r.tclass = 0x5a;
  r.reversible = true;
  r.numb_path = 0x7f;
  r.pkey = 0xffff;
  r.qos_class = 0xabc;
  r.sl = 9;
  r.mtu_selector = 2;
  r.mtu = 4;
  r.rate_selector = 3;
  r.rate = 0x10;
  r.packet_life_time_selector = 1;
  r.packet_life_time = 0x12;
  r.preference = 0x77;
  return r;
}

// The same record written through rdma-core's struct, field by field.
struct ibv_path_record SampleIbvRecord() {
  struct ibv_path_record p;
  memset(&p, 0, sizeof(p));
  p.service_id = ssa::ToBe64(0x1122334455667788ULL);
  memcpy(&p.dgid, kDgid, 16);
  memcpy(&p.sgid, kSgid, 16);
  p.dlid = ssa::ToBe16(0x1234);
  p.slid = ssa::ToBe16(0x0042);
  p.flowlabel_hoplimit = ssa::ToBe32(0x80000000u | (0xabcdeu << 8) | 0x3f);
  p.tclass = 0x5a;
  p.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 0x7f;
  p.pkey = ssa::ToBe16(0xffff);
  p.qosclass_sl = ssa::ToBe16((0xabc << 4) | 9);
  p.mtu = (2 << 6) | 4;
  p.rate = (3 << 6) | 0x10;
  p.packetlifetime = (1 << 6) | 0x12;
  p.preference = 0x77;
  return p;
}

void CheckSameRecord(const PathRecord& a, const PathRecord& b) {
  UNSIGNED_LONGLONGS_EQUAL(a.service_id, b.service_id);
  MEMCMP_EQUAL(a.dgid, b.dgid, 16);
  MEMCMP_EQUAL(a.sgid, b.sgid, 16);
  UNSIGNED_LONGS_EQUAL(a.dlid, b.dlid);
  UNSIGNED_LONGS_EQUAL(a.slid, b.slid);
  CHECK_EQUAL(a.raw_traffic, b.raw_traffic);
  UNSIGNED_LONGS_EQUAL(a.flow_label, b.flow_label);
  UNSIGNED_LONGS_EQUAL(a.hop_limit, b.hop_limit);
  UNSIGNED_LONGS_EQUAL(a.tclass, b.tclass);
  CHECK_EQUAL(a.reversible, b.reversible);
  UNSIGNED_LONGS_EQUAL(a.numb_path, b.numb_path);
  UNSIGNED_LONGS_EQUAL(a.pkey, b.pkey);
  UNSIGNED_LONGS_EQUAL(a.qos_class, b.qos_class);
  UNSIGNED_LONGS_EQUAL(a.sl, b.sl);
  UNSIGNED_LONGS_EQUAL(a.mtu_selector, b.mtu_selector);
  UNSIGNED_LONGS_EQUAL(a.mtu, b.mtu);
  UNSIGNED_LONGS_EQUAL(a.rate_selector, b.rate_selector);
  UNSIGNED_LONGS_EQUAL(a.rate, b.rate);
  UNSIGNED_LONGS_EQUAL(a.packet_life_time_selector, b.packet_life_time_selector);
  UNSIGNED_LONGS_EQUAL(a.packet_life_time, b.packet_life_time);
  UNSIGNED_LONGS_EQUAL(a.preference, b.preference);
}

// A SubnAdmGetResp(PathRecord) as OpenSM would send it.
void MakeResponse(const PathRecord& rec, uint16_t status, uint8_t* mad) {
  memset(mad, 0, kMadSize);
  ssa::test::EncodeSaPathReply(rec, status, mad);
  SetMadTid(mad, 0x0001000200000007ULL);
}

}  // namespace

TEST_GROUP(MadWire){};

TEST(MadWire, ConstantsHaveTheSpecValues) {
  // mad_wire.h takes these from rdma-core's headers; pin the numbers too.
  UNSIGNED_LONGS_EQUAL(0x03, kClassSubnAdm);
  UNSIGNED_LONGS_EQUAL(2, kSaClassVersion);
  UNSIGNED_LONGS_EQUAL(1, kBaseVersion);
  UNSIGNED_LONGS_EQUAL(0x01, kMethodGet);
  UNSIGNED_LONGS_EQUAL(0x81, kMethodGetResp);
  UNSIGNED_LONGS_EQUAL(0x12, kMethodGetTable);
  UNSIGNED_LONGS_EQUAL(0x92, kMethodGetTableResp);
  UNSIGNED_LONGS_EQUAL(0x95, kMethodDeleteResp);
  UNSIGNED_LONGS_EQUAL(0x0035, kAttrPathRecord);
  UNSIGNED_LONGS_EQUAL(0x0001, kStatusBusy);
  UNSIGNED_LONGS_EQUAL(0x001c, kStatusInvalidAttrValue);
  UNSIGNED_LONGS_EQUAL(0x0300, kSaStatusNoRecords);
  UNSIGNED_LONGS_EQUAL(0x0700, kSaStatusReqDenied);
  UNSIGNED_LONGS_EQUAL(0x0800, kSaStatusPriSuggested);
  // umad_sa_packet places the SA header where mad_wire.h says.
  UNSIGNED_LONGS_EQUAL(kSaHeaderOffset, offsetof(struct umad_sa_packet, sm_key));
  UNSIGNED_LONGS_EQUAL(44, offsetof(struct umad_sa_packet, attr_offset));
  UNSIGNED_LONGS_EQUAL(48, offsetof(struct umad_sa_packet, comp_mask));
  UNSIGNED_LONGS_EQUAL(kSaDataOffset, offsetof(struct umad_sa_packet, data));
  UNSIGNED_LONGS_EQUAL(kMadSize, sizeof(struct umad_sa_packet));
}

TEST(MadWire, PathRecordCompMaskBitsAreTheSpecOnes) {
  // IBA 1.3 vol 1 table 212 (also OpenSM's IB_PR_COMPMASK_* in host order).
  UNSIGNED_LONGLONGS_EQUAL(0x3ULL, kPrCompServiceId);
  UNSIGNED_LONGLONGS_EQUAL(0x4ULL, kPrCompDgid);
  UNSIGNED_LONGLONGS_EQUAL(0x8ULL, kPrCompSgid);
  UNSIGNED_LONGLONGS_EQUAL(0x10ULL, kPrCompDlid);
  UNSIGNED_LONGLONGS_EQUAL(0x20ULL, kPrCompSlid);
  UNSIGNED_LONGLONGS_EQUAL(0x800ULL, kPrCompReversible);
  UNSIGNED_LONGLONGS_EQUAL(0x1000ULL, kPrCompNumbPath);
  UNSIGNED_LONGLONGS_EQUAL(0x2000ULL, kPrCompPkey);
  UNSIGNED_LONGLONGS_EQUAL(0x8000ULL, kPrCompSl);
  UNSIGNED_LONGLONGS_EQUAL(0x200000ULL, kPrCompPacketLifeTime);
  UNSIGNED_LONGLONGS_EQUAL(0x400000ULL, kPrCompPreference);
}

TEST(MadWire, MadHeaderBytes) {
  MadHeader h;
  h.base_version = 1;
  h.mgmt_class = 0x03;
  h.class_version = 2;
  h.method = 0x81;
  h.status = 0x0300;
  h.class_specific = 0xa1b2;
  h.tid = 0x0102030405060708ULL;
  h.attr_id = 0x0035;
  h.reserved = 0;
  h.attr_mod = 0xdeadbeef;
  uint8_t buf[24];
  EncodeMadHeader(h, buf);
  const uint8_t want[24] = {1, 3, 2, 0x81, 0x03, 0x00, 0xa1, 0xb2, 1,    2,    3,    4,
                            5, 6, 7, 8,    0x00, 0x35, 0,    0,    0xde, 0xad, 0xbe, 0xef};
  MEMCMP_EQUAL(want, buf, 24);
  MadHeader back;
  CHECK_OK(DecodeMadHeader(buf, sizeof(buf), &back));
  UNSIGNED_LONGLONGS_EQUAL(h.tid, back.tid);
  UNSIGNED_LONGS_EQUAL(h.status, back.status);
  UNSIGNED_LONGS_EQUAL(h.attr_mod, back.attr_mod);
  UNSIGNED_LONGS_EQUAL(h.class_specific, back.class_specific);
  UNSIGNED_LONGS_EQUAL(0x0300, MadStatus(buf, sizeof(buf)));
  UNSIGNED_LONGLONGS_EQUAL(h.tid, MadTid(buf));
  // Also agrees with rdma-core's struct umad_hdr.
  struct umad_hdr uh;
  memcpy(&uh, buf, sizeof(uh));
  UNSIGNED_LONGS_EQUAL(0x0035, ssa::FromBe16(uh.attr_id));
  UNSIGNED_LONGLONGS_EQUAL(h.tid, ssa::FromBe64(uh.tid));
}

TEST(MadWire, ShortMadHeaderIsRejected) {
  uint8_t buf[23] = {};
  MadHeader h;
  Status st = DecodeMadHeader(buf, sizeof(buf), &h);
  CHECK_FALSE(st.ok());
  LONGS_EQUAL(-EBADMSG, st.code());
  UNSIGNED_LONGS_EQUAL(0xffff, MadStatus(buf, sizeof(buf)));
}

TEST(MadWire, SaHeaderBytes) {
  uint8_t mad[kMadSize] = {};
  SaHeader sa;
  sa.sm_key = 0x0000000000000001ULL;
  sa.attr_offset = 8;
  sa.comp_mask = 0x0000000000002830ULL;
  EncodeSaHeader(sa, mad);
  const uint8_t want[20] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0x28, 0x30};
  MEMCMP_EQUAL(want, mad + 36, 20);
  SaHeader back;
  CHECK_OK(DecodeSaHeader(mad, sizeof(mad), &back));
  UNSIGNED_LONGLONGS_EQUAL(sa.sm_key, back.sm_key);
  UNSIGNED_LONGS_EQUAL(8, back.attr_offset);
  UNSIGNED_LONGLONGS_EQUAL(sa.comp_mask, back.comp_mask);
  CHECK_FALSE(DecodeSaHeader(mad, 55, &back).ok());
}

TEST(MadWire, PathRecordBytesEqualIbvPathRecord) {
  uint8_t bytes[kPathRecordSize];
  EncodePathRecord(SampleRecord(), bytes);
  struct ibv_path_record want = SampleIbvRecord();
  MEMCMP_EQUAL(&want, bytes, kPathRecordSize);
  // A few fields at their spec offsets, spelled out.
  BYTES_EQUAL(0x12, bytes[40]);
  BYTES_EQUAL(0x34, bytes[41]);
  BYTES_EQUAL(0xff, bytes[49]);  // reversible | numb_path 0x7f
  BYTES_EQUAL(0xab, bytes[52]);
  BYTES_EQUAL(0xc9, bytes[53]);  // qos 0xabc, sl 9
  BYTES_EQUAL(0x84, bytes[54]);  // selector 2, mtu 4
  BYTES_EQUAL(0x77, bytes[57]);
  for (size_t i = 58; i < 64; ++i) BYTES_EQUAL(0, bytes[i]);
}

TEST(MadWire, PathRecordRoundTripAndIbvConversion) {
  uint8_t bytes[kPathRecordSize];
  EncodePathRecord(SampleRecord(), bytes);
  PathRecord back;
  CHECK_OK(DecodePathRecord(bytes, sizeof(bytes), &back));
  CheckSameRecord(SampleRecord(), back);

  struct ibv_path_record ibv;
  ToIbvPathRecord(SampleRecord(), &ibv);
  struct ibv_path_record want = SampleIbvRecord();
  MEMCMP_EQUAL(&want, &ibv, sizeof(ibv));
  PathRecord from;
  FromIbvPathRecord(ibv, &from);
  CheckSameRecord(SampleRecord(), from);
  CHECK_FALSE(DecodePathRecord(bytes, 63, &back).ok());
}

TEST(MadWire, OversizedFieldsAreMasked) {
  PathRecord r;
  r.flow_label = 0xfffffff;  // 28 bits into a 20-bit field
  r.numb_path = 0xff;
  r.sl = 0x1f;
  r.mtu = 0xff;
  uint8_t bytes[kPathRecordSize];
  EncodePathRecord(r, bytes);
  BYTES_EQUAL(0x0f, bytes[44]);  // raw traffic bit stays clear
  BYTES_EQUAL(0x7f, bytes[49]);
  BYTES_EQUAL(0x0f, bytes[53]);
  BYTES_EQUAL(0x3f, bytes[54]);
}

TEST(MadWire, PathRecordGetByLidIsWhatIbacmSends) {
  uint8_t mad[kMadSize];
  memset(mad, 0xee, sizeof(mad));
  BuildPathRecordGetByLid(0x99, 0x0002, 0x0007, 0xffff, mad);
  uint8_t want[kMadSize] = {};
  const uint8_t hdr[24] = {1, 0x03, 2, 0x01, 0,    0,    0, 0, 0, 0, 0, 0,
                           0, 0,    0, 0x99, 0x00, 0x35, 0, 0, 0, 0, 0, 0};
  memcpy(want, hdr, sizeof(hdr));
  // comp mask: DLID | SLID | Reversible | P_Key
  want[48 + 6] = 0x28;
  want[48 + 7] = 0x30;
  want[56 + 40] = 0x00;
  want[56 + 41] = 0x07;
  want[56 + 42] = 0x00;
  want[56 + 43] = 0x02;
  want[56 + 49] = 0x81;  // reversible, numb_path 1
  want[56 + 50] = 0xff;
  want[56 + 51] = 0xff;
  MEMCMP_EQUAL(want, mad, kMadSize);
}

TEST(MadWire, PathRecordGetByGidMask) {
  uint8_t mad[kMadSize];
  BuildPathRecordGetByGid(1, kSgid, kDgid, 0, mad);
  SaHeader sa;
  CHECK_OK(DecodeSaHeader(mad, sizeof(mad), &sa));
  UNSIGNED_LONGLONGS_EQUAL(kPrCompDgid | kPrCompSgid | kPrCompReversible, sa.comp_mask);
  MEMCMP_EQUAL(kDgid, mad + 56 + 8, 16);
  MEMCMP_EQUAL(kSgid, mad + 56 + 24, 16);
  // Full template: every non-zero field sets its bit, numb_path never does.
  UNSIGNED_LONGLONGS_EQUAL(0x3fff7fULL & ~kPrCompRawTraffic & ~kPrCompNumbPath,
                           PathRecordCompMask(SampleRecord()));
}

TEST(MadWire, PathRecordGetAsGivenForcesNothing) {
  PathRecord q;
  q.slid = 2;
  q.dlid = 7;
  uint8_t mad[kMadSize];
  memset(mad, 0xee, sizeof(mad));
  EncodePathRecordGet(0x42, q, kPrCompSlid | kPrCompDlid, mad);
  MadHeader h;
  CHECK_OK(DecodeMadHeader(mad, sizeof(mad), &h));
  LONGS_EQUAL(kClassSubnAdm, h.mgmt_class);
  LONGS_EQUAL(kSaClassVersion, h.class_version);
  LONGS_EQUAL(kMethodGet, h.method);
  LONGS_EQUAL(kAttrPathRecord, h.attr_id);
  UNSIGNED_LONGLONGS_EQUAL(0x42, h.tid);
  SaHeader sa;
  CHECK_OK(DecodeSaHeader(mad, sizeof(mad), &sa));
  UNSIGNED_LONGLONGS_EQUAL(kPrCompSlid | kPrCompDlid, sa.comp_mask);
  UNSIGNED_LONGLONGS_EQUAL(0, sa.sm_key);
  LONGS_EQUAL(0, mad[56 + 49]);       // neither Reversible nor NumbPath forced
  LONGS_EQUAL(0, mad[kMadSize - 1]);  // the whole MAD was cleared first
}

TEST(MadWire, DecodeGoodPathRecordResponse) {
  PathRecord rec = SampleRecord();
  rec.mtu = 4;
  uint8_t mad[kMadSize];
  MakeResponse(rec, 0, mad);
  PathRecord out;
  Status st = DecodePathRecordResponse(mad, sizeof(mad), &out);
  CHECK_OK(st);
  CheckSameRecord(rec, out);
}

TEST(MadWire, DecodeRejectsBadResponses) {
  PathRecord rec = SampleRecord();
  uint8_t mad[kMadSize];
  PathRecord out;

  MakeResponse(rec, 0, mad);
  LONGS_EQUAL(-EBADMSG, DecodePathRecordResponse(mad, 10, &out).code());
  LONGS_EQUAL(-EBADMSG, DecodePathRecordResponse(mad, 100, &out).code());  // no room for a record

  MakeResponse(rec, 0, mad);
  mad[1] = 0x04;
  LONGS_EQUAL(-EBADMSG, DecodePathRecordResponse(mad, sizeof(mad), &out).code());

  MakeResponse(rec, 0, mad);
  mad[3] = kMethodGetTableResp;
  LONGS_EQUAL(-EBADMSG, DecodePathRecordResponse(mad, sizeof(mad), &out).code());

  MakeResponse(rec, 0, mad);
  mad[17] = 0x38;  // MCMemberRecord
  LONGS_EQUAL(-EBADMSG, DecodePathRecordResponse(mad, sizeof(mad), &out).code());

  MakeResponse(rec, 0, mad);
  mad[45] = 2;  // AttributeOffset 2 words: a record cannot be 16 bytes
  LONGS_EQUAL(-EBADMSG, DecodePathRecordResponse(mad, sizeof(mad), &out).code());

  PathRecord bad = rec;
  bad.mtu = 0;
  MakeResponse(bad, 0, mad);
  LONGS_EQUAL(-EBADMSG, DecodePathRecordResponse(mad, sizeof(mad), &out).code());
  bad = rec;
  bad.dlid = 0;
  MakeResponse(bad, 0, mad);
  LONGS_EQUAL(-EBADMSG, DecodePathRecordResponse(mad, sizeof(mad), &out).code());

  MakeResponse(rec, kSaStatusNoRecords, mad);
  Status st = DecodePathRecordResponse(mad, sizeof(mad), &out);
  LONGS_EQUAL(-ENODATA, st.code());
  CHECK_TRUE(st.message().find("ERR_NO_RECORDS") != std::string::npos);
}

TEST(MadWire, StatusHelpers) {
  STRCMP_EQUAL("success", DescribeMadStatus(0).c_str());
  STRCMP_EQUAL("ERR_NO_RECORDS", DescribeMadStatus(0x0300).c_str());
  STRCMP_EQUAL("busy", DescribeMadStatus(0x0001).c_str());
  STRCMP_EQUAL("invalid attribute or modifier value, ERR_REQ_INVALID",
               DescribeMadStatus(0x021c).c_str());
  STRCMP_EQUAL("class status 0x0f", DescribeMadStatus(0x0f00).c_str());
  LONGS_EQUAL(0, MadStatusToErrno(0));
  LONGS_EQUAL(-ENODATA, MadStatusToErrno(kSaStatusNoRecords));
  LONGS_EQUAL(-EBUSY, MadStatusToErrno(kStatusBusy));
  LONGS_EQUAL(-EBUSY, MadStatusToErrno(kSaStatusNoResources));
  LONGS_EQUAL(-EACCES, MadStatusToErrno(kSaStatusReqDenied));
  LONGS_EQUAL(-EINVAL, MadStatusToErrno(kSaStatusInsufficientComponents));
  UNSIGNED_LONGS_EQUAL(kMethodGetResp, ResponseMethodFor(kMethodSet));
  UNSIGNED_LONGS_EQUAL(kMethodGetTableResp, ResponseMethodFor(kMethodGetTable));
  UNSIGNED_LONGS_EQUAL(0, ResponseMethodFor(kMethodGetResp));
}

TEST(MadWire, GidText) { STRCMP_EQUAL("fe80::2:c902:0:1f12", GidToString(kDgid).c_str()); }
