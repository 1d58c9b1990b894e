// acm_wire_test.cc: the server half of the ibacm protocol codec: framing and
// request decoding and validation, checked against the layouts of the real
// <infiniband/acm.h>. Requests are built the way the stock client library
// (libibacm) builds them: a zeroed struct acm_msg, host-order length for
// resolve, htobe16 for the others. Replies: acm_wire_reply_test.cc.
#include "common/acm/acm_wire.h"

#include <CppUTest/TestHarness.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/base/big_endian.h"
#include "test/support/check_ok.h"
#include "test/unit/acm_stock_msg.h"

namespace acm = ssa::acm;
using namespace acm_test;

namespace {

acm::DecodeResult Decode(const std::vector<uint8_t>& bytes, acm::Request* req) {
  return acm::DecodeRequest(bytes.data(), bytes.size(), req);
}

// `m` cut to its header and `entries` endpoint entries, then decoded (the
// test fails if it is refused).
acm::Request DecodeEntries(acm_msg* m, int entries) {
  m->hdr.length = static_cast<uint16_t>(ACM_MSG_HDR_LENGTH + entries * ACM_MSG_EP_LENGTH);
  acm::Request req;
  CHECK_TRUE(Decode(Wire(*m, m->hdr.length), &req).ok());
  return req;
}

void CheckReplyError(const std::vector<uint8_t>& bytes, uint8_t status) {
  acm::Request req;
  acm::DecodeResult r = Decode(bytes, &req);
  CHECK_TRUE(r.action == acm::DecodeAction::kReplyError);
  UNSIGNED_LONGS_EQUAL(status, r.status);
  CHECK_FALSE(r.reason.empty());
}

void CheckClose(const std::vector<uint8_t>& bytes, const char* reason_part) {
  acm::Request req;
  acm::DecodeResult r = Decode(bytes, &req);
  CHECK_TRUE(r.action == acm::DecodeAction::kClose);
  STRCMP_CONTAINS(reason_part, r.reason.c_str());
}

// PeekFrame calls `bytes` invalid, with an error naming `error_part`.
void CheckInvalidFrame(const std::vector<uint8_t>& bytes, const char* error_part) {
  size_t frame_len = 0;
  std::string error;
  CHECK_TRUE(acm::PeekFrame(bytes.data(), bytes.size(), &frame_len, &error) ==
             acm::FrameStatus::kInvalid);
  STRCMP_CONTAINS(error_part, error.c_str());
}

}  // namespace

TEST_GROUP(AcmWireHeader){};

TEST(AcmWireHeader, ResolveLengthIsHostOrderOthersBigEndian) {
  acm::MsgHeader h;
  h.opcode = acm::kOpResolve;
  h.status = 3;
  h.data = {1, 2, 3};
  h.length = 88;
  h.tid = 0x1122334455667788ull;
  uint8_t buf[acm::kHeaderLength];
  h.Encode(buf);
  acm_hdr stock;
  std::memcpy(&stock, buf, sizeof(stock));
  UNSIGNED_LONGS_EQUAL(ACM_VERSION, stock.version);
  UNSIGNED_LONGS_EQUAL(ACM_OP_RESOLVE, stock.opcode);
  UNSIGNED_LONGS_EQUAL(3, stock.status);
  UNSIGNED_LONGS_EQUAL(1, stock.data[0]);
  UNSIGNED_LONGS_EQUAL(2, stock.data[1]);
  UNSIGNED_LONGS_EQUAL(3, stock.data[2]);
  UNSIGNED_LONGS_EQUAL(88, stock.length);
  CHECK_TRUE(stock.tid == 0x1122334455667788ull);

  h.opcode = acm::kOpPerfQuery | acm::kOpAck;
  h.Encode(buf);
  std::memcpy(&stock, buf, sizeof(stock));
  UNSIGNED_LONGS_EQUAL(88, ssa::FromBe16(stock.length));
  acm::MsgHeader back = acm::MsgHeader::Decode(buf);
  UNSIGNED_LONGS_EQUAL(88, back.length);
  CHECK_TRUE(back.is_reply());
  UNSIGNED_LONGS_EQUAL(acm::kOpPerfQuery, back.op());
  CHECK_TRUE(back.tid == h.tid);
}

TEST_GROUP(AcmWireFraming){};

TEST(AcmWireFraming, NeedsSixteenBytesThenTheWholeMessage) {
  std::vector<uint8_t> bytes = Wire(StockResolve("10.0.0.1", "10.0.0.2"), 16 + 2 * 72);
  size_t frame_len = 0;
  std::string error;
  for (size_t n = 0; n < acm::kHeaderLength; ++n)
    CHECK_TRUE(acm::PeekFrame(bytes.data(), n, &frame_len, &error) == acm::FrameStatus::kNeedMore);
  CHECK_TRUE(acm::PeekFrame(bytes.data(), 20, &frame_len, &error) == acm::FrameStatus::kNeedMore);
  UNSIGNED_LONGS_EQUAL(160, frame_len);
  CHECK_TRUE(acm::PeekFrame(bytes.data(), 160, &frame_len, &error) == acm::FrameStatus::kComplete);
  UNSIGNED_LONGS_EQUAL(160, frame_len);
}

TEST(AcmWireFraming, SplitsAStreamOfMixedOpcodes) {
  acm_msg perf = NewStock(ACM_OP_PERF_QUERY);
  perf.hdr.length = ssa::ToBe16(ACM_MSG_HDR_LENGTH);
  acm_msg ep = NewStock(ACM_OP_EP_QUERY);
  ep.hdr.data[0] = 1;
  ep.hdr.length = ssa::ToBe16(ACM_MSG_HDR_LENGTH);
  std::vector<uint8_t> stream = Wire(StockResolve(nullptr, "10.0.0.2"), 88);
  for (uint8_t b : Wire(perf, 16)) stream.push_back(b);
  for (uint8_t b : Wire(ep, 16)) stream.push_back(b);

  std::vector<size_t> frames;
  size_t off = 0;
  size_t frame_len = 0;
  std::string error;
  while (acm::PeekFrame(stream.data() + off, stream.size() - off, &frame_len, &error) ==
         acm::FrameStatus::kComplete) {
    frames.push_back(frame_len);
    acm::Request req;
    CHECK_TRUE(acm::DecodeRequest(stream.data() + off, frame_len, &req).ok());
    off += frame_len;
  }
  UNSIGNED_LONGS_EQUAL(3, frames.size());
  UNSIGNED_LONGS_EQUAL(88, frames[0]);
  UNSIGNED_LONGS_EQUAL(16, frames[1]);
  UNSIGNED_LONGS_EQUAL(16, frames[2]);
  UNSIGNED_LONGS_EQUAL(stream.size(), off);
}

TEST(AcmWireFraming, BadVersionIsInvalid) {
  acm_msg m = StockResolve(nullptr, "10.0.0.2");
  m.hdr.version = 2;
  std::vector<uint8_t> bytes = Wire(m, 88);
  CheckInvalidFrame(bytes, "version 2");
  CheckClose(bytes, "version");
}

TEST(AcmWireFraming, LengthOutsideHeaderToMaxIsInvalid) {
  const uint16_t bad[] = {0, 15, 593, 0xffff};
  for (uint16_t len : bad) {
    acm_msg m = StockResolve(nullptr, "10.0.0.2");
    m.hdr.length = len;
    std::vector<uint8_t> bytes = Wire(m, sizeof(m));
    CheckInvalidFrame(bytes, "outside 16..592");
    CheckClose(bytes, "outside");
  }
  // The same bounds for the big-endian opcodes.
  acm_msg perf = NewStock(ACM_OP_PERF_QUERY);
  perf.hdr.length = ssa::ToBe16(593);
  CheckClose(Wire(perf, 16), "outside 16..592");
}

TEST(AcmWireFraming, WrongByteOrderForTheOpcodeIsCalledOut) {
  acm_msg m = StockResolve(nullptr, "10.0.0.2");
  m.hdr.length = ssa::ToBe16(88);  // a client that swapped the resolve length
  CheckInvalidFrame(Wire(m, 88), "looks big-endian");

  acm_msg perf = NewStock(ACM_OP_PERF_QUERY);
  perf.hdr.length = ACM_MSG_HDR_LENGTH;  // forgot ssa::ToBe16
  CheckInvalidFrame(Wire(perf, 16), "looks like host order");
}

TEST(AcmWireFraming, DecodeRequestWantsExactlyOneMessage) {
  std::vector<uint8_t> bytes = Wire(StockResolve("10.0.0.1", "10.0.0.2"), 160);
  CheckClose(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 10), "less than a header");
  CheckClose(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 100), "header says 160");
  bytes.push_back(0);
  CheckClose(bytes, "header says 160");
}

TEST_GROUP(AcmWireResolve){};

TEST(AcmWireResolve, StockIpRequestWithSource) {
  acm_msg m = StockResolve("192.168.0.1", "192.168.0.2");
  m.hdr.tid = 0xabcdef;
  acm::Request req;
  acm::DecodeResult r = Decode(Wire(m, m.hdr.length), &req);
  CHECK_TRUE(r.ok());
  UNSIGNED_LONGS_EQUAL(acm::kOpResolve, req.hdr.opcode);
  CHECK_TRUE(req.hdr.tid == 0xabcdef);
  const acm::ResolveRequest& rr = req.resolve;
  UNSIGNED_LONGS_EQUAL(2, rr.entries.size());
  CHECK_FALSE(rr.is_path);
  LONGS_EQUAL(0, rr.source_entry);
  LONGS_EQUAL(1, rr.dest_entry);
  STRCMP_EQUAL("ip 192.168.0.1", rr.entries[0].ToString().c_str());
  STRCMP_EQUAL("ip 192.168.0.2", rr.entries[1].ToString().c_str());
  UNSIGNED_LONGS_EQUAL(acm::kEpFlagDest, rr.request_flags());
  CHECK_FALSE(rr.no_delay());
  CHECK_FALSE(rr.query_sa());
}

TEST(AcmWireResolve, StockNameRequestWithoutSourceAndNoDelay) {
  acm_msg m = NewStock(ACM_OP_RESOLVE);
  SetName(&Ep(m, 0), ACM_EP_FLAG_DEST | ACM_FLAGS_NODELAY, "node2");
  acm::Request req = DecodeEntries(&m, 1);
  LONGS_EQUAL(-1, req.resolve.source_entry);
  LONGS_EQUAL(0, req.resolve.dest_entry);
  STRCMP_EQUAL("node2", req.resolve.entries[0].name().c_str());
  CHECK_TRUE(req.resolve.no_delay());
}

TEST(AcmWireResolve, StockIpv6Request) {
  acm_msg m = NewStock(ACM_OP_RESOLVE);
  Ep(m, 0).flags = ACM_EP_FLAG_DEST;
  Ep(m, 0).type = ACM_EP_INFO_ADDRESS_IP6;
  inet_pton(AF_INET6, "fe80::1234", Ep(m, 0).info.addr);
  acm::Request req = DecodeEntries(&m, 1);
  STRCMP_EQUAL("ip6 fe80::1234", req.resolve.entries[0].ToString().c_str());
}

TEST(AcmWireResolve, StockPathRequest) {
  acm_msg m = NewStock(ACM_OP_RESOLVE);
  m.hdr.length = ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH;
  Ep(m, 0).flags = ACM_FLAGS_QUERY_SA;
  Ep(m, 0).type = ACM_EP_INFO_PATH;
  Ep(m, 0).info.path = SamplePath();
  acm::Request req;
  CHECK_TRUE(Decode(Wire(m, m.hdr.length), &req).ok());
  CHECK_TRUE(req.resolve.is_path);
  CHECK_TRUE(req.resolve.query_sa());
  LONGS_EQUAL(-1, req.resolve.dest_entry);
  ibv_path_record path = req.resolve.entries[0].path();
  ibv_path_record expected = SamplePath();
  MEMCMP_EQUAL(&expected, &path, sizeof(path));
}

TEST(AcmWireResolve, PathWithOnlyADgidOrOnlyADlidIsEnough) {
  acm_msg m = NewStock(ACM_OP_RESOLVE);
  m.hdr.length = ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH;
  Ep(m, 0).type = ACM_EP_INFO_PATH;
  Ep(m, 0).info.path.dlid = ssa::ToBe16(7);
  acm::Request req;
  CHECK_TRUE(Decode(Wire(m, m.hdr.length), &req).ok());
  Ep(m, 0).info.path.dlid = 0;
  Ep(m, 0).info.path.dgid.raw[15] = 1;
  CHECK_TRUE(Decode(Wire(m, m.hdr.length), &req).ok());
  // Without QUERY_SA a path request may carry extra entries (upstream's
  // scratch space); they are not validated.
  m.hdr.length = ACM_MSG_HDR_LENGTH + 2 * ACM_MSG_EP_LENGTH;
  Ep(m, 1).flags = ACM_EP_FLAG_SOURCE | ACM_EP_FLAG_DEST;
  Ep(m, 1).type = 0x77;
  CHECK_TRUE(Decode(Wire(m, m.hdr.length), &req).ok());
  CHECK_FALSE(req.resolve.query_sa());
}

TEST(AcmWireResolve, OneEntryMayBeBothSourceAndDestination) {
  acm_msg m = NewStock(ACM_OP_RESOLVE);
  SetIp(&Ep(m, 0), ACM_EP_FLAG_SOURCE | ACM_EP_FLAG_DEST, "10.0.0.1");
  acm::Request req = DecodeEntries(&m, 1);
  LONGS_EQUAL(0, req.resolve.source_entry);
  LONGS_EQUAL(0, req.resolve.dest_entry);
}

TEST(AcmWireResolve, GidAndLidTypesAreAcceptedAsUpstreamDoes) {
  acm::EpAddr src;
  src.flags = acm::kEpFlagSource;
  ibv_gid gid;
  inet_pton(AF_INET6, "fe80::9", gid.raw);
  src.SetGid(gid);
  acm::EpAddr dst;
  dst.flags = acm::kEpFlagDest;
  dst.SetLid(0x12);
  std::vector<uint8_t> bytes;
  CHECK_OK(acm::EncodeResolveRequest(0, {src, dst}, &bytes));
  acm::Request req;
  CHECK_TRUE(Decode(bytes, &req).ok());
  STRCMP_EQUAL("gid fe80::9", req.resolve.entries[0].ToString().c_str());
  STRCMP_EQUAL("lid 0x0012", req.resolve.entries[1].ToString().c_str());
  UNSIGNED_LONGS_EQUAL(0x12, req.resolve.entries[1].lid());
}

TEST(AcmWireResolve, EntriesWithoutFlagsAreIgnored) {
  acm_msg m = StockResolve("10.0.0.1", "10.0.0.2");
  Ep(m, 2).type = 0x55;  // garbage, but neither SOURCE nor DEST
  acm::Request req = DecodeEntries(&m, 3);
  UNSIGNED_LONGS_EQUAL(3, req.resolve.entries.size());
}

TEST(AcmWireResolve, MaxSizeRequestIsAccepted) {
  acm_msg m = StockResolve("10.0.0.1", "10.0.0.2");
  m.hdr.length = sizeof(acm_msg);
  acm::Request req;
  CHECK_TRUE(Decode(Wire(m, sizeof(acm_msg)), &req).ok());
  UNSIGNED_LONGS_EQUAL(acm::kMaxEntries, req.resolve.entries.size());
}

TEST(AcmWireResolve, LengthNotAMultipleOfEntriesIsEinval) {
  acm_msg m = StockResolve("10.0.0.1", "10.0.0.2");
  m.hdr.length = ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH + 1;
  CheckReplyError(Wire(m, m.hdr.length), acm::kStatusEInval);
  m.hdr.length = ACM_MSG_HDR_LENGTH + 2 * ACM_MSG_EP_LENGTH - 1;
  CheckReplyError(Wire(m, m.hdr.length), acm::kStatusEInval);
}

TEST(AcmWireResolve, MultipleSourcesIsEsrcaddr) {
  acm_msg m = StockResolve("10.0.0.1", "10.0.0.2");
  SetIp(&Ep(m, 2), ACM_EP_FLAG_SOURCE, "10.0.0.3");
  m.hdr.length = ACM_MSG_HDR_LENGTH + 3 * ACM_MSG_EP_LENGTH;
  CheckReplyError(Wire(m, m.hdr.length), acm::kStatusESrcAddr);
}

TEST(AcmWireResolve, MultipleDestinationsIsEdestaddr) {
  acm_msg m = StockResolve("10.0.0.1", "10.0.0.2");
  SetIp(&Ep(m, 2), ACM_EP_FLAG_DEST, "10.0.0.3");
  m.hdr.length = ACM_MSG_HDR_LENGTH + 3 * ACM_MSG_EP_LENGTH;
  CheckReplyError(Wire(m, m.hdr.length), acm::kStatusEDestAddr);
}

TEST(AcmWireResolve, NoDestinationIsEdesttype) {
  acm_msg m = NewStock(ACM_OP_RESOLVE);
  SetIp(&Ep(m, 0), ACM_EP_FLAG_SOURCE, "10.0.0.1");
  m.hdr.length = ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH;
  CheckReplyError(Wire(m, m.hdr.length), acm::kStatusEDestType);
  m.hdr.length = ACM_MSG_HDR_LENGTH;  // no entries at all
  CheckReplyError(Wire(m, m.hdr.length), acm::kStatusEDestType);
}

TEST(AcmWireResolve, BadSourceTypeIsEsrctype) {
  // (A PATH type in entry 0 would make this a path request instead.)
  const uint16_t bad[] = {0, 6, 0x0f, 0xffff};
  for (uint16_t type : bad) {
    acm_msg m = StockResolve("10.0.0.1", "10.0.0.2");
    Ep(m, 0).type = type;
    CheckReplyError(Wire(m, m.hdr.length), acm::kStatusESrcType);
  }
}

TEST(AcmWireResolve, BadDestinationTypeIsEdesttype) {
  const uint16_t bad[] = {0, 6, ACM_EP_INFO_PATH, 0xffff};
  for (uint16_t type : bad) {
    acm_msg m = StockResolve("10.0.0.1", "10.0.0.2");
    Ep(m, 1).type = type;  // a PATH here is not entry 0: not a path request
    CheckReplyError(Wire(m, m.hdr.length), acm::kStatusEDestType);
  }
}

TEST(AcmWireResolve, PathWithoutDestinationIsEdestaddr) {
  acm_msg m = NewStock(ACM_OP_RESOLVE);
  m.hdr.length = ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH;
  Ep(m, 0).type = ACM_EP_INFO_PATH;
  Ep(m, 0).info.path = SamplePath();
  Ep(m, 0).info.path.dlid = 0;
  std::memset(Ep(m, 0).info.path.dgid.raw, 0, 16);
  CheckReplyError(Wire(m, m.hdr.length), acm::kStatusEDestAddr);
}

TEST(AcmWireResolve, SaPathQueryWithExtraEntriesIsEinval) {
  acm_msg m = NewStock(ACM_OP_RESOLVE);
  m.hdr.length = ACM_MSG_HDR_LENGTH + 2 * ACM_MSG_EP_LENGTH;
  Ep(m, 0).flags = ACM_FLAGS_QUERY_SA;
  Ep(m, 0).type = ACM_EP_INFO_PATH;
  Ep(m, 0).info.path = SamplePath();
  CheckReplyError(Wire(m, m.hdr.length), acm::kStatusEInval);
}

TEST(AcmWireResolve, UnknownOpcodeAndReplyAsRequestAreEinval) {
  const uint8_t ops[] = {0, 4, 0x0f, 0x11, ACM_OP_RESOLVE | ACM_OP_ACK, ACM_OP_PERF_QUERY | 0x40};
  for (uint8_t op : ops) {
    acm_msg m = NewStock(op);
    // Length in the order PeekFrame expects for this opcode.
    m.hdr.length =
        (op & ACM_OP_MASK) == ACM_OP_RESOLVE ? ACM_MSG_HDR_LENGTH : ssa::ToBe16(ACM_MSG_HDR_LENGTH);
    CheckReplyError(Wire(m, 16), acm::kStatusEInval);
  }
}

TEST_GROUP(AcmWireQueries){};

TEST(AcmWireQueries, StockGlobalPerfQuery) {
  acm_msg m = NewStock(ACM_OP_PERF_QUERY);
  m.hdr.length = ssa::ToBe16(ACM_MSG_HDR_LENGTH);
  acm::Request req;
  CHECK_TRUE(Decode(Wire(m, 16), &req).ok());
  CHECK_TRUE(req.perf.scope == acm::PerfQueryRequest::Scope::kGlobal);
}

TEST(AcmWireQueries, StockPerfQueryByIndex) {
  acm_msg m = NewStock(ACM_OP_PERF_QUERY);
  m.hdr.data[1] = 3;
  m.hdr.length = ssa::ToBe16(ACM_MSG_HDR_LENGTH);
  acm::Request req;
  CHECK_TRUE(Decode(Wire(m, 16), &req).ok());
  CHECK_TRUE(req.perf.scope == acm::PerfQueryRequest::Scope::kEndpointIndex);
  LONGS_EQUAL(3, req.perf.endpoint_index);
}

TEST(AcmWireQueries, StockPerfQueryByAddress) {
  acm_msg m = NewStock(ACM_OP_PERF_QUERY);
  SetIp(&Ep(m, 0), ACM_EP_FLAG_SOURCE, "10.1.2.3");
  m.hdr.length = ssa::ToBe16(ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH);
  acm::Request req;
  CHECK_TRUE(Decode(Wire(m, 88), &req).ok());
  CHECK_TRUE(req.perf.scope == acm::PerfQueryRequest::Scope::kEndpointAddress);
  STRCMP_EQUAL("ip 10.1.2.3", req.perf.address.ToString().c_str());

  // An index wins over the address; an entry without SOURCE means global.
  m.hdr.data[1] = 2;
  CHECK_TRUE(Decode(Wire(m, 88), &req).ok());
  CHECK_TRUE(req.perf.scope == acm::PerfQueryRequest::Scope::kEndpointIndex);
  LONGS_EQUAL(2, req.perf.endpoint_index);
  Ep(m, 0).flags = 0;
  CHECK_TRUE(Decode(Wire(m, 88), &req).ok());
  CHECK_TRUE(req.perf.scope == acm::PerfQueryRequest::Scope::kGlobal);
}

TEST(AcmWireQueries, PerfQueryWithRaggedBodyIsEinval) {
  acm_msg m = NewStock(ACM_OP_PERF_QUERY);
  m.hdr.length = ssa::ToBe16(ACM_MSG_HDR_LENGTH + 8);
  CheckReplyError(Wire(m, 24), acm::kStatusEInval);
}

TEST(AcmWireQueries, StockEndpointQuery) {
  acm_msg m = NewStock(ACM_OP_EP_QUERY);
  m.hdr.data[0] = 2;
  m.hdr.data[1] = 1;
  m.hdr.length = ssa::ToBe16(ACM_MSG_HDR_LENGTH);
  acm::Request req;
  CHECK_TRUE(Decode(Wire(m, 16), &req).ok());
  LONGS_EQUAL(2, req.ep_query.endpoint_index);
  UNSIGNED_LONGS_EQUAL(1, req.ep_query.port_filter);
  m.hdr.data[0] = 0;
  CheckReplyError(Wire(m, 16), acm::kStatusEInval);
}
