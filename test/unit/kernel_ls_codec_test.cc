// The RDMA_NL_LS codec (core/kernel_ls/ls_codec.h) on messages built byte
// by byte (kernel_ls_side.h) from the installed <rdma/rdma_netlink.h> and
// <rdma/ib_user_sa.h> layouts, the way the kernel's SA client builds them
// (independently of our encoder), and on malformed ones. Which records an
// answer carries: kernel_ls_answer_test.cc.
#include "core/kernel_ls/ls_codec.h"

#include <linux/netlink.h>
#include <rdma/ib_user_sa.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>

#include <cstring>
#include <vector>

#include "common/base/big_endian.h"
#include "test/support/check_ok.h"
#include "test/unit/kernel_ls_side.h"

// Last: its memory-leak macros redefine new.
#include <CppUTest/TestHarness.h>

using namespace ssa;
using namespace ssa::kernel_ls;

namespace {

const uint8_t kDgid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0, 0x12, 0x41};
const uint8_t kSgid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0, 0x12, 0x31};

using Builder = kernel_side::LsBuilder;

// What the kernel's ib_nl_make_request() sends for an rdma_cm route
// resolution: every attribute, marked mandatory.
std::vector<uint8_t> KernelRequest(uint16_t pkey = 0xffff) {
  Builder b(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE));
  b.ResolveHeader("mlx5_0", 1, LS_RESOLVE_PATH_USE_ALL);
  uint64_t sid = 0x0000000001060000ULL + 4791;  // RDMA_PS_TCP, port 4791
  uint8_t tclass = 0x20;
  uint16_t qos = 3;
  b.Attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_SERVICE_ID, &sid, 8);
  b.Attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_DGID, kDgid, 16);
  b.Attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_SGID, kSgid, 16);
  b.Attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_TCLASS, &tclass, 1);
  b.Attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_PKEY, &pkey, 2);
  b.Attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_QOS_CLASS, &qos, 2);
  return b.Done();
}

NlMessage One(const std::vector<uint8_t>& bytes) {
  NlMessageReader r(bytes.data(), bytes.size());
  NlMessage m;
  CHECK_TRUE(r.Next(&m));
  return m;
}

LsDecodeError DecodeWhy(const std::vector<uint8_t>& bytes, LsRequest* out = nullptr) {
  LsRequest req;
  LsDecodeError why;
  Status st = DecodeLsRequest(One(bytes), &req, &why);
  CHECK_EQUAL(st.ok(), why == LsDecodeError::kNone);
  if (!st.ok()) CHECK(!st.message().empty());
  if (out) *out = req;
  return why;
}

// An answer is one nlmsghdr (the request's op and sequence number 77, no
// request or error flag) and one attribute of `attr_type` holding
// `payload` bytes: what the kernel's handlers check before they read it.
void CheckAnswerFraming(const std::vector<uint8_t>& bytes, int op, int attr_type, size_t payload) {
  LONGS_EQUAL(NLMSG_HDRLEN + NLA_HDRLEN + payload, bytes.size());
  nlmsghdr h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  LONGS_EQUAL(bytes.size(), h.nlmsg_len);
  LONGS_EQUAL(RDMA_NL_GET_TYPE(RDMA_NL_LS, op), h.nlmsg_type);
  LONGS_EQUAL(77, h.nlmsg_seq);
  LONGS_EQUAL(0, h.nlmsg_flags & (NLM_F_REQUEST | RDMA_NL_LS_F_ERR));
  nlattr a;
  std::memcpy(&a, bytes.data() + NLMSG_HDRLEN, sizeof(a));
  LONGS_EQUAL(attr_type, a.nla_type);
  LONGS_EQUAL(NLA_HDRLEN + payload, a.nla_len);
}

}  // namespace

TEST_GROUP(KernelLsCodec){};

TEST(KernelLsCodec, DecodesTheKernelsResolveRequest) {
  LsRequest req;
  LsDecodeError why;
  Status st = DecodeLsRequest(One(KernelRequest(0x8001)), &req, &why);
  CHECK_OK(st);
  LONGS_EQUAL(77, req.seq);
  LONGS_EQUAL(RDMA_NL_LS_OP_RESOLVE, req.op);
  STRCMP_EQUAL("mlx5_0", req.resolve.device.c_str());
  LONGS_EQUAL(1, req.resolve.port_num);
  LONGS_EQUAL(LS_RESOLVE_PATH_USE_ALL, req.resolve.path_use);
  CHECK_TRUE(req.resolve.has_dgid && req.resolve.has_sgid && req.resolve.has_pkey);
  MEMCMP_EQUAL(kDgid, req.resolve.dgid, 16);
  LONGS_EQUAL(0x8001, req.resolve.pkey);

  ibv_path_record p = PathFromRequest(req.resolve);
  MEMCMP_EQUAL(kDgid, p.dgid.raw, 16);
  MEMCMP_EQUAL(kSgid, p.sgid.raw, 16);
  CHECK(ssa::FromBe64(p.service_id) == 0x0000000001060000ULL + 4791);
  LONGS_EQUAL(0x20, p.tclass);
  LONGS_EQUAL(0x8001, ssa::FromBe16(p.pkey));
  LONGS_EQUAL(3, ssa::FromBe16(p.qosclass_sl) >> 4);  // QoS class above the SL
  LONGS_EQUAL(0x81, p.reversible_numpath);            // reversible, one path
  LONGS_EQUAL(0, p.dlid);
}

TEST(KernelLsCodec, UnidirectionalPathIsNotReversible) {
  Builder b(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE));
  b.ResolveHeader("mlx4_0", 2, LS_RESOLVE_PATH_USE_UNIDIRECTIONAL);
  b.Attr(LS_NLA_TYPE_DGID, kDgid, 16);  // no mandatory flag: same meaning
  LsRequest req;
  LsDecodeError why;
  CHECK_OK(DecodeLsRequest(One(b.Done()), &req, &why));
  CHECK_FALSE(req.resolve.has_sgid);
  ibv_path_record p = PathFromRequest(req.resolve);
  LONGS_EQUAL(0x01, p.reversible_numpath);
  LONGS_EQUAL(0, p.pkey);
}

TEST(KernelLsCodec, UnknownOptionalAttributeIsSkippedMandatoryOneRefused) {
  Builder ok(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE));
  ok.ResolveHeader("mlx5_0", 1, LS_RESOLVE_PATH_USE_GMP);
  uint32_t x = 5;
  ok.Attr(40, &x, 4);
  ok.Attr(LS_NLA_TYPE_DGID, kDgid, 16);
  LsRequest req;
  LsDecodeError why;
  CHECK_OK(DecodeLsRequest(One(ok.Done()), &req, &why));
  LONGS_EQUAL(1, req.resolve.ignored_attributes);

  Builder bad(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE));
  bad.ResolveHeader("mlx5_0", 1, LS_RESOLVE_PATH_USE_GMP);
  bad.Attr(LS_NLA_TYPE_DGID, kDgid, 16);
  bad.Attr(RDMA_NLA_F_MANDATORY | 40, &x, 4);
  CHECK(DecodeWhy(bad.Done()) == LsDecodeError::kUnknownMandatory);
}

TEST(KernelLsCodec, MalformedRequestsSayWhy) {
  uint16_t resolve = RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE);
  {  // header cut short
    Builder b(resolve);
    uint8_t half[30] = {};
    b.Put(half, sizeof(half));
    CHECK(DecodeWhy(b.Done()) == LsDecodeError::kShortFamilyHeader);
  }
  {  // no DGID
    Builder b(resolve);
    b.ResolveHeader("mlx5_0", 1, 0);
    b.Attr(LS_NLA_TYPE_SGID, kSgid, 16);
    CHECK(DecodeWhy(b.Done()) == LsDecodeError::kNoDestination);
  }
  {  // DGID of 8 bytes
    Builder b(resolve);
    b.ResolveHeader("mlx5_0", 1, 0);
    b.Attr(LS_NLA_TYPE_DGID, kDgid, 8);
    CHECK(DecodeWhy(b.Done()) == LsDecodeError::kAttributeSize);
  }
  {  // DGID twice
    Builder b(resolve);
    b.ResolveHeader("mlx5_0", 1, 0);
    b.Attr(LS_NLA_TYPE_DGID, kDgid, 16);
    b.Attr(LS_NLA_TYPE_DGID, kDgid, 16);
    CHECK(DecodeWhy(b.Done()) == LsDecodeError::kDuplicateAttribute);
  }
  {  // attribute claiming more than the message holds
    Builder b(resolve);
    b.ResolveHeader("mlx5_0", 1, 0);
    b.Attr(LS_NLA_TYPE_DGID, kDgid, 16, 200);
    CHECK(DecodeWhy(b.Done()) == LsDecodeError::kBadAttribute);
  }
  {  // path use out of range
    Builder b(resolve);
    b.ResolveHeader("mlx5_0", 1, LS_RESOLVE_PATH_USE_MAX);
    b.Attr(LS_NLA_TYPE_DGID, kDgid, 16);
    CHECK(DecodeWhy(b.Done()) == LsDecodeError::kBadPathUse);
  }
  {  // device name filling all 64 bytes: taken, not read beyond
    Builder b(resolve);
    rdma_ls_resolve_header h;
    std::memset(&h, 'x', sizeof(h.device_name));
    h.port_num = 1;
    h.path_use = 0;
    b.Put(&h, sizeof(h));
    b.Attr(LS_NLA_TYPE_DGID, kDgid, 16);
    LsRequest req;
    LsDecodeError why;
    CHECK_OK(DecodeLsRequest(One(b.Done()), &req, &why));
    LONGS_EQUAL(64, req.resolve.device.size());
  }
}

// What the kernel's ib_nl_ip_send_msg() sends for an address behind an IB
// router: the ifindex header and one mandatory address attribute.
std::vector<uint8_t> KernelIpRequest(uint16_t attr_type, const void* addr, size_t len) {
  Builder b(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_IP_RESOLVE));
  rdma_ls_ip_resolve_header h = {};
  h.ifindex = 7;
  b.Put(&h, sizeof(h));
  b.Attr(RDMA_NLA_F_MANDATORY | attr_type, addr, len);
  return b.Done();
}

TEST(KernelLsCodec, DecodesTheKernelsIpResolveRequestsAndAnswersWithTheGid) {
  const uint8_t v4[4] = {10, 0, 0, 9};
  LsRequest req;
  LsDecodeError why;
  CHECK_TRUE(DecodeLsRequest(One(KernelIpRequest(LS_NLA_TYPE_IPV4, v4, 4)), &req, &why).ok());
  CHECK_TRUE(req.is_ip_resolve());
  LONGS_EQUAL(7, req.ip.ifindex);
  LONGS_EQUAL(AF_INET, req.ip.family);
  MEMCMP_EQUAL(v4, req.ip.addr, 4);
  std::vector<uint8_t> again = EncodeResolveRequest(req);
  std::vector<uint8_t> kernel = KernelIpRequest(LS_NLA_TYPE_IPV4, v4, 4);
  LONGS_EQUAL(kernel.size(), again.size());
  MEMCMP_EQUAL(kernel.data(), again.data(), kernel.size());

  const uint8_t v6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9};
  CHECK_TRUE(DecodeLsRequest(One(KernelIpRequest(LS_NLA_TYPE_IPV6, v6, 16)), &req, &why).ok());
  LONGS_EQUAL(AF_INET6, req.ip.family);
  MEMCMP_EQUAL(v6, req.ip.addr, 16);

  // The answer as ib_nl_process_good_ip_rsep() reads it: no family header,
  // one DGID attribute of 16 bytes, same type and sequence number.
  std::vector<uint8_t> bytes = EncodeIpResolveAnswer(req, kDgid);
  CheckAnswerFraming(bytes, RDMA_NL_LS_OP_IP_RESOLVE, LS_NLA_TYPE_DGID, 16);
  MEMCMP_EQUAL(kDgid, bytes.data() + NLMSG_HDRLEN + NLA_HDRLEN, 16);
  std::vector<uint8_t> err = EncodeIpResolveAnswer(req, nullptr);
  LONGS_EQUAL(NLMSG_HDRLEN, err.size());
  nlmsghdr h;
  std::memcpy(&h, err.data(), sizeof(h));
  LONGS_EQUAL(RDMA_NL_LS_F_ERR, h.nlmsg_flags);
}

TEST(KernelLsCodec, MalformedIpResolveRequestsSayWhy) {
  const uint8_t v4[5] = {10, 0, 0, 9, 1};
  CHECK(DecodeWhy(KernelIpRequest(LS_NLA_TYPE_IPV4, v4, 5)) == LsDecodeError::kAttributeSize);
  CHECK(DecodeWhy(KernelIpRequest(LS_NLA_TYPE_IPV6, v4, 4)) == LsDecodeError::kAttributeSize);
  CHECK(DecodeWhy(KernelIpRequest(LS_NLA_TYPE_DGID, kDgid, 16)) ==
        LsDecodeError::kUnknownMandatory);
  Builder two(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_IP_RESOLVE));
  uint32_t ifindex = 3;
  two.Put(&ifindex, 4);
  two.Attr(LS_NLA_TYPE_IPV4, v4, 4);
  two.Attr(LS_NLA_TYPE_IPV4, v4, 4);
  CHECK(DecodeWhy(two.Done()) == LsDecodeError::kDuplicateAttribute);
  Builder none(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_IP_RESOLVE));
  none.Put(&ifindex, 4);
  CHECK(DecodeWhy(none.Done()) == LsDecodeError::kNoAddress);
  Builder empty(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_IP_RESOLVE));
  LsRequest req;
  CHECK(DecodeWhy(empty.Done(), &req) == LsDecodeError::kShortIpHeader);
  LONGS_EQUAL(77, req.seq);  // kept, so the request can be answered
  LONGS_EQUAL(RDMA_NL_LS_OP_IP_RESOLVE, req.op);
}

TEST(KernelLsCodec, OtherOpsClientsAndAnswersAreTold) {
  Builder set(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_SET_TIMEOUT));
  LsRequest req;
  CHECK(DecodeWhy(set.Done(), &req) == LsDecodeError::kUnknownOp);
  LONGS_EQUAL(77, req.seq);  // kept, so the request can be answered
  LONGS_EQUAL(RDMA_NL_LS_OP_SET_TIMEOUT, req.op);

  Builder iwcm(RDMA_NL_GET_TYPE(RDMA_NL_IWCM, 0));
  CHECK(DecodeWhy(iwcm.Done()) == LsDecodeError::kNotLocalService);
  Builder answer(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE), 0);
  CHECK(DecodeWhy(answer.Done()) == LsDecodeError::kNotRequest);
}

TEST(KernelLsCodec, AnswerIsWhatTheKernelParses) {
  LsRequest req;
  LsDecodeError why;
  CHECK_OK(DecodeLsRequest(One(KernelRequest()), &req, &why));
  ibv_path_record path;
  std::memset(&path, 0, sizeof(path));
  std::memcpy(path.dgid.raw, kDgid, 16);
  path.dlid = ssa::ToBe16(0x41);
  path.reversible_numpath = 0x81;  // local and reversible: one record
  std::vector<uint8_t> bytes = EncodeResolveAnswer(req, &path);
  // nlmsghdr, then one nlattr of type PATH_RECORD (no flag bits: the
  // kernel compares the raw type) holding struct ib_path_rec_data.
  CheckAnswerFraming(bytes, RDMA_NL_LS_OP_RESOLVE, LS_NLA_TYPE_PATH_RECORD,
                     sizeof(ib_path_rec_data));
  ib_path_rec_data rec;
  std::memcpy(&rec, bytes.data() + NLMSG_HDRLEN + NLA_HDRLEN, sizeof(rec));
  // Each mask the kernel selects paths with must match.
  const uint32_t masks[] = {IB_PATH_PRIMARY | IB_PATH_OUTBOUND, IB_PATH_PRIMARY,
                            IB_PATH_PRIMARY | IB_PATH_GMP | IB_PATH_BIDIRECTIONAL};
  for (uint32_t mask : masks) LONGS_EQUAL(mask, rec.flags & mask);
  MEMCMP_EQUAL(&path, rec.path_rec, sizeof(path));

  std::vector<uint8_t> err = EncodeResolveAnswer(req, nullptr);
  LONGS_EQUAL(NLMSG_HDRLEN, err.size());
  nlmsghdr h;
  std::memcpy(&h, err.data(), sizeof(h));
  LONGS_EQUAL(RDMA_NL_LS_F_ERR, h.nlmsg_flags);
  LONGS_EQUAL(77, h.nlmsg_seq);
}

TEST(KernelLsCodec, SetTimeoutLayout) {
  std::vector<uint8_t> bytes = EncodeSetTimeout(9, 1500);
  LONGS_EQUAL(NLMSG_HDRLEN + NLA_HDRLEN + 4, bytes.size());
  nlmsghdr h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  LONGS_EQUAL(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_SET_TIMEOUT), h.nlmsg_type);
  LONGS_EQUAL(NLM_F_REQUEST, h.nlmsg_flags);  // the kernel wants a request
  nlattr a;
  std::memcpy(&a, bytes.data() + NLMSG_HDRLEN, sizeof(a));
  LONGS_EQUAL(LS_NLA_TYPE_TIMEOUT, a.nla_type);
  uint32_t ms;
  std::memcpy(&ms, bytes.data() + NLMSG_HDRLEN + NLA_HDRLEN, 4);
  LONGS_EQUAL(1500, ms);
}

TEST(KernelLsCodec, EncoderRoundTripsTheKernelsBytes) {
  std::vector<uint8_t> kernel = KernelRequest(0x7fff);
  LsRequest req;
  LsDecodeError why;
  CHECK_OK(DecodeLsRequest(One(kernel), &req, &why));
  std::vector<uint8_t> again = EncodeResolveRequest(req);
  LONGS_EQUAL(kernel.size(), again.size());
  MEMCMP_EQUAL(kernel.data(), again.data(), kernel.size());
}

TEST(KernelLsCodec, MessageReaderStopsOnBrokenFraming) {
  std::vector<uint8_t> two = KernelRequest();
  std::vector<uint8_t> second = KernelRequest();
  two.insert(two.end(), second.begin(), second.end());
  two.push_back(0xAA);  // a stray byte after two good messages
  NlMessageReader r(two.data(), two.size());
  NlMessage m;
  CHECK_TRUE(r.Next(&m));
  CHECK_TRUE(r.Next(&m));
  CHECK_FALSE(r.Next(&m));
  CHECK_FALSE(r.error().empty());

  std::vector<uint8_t> lying = KernelRequest();
  uint32_t big = 4096;
  std::memcpy(lying.data(), &big, 4);
  NlMessageReader r2(lying.data(), lying.size());
  CHECK_FALSE(r2.Next(&m));
  CHECK_FALSE(r2.error().empty());
}
