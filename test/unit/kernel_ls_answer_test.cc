// The records answering the kernel's RESOLVE requests (core/kernel_ls/
// ls_answer.h) on requests built byte by byte as the kernel builds them:
// each answer compared byte for byte with one assembled here from the uapi
// layouts, then read by the rules of the kernel's sa_query.c and rdma_cm
// (kernel_ls_side.h) of kernels up to 6.0 (the first matching record) and
// since 6.1 (up to three, sorted by flag).
#include "core/kernel_ls/ls_answer.h"

#include <linux/netlink.h>
#include <rdma/ib_user_sa.h>
#include <rdma/rdma_netlink.h>

#include <cstring>
#include <vector>

#include "common/base/big_endian.h"
#include "core/kernel_ls/ls_codec.h"
#include "test/support/check_ok.h"
#include "test/unit/kernel_ls_side.h"

// Last: its memory-leak macros redefine new.
#include <CppUTest/TestHarness.h>

using namespace ssa;
using namespace ssa::kernel_ls;
using kernel_side::Kernel;
using kernel_side::KernelRead;
using kernel_side::KernelReadsAnswer;
using kernel_side::LsBuilder;

namespace {

// The flags as <rdma/ib_user_sa.h> defines them, spelled out: GMP 1,
// PRIMARY 2, OUTBOUND 8, INBOUND 16, INBOUND_REVERSE 32.
constexpr uint32_t kGmp = 0x2b;  // PRIMARY | GMP | BIDIRECTIONAL (OUTBOUND | INBOUND_REVERSE)
constexpr uint32_t kOut = 0x0a;  // PRIMARY | OUTBOUND
constexpr uint32_t kIn = 0x12;   // PRIMARY | INBOUND
static_assert(kGmp == (IB_PATH_PRIMARY | IB_PATH_GMP | IB_PATH_BIDIRECTIONAL), "GMP flags");
static_assert(kOut == (IB_PATH_PRIMARY | IB_PATH_OUTBOUND), "outbound flags");
static_assert(kIn == (IB_PATH_PRIMARY | IB_PATH_INBOUND), "inbound flags");

const uint8_t kSgid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0, 0x12, 0x31};
const uint8_t kDgid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0, 0x12, 0x41};
// Behind a router: another subnet prefix.
const uint8_t kRemoteGid[16] = {0xfe, 0xc0, 0,    0,    0, 0, 0,    0x07,
                                0x00, 0x02, 0xc9, 0x03, 0, 0, 0x77, 0x01};

// What the kernel's ib_nl_make_request() sends, with `use` in the header.
LsRequest KernelRequest(uint8_t use, uint32_t seq, const uint8_t* dgid = kDgid) {
  LsBuilder b(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE), NLM_F_REQUEST, seq);
  b.ResolveHeader("mlx5_0", 1, use);
  uint16_t pkey = 0xffff;
  b.Attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_DGID, dgid, 16);
  b.Attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_SGID, kSgid, 16);
  b.Attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_PKEY, &pkey, 2);
  std::vector<uint8_t> bytes = b.Done();
  NlMessageReader r(bytes.data(), bytes.size());
  NlMessage m;
  CHECK_TRUE(r.Next(&m));
  LsRequest req;
  LsDecodeError why;
  CHECK_OK(DecodeLsRequest(m, &req, &why));
  return req;
}

// A provider's record, wire order: LID 0x31 to 0x41 on one subnet,
// reversible, hop limit 0 (as the SA gives it for a local path).
ibv_path_record LocalPath() {
  ibv_path_record p;
  std::memset(&p, 0, sizeof(p));
  std::memcpy(p.sgid.raw, kSgid, 16);
  std::memcpy(p.dgid.raw, kDgid, 16);
  p.slid = ssa::ToBe16(0x31);
  p.dlid = ssa::ToBe16(0x41);
  p.reversible_numpath = 0x81;
  p.pkey = ssa::ToBe16(0xffff);
  p.qosclass_sl = ssa::ToBe16(3);
  p.mtu = 0x84;   // exactly 2048
  p.rate = 0x87;  // exactly 25 Gb/s
  p.packetlifetime = 0x92;
  return p;
}

// Through a router: DLID the router's port on our subnet, flow label
// 0x12345, hop limit 64, traffic class 0x20.
ibv_path_record RoutedPath() {
  ibv_path_record p = LocalPath();
  std::memcpy(p.dgid.raw, kRemoteGid, 16);
  p.dlid = ssa::ToBe16(0x07);
  p.flowlabel_hoplimit = ssa::ToBe32(0x12345u << 8 | 64);
  p.tclass = 0x20;
  return p;
}

// The reverse, field by field: the path from them to us.
ibv_path_record Reversed(const ibv_path_record& p) {
  ibv_path_record r = p;
  std::memcpy(r.sgid.raw, p.dgid.raw, 16);
  std::memcpy(r.dgid.raw, p.sgid.raw, 16);
  r.slid = p.dlid;
  r.dlid = p.slid;
  return r;
}

struct Rec {
  uint32_t flags;
  ibv_path_record path;
};

// The answer assembled by hand: header (the request's type and sequence
// number, no flags), one PATH_RECORD attribute per record.
std::vector<uint8_t> Expected(uint32_t seq, const std::vector<Rec>& recs) {
  LsBuilder b(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE), 0, seq);
  for (const Rec& r : recs) b.PathRecord(r.flags, r.path);
  return b.Done();
}

void CheckBytes(const std::vector<uint8_t>& want, const std::vector<uint8_t>& got) {
  LONGS_EQUAL(want.size(), got.size());
  MEMCMP_EQUAL(want.data(), got.data(), want.size());
  // Within what one answer may carry: the header and three records.
  CHECK(got.size() <=
        NLMSG_HDRLEN + kMaxAnswerRecords * NLA_ALIGN(NLA_HDRLEN + sizeof(ib_path_rec_data)));
}

void CheckSame(const ibv_path_record& want, const ibv_path_record& got) {
  MEMCMP_EQUAL(&want, &got, sizeof(want));
}

// The kernel took exactly `n` records, the first `gmp` as rdma_cm's path.
KernelRead Takes(const std::vector<uint8_t>& bytes, uint32_t seq, uint8_t use, Kernel k, size_t n,
                 const ibv_path_record& gmp) {
  KernelRead r = KernelReadsAnswer(bytes, seq, use, k);
  CHECK_TEXT(r.taken, r.why.c_str());
  LONGS_EQUAL(n, r.records.size());
  LONGS_EQUAL(0, r.gmp);
  CheckSame(gmp, r.Path(r.gmp));
  return r;
}

}  // namespace

TEST_GROUP(KernelLsAnswer){};

// On one subnet every kernel gets the layout it always got: one record,
// flagged GMP | PRIMARY | BIDIRECTIONAL, whatever the path use.
TEST(KernelLsAnswer, ALocalPathIsOneGmpRecordForEveryPathUse) {
  const ibv_path_record path = LocalPath();
  const uint8_t uses[] = {LS_RESOLVE_PATH_USE_ALL, LS_RESOLVE_PATH_USE_UNIDIRECTIONAL,
                          LS_RESOLVE_PATH_USE_GMP};
  for (uint8_t use : uses) {
    LsRequest req = KernelRequest(use, 100 + use);
    std::vector<uint8_t> got = EncodeResolveAnswer(req, &path);
    CheckBytes(Expected(100 + use, {{kGmp, path}}), got);
    for (Kernel k : {Kernel::kUpTo6_0, Kernel::kSince6_1}) {
      KernelRead r = Takes(got, 100 + use, use, k, 1, path);
      LONGS_EQUAL(-1, r.inbound);
      LONGS_EQUAL(-1, r.outbound);
    }
  }
}

// A kernel since 6.1 asks with ALL for rdma_cm's reversible requests: a
// routed path gets the GMP record, then the outbound one and the inbound
// one, reversed; rdma_cm sorts them into its three slots.
TEST(KernelLsAnswer, ARoutedPathGetsOutboundAndInboundRecordsWhenTheKernelTakesThem) {
  const ibv_path_record path = RoutedPath();
  const ibv_path_record back = Reversed(path);
  LsRequest req = KernelRequest(LS_RESOLVE_PATH_USE_ALL, 200, kRemoteGid);
  std::vector<uint8_t> got = EncodeResolveAnswer(req, &path);
  CheckBytes(Expected(200, {{kGmp, path}, {kOut, path}, {kIn, back}}), got);

  KernelRead r = Takes(got, 200, LS_RESOLVE_PATH_USE_ALL, Kernel::kSince6_1, 3, path);
  LONGS_EQUAL(1, r.outbound);
  LONGS_EQUAL(2, r.inbound);
  CheckSame(path, r.Path(r.outbound));
  CheckSame(back, r.Path(r.inbound));
  // The CM sends the inbound record's DLID in the REQ as our port's LID,
  // and puts the outbound one's DLID on its QP: ours, and the router's.
  LONGS_EQUAL(0x31, ssa::FromBe16(r.Path(r.inbound).dlid));
  LONGS_EQUAL(0x07, ssa::FromBe16(r.Path(r.outbound).dlid));
  MEMCMP_EQUAL(kRemoteGid, r.Path(r.inbound).sgid.raw, 16);

  // A kernel up to 6.0 reading the same bytes takes the first: the path.
  Takes(got, 200, LS_RESOLVE_PATH_USE_ALL, Kernel::kUpTo6_0, 1, path);
}

// Kernels up to 6.0 ask with GMP for rdma_cm and take one record: a
// routed path gets the layout they accept, one record.
TEST(KernelLsAnswer, ARoutedPathForAnOldKernelsRdmaCmIsOneRecord) {
  const ibv_path_record path = RoutedPath();
  LsRequest req = KernelRequest(LS_RESOLVE_PATH_USE_GMP, 300, kRemoteGid);
  std::vector<uint8_t> got = EncodeResolveAnswer(req, &path);
  CheckBytes(Expected(300, {{kGmp, path}}), got);
  Takes(got, 300, LS_RESOLVE_PATH_USE_GMP, Kernel::kUpTo6_0, 1, path);
  Takes(got, 300, LS_RESOLVE_PATH_USE_GMP, Kernel::kSince6_1, 1, path);
}

// UNIDIRECTIONAL (IPoIB, SRP: not reversible): the kernel's mask
// PRIMARY | OUTBOUND takes the GMP and the outbound record, never an
// inbound one, so none is sent; its users take the first, the path.
TEST(KernelLsAnswer, ARoutedUnidirectionalPathGetsTheOutboundRecordOnly) {
  ibv_path_record path = RoutedPath();
  path.reversible_numpath = 0x01;
  LsRequest req = KernelRequest(LS_RESOLVE_PATH_USE_UNIDIRECTIONAL, 400, kRemoteGid);
  std::vector<uint8_t> got = EncodeResolveAnswer(req, &path);
  CheckBytes(Expected(400, {{kGmp, path}, {kOut, path}}), got);
  KernelRead r = Takes(got, 400, LS_RESOLVE_PATH_USE_UNIDIRECTIONAL, Kernel::kSince6_1, 2, path);
  LONGS_EQUAL(1, r.outbound);
  LONGS_EQUAL(-1, r.inbound);
  Takes(got, 400, LS_RESOLVE_PATH_USE_UNIDIRECTIONAL, Kernel::kUpTo6_0, 1, path);
}

// Asked for a reversible path (ALL), a record that came back one-way is
// asymmetric: it gets the directional records too. A unidirectional
// request asks no reversibility, so there it stays one record.
TEST(KernelLsAnswer, AOneWayAnswerToAReversibleRequestGetsDirections) {
  ibv_path_record path = LocalPath();
  path.reversible_numpath = 0x01;
  LsRequest all = KernelRequest(LS_RESOLVE_PATH_USE_ALL, 500);
  std::vector<uint8_t> got = EncodeResolveAnswer(all, &path);
  CheckBytes(Expected(500, {{kGmp, path}, {kOut, path}, {kIn, Reversed(path)}}), got);
  Takes(got, 500, LS_RESOLVE_PATH_USE_ALL, Kernel::kSince6_1, 3, path);

  LsRequest uni = KernelRequest(LS_RESOLVE_PATH_USE_UNIDIRECTIONAL, 501);
  CheckBytes(Expected(501, {{kGmp, path}}), EncodeResolveAnswer(uni, &path));
}

TEST(KernelLsAnswer, TheRulesTests) {
  ibv_path_record p = LocalPath();
  p.flowlabel_hoplimit = ssa::ToBe32(0xfffffu << 8 | 1);  // hop limit 1: still local
  CHECK_FALSE(PathIsRouted(p));
  p.flowlabel_hoplimit = ssa::ToBe32(2);
  CHECK_TRUE(PathIsRouted(p));
  CHECK_FALSE(PathNeedsDirections(LS_RESOLVE_PATH_USE_GMP, p));
  CHECK_TRUE(PathNeedsDirections(LS_RESOLVE_PATH_USE_ALL, p));
  ibv_path_record want = Reversed(RoutedPath()), got = ReversePath(RoutedPath());
  CheckSame(want, got);
  LsAnswer a = AnswerRecords(LS_RESOLVE_PATH_USE_ALL, RoutedPath());
  LONGS_EQUAL(kMaxAnswerRecords, a.count);
  CHECK_TRUE(a.directional());
}

// The checker is no rubber stamp: what the kernel refuses, it refuses.
TEST(KernelLsAnswer, TheCheckerRefusesWhatTheKernelRefuses) {
  const ibv_path_record path = LocalPath();
  const uint16_t type = RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE);
  auto refused = [](const std::vector<uint8_t>& bytes, uint8_t use, Kernel k) {
    KernelRead r = KernelReadsAnswer(bytes, 77, use, k);
    CHECK_FALSE(r.taken);
    CHECK_FALSE(r.why.empty());
  };
  LsBuilder err(type, RDMA_NL_LS_F_ERR);
  refused(err.Done(), LS_RESOLVE_PATH_USE_GMP, Kernel::kUpTo6_0);
  LsBuilder req(type, NLM_F_REQUEST);
  req.PathRecord(kGmp, path);
  refused(req.Done(), LS_RESOLVE_PATH_USE_GMP, Kernel::kUpTo6_0);
  LsBuilder other_seq(type, 0, 78);
  other_seq.PathRecord(kGmp, path);
  refused(other_seq.Done(), LS_RESOLVE_PATH_USE_GMP, Kernel::kUpTo6_0);
  uint8_t too_long[sizeof(ib_path_rec_data) + 1] = {};
  LsBuilder policy(type, 0);
  policy.Attr(LS_NLA_TYPE_PATH_RECORD, too_long, sizeof(too_long));
  refused(policy.Done(), LS_RESOLVE_PATH_USE_ALL, Kernel::kSince6_1);
  // An outbound record alone: no PRIMARY|GMP|BIDIRECTIONAL for GMP, and
  // no PRIMARY at all under ALL once PRIMARY is dropped.
  LsBuilder out_only(type, 0);
  out_only.PathRecord(kOut, path);
  std::vector<uint8_t> out_bytes = out_only.Done();
  refused(out_bytes, LS_RESOLVE_PATH_USE_GMP, Kernel::kUpTo6_0);
  LsBuilder not_primary(type, 0);
  not_primary.PathRecord(IB_PATH_OUTBOUND, path);
  refused(not_primary.Done(), LS_RESOLVE_PATH_USE_ALL, Kernel::kSince6_1);
  // ...while the same outbound record passes a UNIDIRECTIONAL mask.
  CHECK_TRUE(
      KernelReadsAnswer(out_bytes, 77, LS_RESOLVE_PATH_USE_UNIDIRECTIONAL, Kernel::kUpTo6_0).taken);
}
