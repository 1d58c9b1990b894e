// acm_wire_client_test.cc: the client half of the ibacm protocol codec.
// Our requests must be byte-for-byte what the stock client library sends;
// replies built the way upstream's daemon builds them (struct acm_msg) must
// decode; malformed replies must be refused; and our own server replies must
// round-trip through our client decoders. Also the names and text helpers.
#include <CppUTest/TestHarness.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/acm/acm_wire.h"
#include "common/base/big_endian.h"
#include "test/support/check_ok.h"
#include "test/unit/acm_stock_msg.h"

namespace acm = ssa::acm;
using namespace acm_test;

namespace {

// The reply upstream's daemon builds for a successful resolve.
acm_msg StockResolveReply(bool with_source) {
  acm_msg m = NewStock(ACM_OP_RESOLVE | ACM_OP_ACK);
  m.hdr.length = ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH;
  Ep(m, 0).flags = IBV_PATH_FLAG_GMP | IBV_PATH_FLAG_PRIMARY | IBV_PATH_FLAG_BIDIRECTIONAL;
  Ep(m, 0).type = ACM_EP_INFO_PATH;
  Ep(m, 0).info.path = SamplePath();
  if (with_source) {
    m.hdr.length += ACM_MSG_EP_LENGTH;
    Ep(m, 1).flags = ACM_EP_FLAG_SOURCE;
    Ep(m, 1).type = ACM_EP_INFO_ADDRESS_IP;
    inet_pton(AF_INET, "10.0.0.1", Ep(m, 1).info.addr);
  }
  return m;
}

}  // namespace

TEST_GROUP(AcmWireClientRequests){};

TEST(AcmWireClientRequests, ResolveIsByteIdenticalToTheStockClient) {
  // What libibacm's acm_resolve() sends for ib_acm_resolve_ip(src, dst).
  acm_msg m = NewStock(ACM_OP_RESOLVE);
  Ep(m, 0).flags = ACM_EP_FLAG_SOURCE;
  Ep(m, 0).type = ACM_EP_INFO_ADDRESS_IP;
  inet_pton(AF_INET, "10.0.0.1", Ep(m, 0).info.addr);
  Ep(m, 1).flags = ACM_EP_FLAG_DEST | ACM_FLAGS_NODELAY;
  Ep(m, 1).type = ACM_EP_INFO_ADDRESS_IP;
  inet_pton(AF_INET, "10.0.0.2", Ep(m, 1).info.addr);
  m.hdr.length = ACM_MSG_HDR_LENGTH + 2 * ACM_MSG_EP_LENGTH;

  acm::EpAddr src, dst;
  src.flags = acm::kEpFlagSource;
  src.SetIpv4(Ip("10.0.0.1"));
  dst.flags = acm::kEpFlagDest | acm::kFlagNoDelay;
  dst.SetIpv4(Ip("10.0.0.2"));
  std::vector<uint8_t> ours;
  CHECK_OK(acm::EncodeResolveRequest(0, {src, dst}, &ours));
  std::vector<uint8_t> stock = Wire(m, m.hdr.length);
  UNSIGNED_LONGS_EQUAL(stock.size(), ours.size());
  MEMCMP_EQUAL(stock.data(), ours.data(), stock.size());
}

TEST(AcmWireClientRequests, NameAndPathResolvesMatchTheStockClient) {
  acm_msg m = NewStock(ACM_OP_RESOLVE);
  Ep(m, 0).flags = ACM_EP_FLAG_DEST;
  Ep(m, 0).type = ACM_EP_INFO_NAME;
  strncpy(reinterpret_cast<char*>(Ep(m, 0).info.name), "node2", ACM_MAX_ADDRESS);
  m.hdr.length = ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH;
  acm::EpAddr dst;
  dst.flags = acm::kEpFlagDest;
  CHECK_TRUE(dst.SetName("node2"));
  std::vector<uint8_t> ours;
  CHECK_OK(acm::EncodeResolveRequest(0, {dst}, &ours));
  MEMCMP_EQUAL(Wire(m, 88).data(), ours.data(), 88);

  // ib_acm_resolve_path().
  m = NewStock(ACM_OP_RESOLVE);
  m.hdr.length = ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH;
  Ep(m, 0).flags = ACM_FLAGS_QUERY_SA;
  Ep(m, 0).type = ACM_EP_INFO_PATH;
  Ep(m, 0).info.path = SamplePath();
  acm::EpAddr path;
  path.flags = acm::kFlagQuerySa;
  path.SetPath(SamplePath());
  CHECK_OK(acm::EncodeResolveRequest(0, {path}, &ours));
  MEMCMP_EQUAL(Wire(m, 88).data(), ours.data(), 88);
}

TEST(AcmWireClientRequests, ResolveNeedsOneToEightEntries) {
  std::vector<uint8_t> out;
  CHECK_FALSE(acm::EncodeResolveRequest(0, {}, &out).ok());
  acm::EpAddr e;
  e.flags = acm::kEpFlagDest;
  e.SetIpv4(Ip("10.0.0.2"));
  CHECK_FALSE(acm::EncodeResolveRequest(0, std::vector<acm::EpAddr>(9, e), &out).ok());
  CHECK_OK(acm::EncodeResolveRequest(0, std::vector<acm::EpAddr>(8, e), &out));
  UNSIGNED_LONGS_EQUAL(acm::kMaxMsgLength, out.size());
}

TEST(AcmWireClientRequests, QueriesAreByteIdenticalToTheStockClient) {
  // ib_acm_query_perf(3).
  acm_msg m = NewStock(ACM_OP_PERF_QUERY);
  m.hdr.data[1] = 3;
  m.hdr.length = ssa::ToBe16(ACM_MSG_HDR_LENGTH);
  std::vector<uint8_t> ours = acm::EncodePerfQuery(0, 3);
  UNSIGNED_LONGS_EQUAL(16, ours.size());
  MEMCMP_EQUAL(Wire(m, 16).data(), ours.data(), 16);

  // ib_acm_query_perf_ep_addr(ip, ACM_EP_INFO_ADDRESS_IP).
  m = NewStock(ACM_OP_PERF_QUERY);
  Ep(m, 0).flags = ACM_EP_FLAG_SOURCE;
  Ep(m, 0).type = ACM_EP_INFO_ADDRESS_IP;
  inet_pton(AF_INET, "10.0.0.7", Ep(m, 0).info.addr);
  m.hdr.length = ssa::ToBe16(ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH);
  acm::EpAddr addr;
  addr.SetIpv4(Ip("10.0.0.7"));
  ours = acm::EncodePerfQueryByAddress(0, addr);
  UNSIGNED_LONGS_EQUAL(88, ours.size());
  MEMCMP_EQUAL(Wire(m, 88).data(), ours.data(), 88);

  // ib_acm_enum_ep(2, ..., port 1).
  m = NewStock(ACM_OP_EP_QUERY);
  m.hdr.data[0] = 2;
  m.hdr.data[1] = 1;
  m.hdr.length = ssa::ToBe16(ACM_MSG_HDR_LENGTH);
  ours = acm::EncodeEpQuery(0, 2, 1);
  MEMCMP_EQUAL(Wire(m, 16).data(), ours.data(), 16);
}

TEST_GROUP(AcmWireClientReplies){};

TEST(AcmWireClientReplies, StockResolveReplies) {
  for (bool with_source : {false, true}) {
    acm_msg m = StockResolveReply(with_source);
    m.hdr.tid = 77;
    acm::ResolveResponse r;
    ssa::Status st = acm::DecodeResolveResponse(Wire(m, m.hdr.length).data(), m.hdr.length, &r);
    CHECK_OK(st);
    CHECK_TRUE(r.hdr.tid == 77);
    UNSIGNED_LONGS_EQUAL(1, r.paths.size());
    UNSIGNED_LONGS_EQUAL(acm::kResolvedPathFlags, r.paths[0].flags);
    ibv_path_record expected = SamplePath();
    MEMCMP_EQUAL(&expected, &r.paths[0].path, sizeof(expected));
    CHECK_EQUAL(with_source, r.has_source);
    if (with_source) STRCMP_EQUAL("ip 10.0.0.1", r.source.ToString().c_str());
  }
}

TEST(AcmWireClientReplies, ErrorStatusIsAGoodDecode) {
  acm_msg m = NewStock(ACM_OP_RESOLVE | ACM_OP_ACK);
  m.hdr.status = ACM_STATUS_ENODATA;
  m.hdr.length = ACM_MSG_HDR_LENGTH;
  acm::ResolveResponse r;
  CHECK_OK(acm::DecodeResolveResponse(Wire(m, 16).data(), 16, &r));
  UNSIGNED_LONGS_EQUAL(ACM_STATUS_ENODATA, r.hdr.status);
  CHECK_TRUE(r.paths.empty());
}

TEST(AcmWireClientReplies, MalformedResolveRepliesAreRefused) {
  acm::ResolveResponse r;
  acm_msg m = StockResolveReply(true);
  std::vector<uint8_t> good = Wire(m, m.hdr.length);
  CHECK_OK(acm::DecodeResolveResponse(good.data(), good.size(), &r));
  // Short, or not what the header says.
  CHECK_FALSE(acm::DecodeResolveResponse(good.data(), 10, &r).ok());
  CHECK_FALSE(acm::DecodeResolveResponse(good.data(), good.size() - 1, &r).ok());
  // Not a resolve reply.
  m.hdr.opcode = ACM_OP_RESOLVE;
  CHECK_FALSE(acm::DecodeResolveResponse(Wire(m, m.hdr.length).data(), m.hdr.length, &r).ok());
  m = StockResolveReply(true);
  m.hdr.version = 3;
  CHECK_FALSE(acm::DecodeResolveResponse(Wire(m, m.hdr.length).data(), m.hdr.length, &r).ok());
  // An entry that is neither a path nor a source.
  m = StockResolveReply(true);
  Ep(m, 1).flags = ACM_EP_FLAG_DEST;
  ssa::Status st = acm::DecodeResolveResponse(Wire(m, m.hdr.length).data(), m.hdr.length, &r);
  CHECK_FALSE(st.ok());
  STRCMP_CONTAINS("neither a path nor a source", st.message().c_str());
  // Two sources; no path; a ragged length.
  m = StockResolveReply(true);
  Ep(m, 2) = Ep(m, 1);
  m.hdr.length += ACM_MSG_EP_LENGTH;
  CHECK_FALSE(acm::DecodeResolveResponse(Wire(m, m.hdr.length).data(), m.hdr.length, &r).ok());
  m = StockResolveReply(true);
  Ep(m, 0) = Ep(m, 1);
  m.hdr.length = ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH;
  CHECK_FALSE(acm::DecodeResolveResponse(Wire(m, m.hdr.length).data(), m.hdr.length, &r).ok());
  m = StockResolveReply(false);
  m.hdr.length += 4;
  CHECK_FALSE(acm::DecodeResolveResponse(Wire(m, m.hdr.length).data(), m.hdr.length, &r).ok());
}

TEST(AcmWireClientReplies, StockPerfReply) {
  acm_msg m = NewStock(ACM_OP_PERF_QUERY | ACM_OP_ACK);
  m.hdr.data[0] = ACM_MAX_COUNTER;
  for (int i = 0; i < ACM_MAX_COUNTER; ++i) Perf(m)[i] = ssa::ToBe64(1000 + i);
  uint16_t len = ACM_MSG_HDR_LENGTH + ACM_MAX_COUNTER * 8;
  m.hdr.length = ssa::ToBe16(len);
  acm::PerfResponse r;
  CHECK_OK(acm::DecodePerfResponse(Wire(m, len).data(), len, &r));
  UNSIGNED_LONGS_EQUAL(ACM_MAX_COUNTER, r.counters.size());
  for (int i = 0; i < ACM_MAX_COUNTER; ++i) CHECK_TRUE(r.counters[i] == 1000u + i);
  // A count that does not match the length.
  m.hdr.data[0] = ACM_MAX_COUNTER + 1;
  CHECK_FALSE(acm::DecodePerfResponse(Wire(m, len).data(), len, &r).ok());
  // Host-order length: the header disagrees with the byte count.
  m.hdr.data[0] = ACM_MAX_COUNTER;
  m.hdr.length = len;
  CHECK_FALSE(acm::DecodePerfResponse(Wire(m, len).data(), len, &r).ok());
}

TEST(AcmWireClientReplies, StockEndpointReply) {
  acm_msg m = NewStock(ACM_OP_EP_QUERY | ACM_OP_ACK);
  m.ep_data.dev_guid = ssa::ToBe64(0x0002c90300001234ull);
  m.ep_data.port_num = 1;
  m.ep_data.phys_port_cnt = 2;
  m.ep_data.pkey = ssa::ToBe16(0x8001);
  m.ep_data.addr_cnt = ssa::ToBe16(2);
  strcpy(reinterpret_cast<char*>(m.ep_data.prov_name), "ibacmp");
  strcpy(reinterpret_cast<char*>(m.ep_data.addrs[0].name), "node1");
  strcpy(reinterpret_cast<char*>(m.ep_data.addrs[1].name), "10.0.0.1");
  uint16_t len = ACM_MSG_HDR_LENGTH + sizeof(acm_ep_config_data) + 2 * ACM_MAX_ADDRESS;
  m.hdr.length = ssa::ToBe16(len);
  acm::EpQueryResponse r;
  CHECK_OK(acm::DecodeEpQueryResponse(Wire(m, len).data(), len, &r));
  CHECK_TRUE(r.config.dev_guid == 0x0002c90300001234ull);
  UNSIGNED_LONGS_EQUAL(1, r.config.port_num);
  UNSIGNED_LONGS_EQUAL(2, r.config.phys_port_cnt);
  UNSIGNED_LONGS_EQUAL(0x8001, r.config.pkey);
  STRCMP_EQUAL("ibacmp", r.config.prov_name.c_str());
  UNSIGNED_LONGS_EQUAL(2, r.config.addrs.size());
  STRCMP_EQUAL("node1", r.config.addrs[0].c_str());
  STRCMP_EQUAL("10.0.0.1", r.config.addrs[1].c_str());
  // addr_cnt claiming more than was sent; a reply too short for the config.
  m.ep_data.addr_cnt = ssa::ToBe16(3);
  CHECK_FALSE(acm::DecodeEpQueryResponse(Wire(m, len).data(), len, &r).ok());
  m.hdr.length = ssa::ToBe16(40);
  CHECK_FALSE(acm::DecodeEpQueryResponse(Wire(m, 40).data(), 40, &r).ok());
  // An unterminated provider name stops at the field's end.
  m = NewStock(ACM_OP_EP_QUERY | ACM_OP_ACK);
  std::memset(m.ep_data.prov_name, 'x', sizeof(m.ep_data.prov_name));
  len = ACM_MSG_HDR_LENGTH + sizeof(acm_ep_config_data);
  m.hdr.length = ssa::ToBe16(len);
  CHECK_OK(acm::DecodeEpQueryResponse(Wire(m, len).data(), len, &r));
  UNSIGNED_LONGS_EQUAL(64, r.config.prov_name.size());
}

TEST_GROUP(AcmWireRoundTrip){};

TEST(AcmWireRoundTrip, EveryOpcodeThroughOurServerAndClient) {
  // Resolve.
  acm::EpAddr dst;
  dst.flags = acm::kEpFlagDest;
  dst.SetIpv4(Ip("10.0.0.2"));
  std::vector<uint8_t> bytes;
  CHECK_OK(acm::EncodeResolveRequest(0x55, {dst}, &bytes));
  acm::Request req;
  CHECK_TRUE(acm::DecodeRequest(bytes.data(), bytes.size(), &req).ok());
  acm::EpAddr chosen;
  chosen.SetIpv4(Ip("10.0.0.1"));
  bytes = acm::EncodeResolveResponse(req.hdr, SamplePath(), &chosen);
  acm::ResolveResponse rr;
  CHECK_OK(acm::DecodeResolveResponse(bytes.data(), bytes.size(), &rr));
  CHECK_TRUE(rr.hdr.tid == 0x55);
  CHECK_TRUE(rr.has_source);
  CHECK_TRUE(rr.source.is_source());
  STRCMP_EQUAL("ip 10.0.0.1", rr.source.ToString().c_str());
  bytes = acm::EncodeErrorResponse(req.hdr, acm::kStatusETimedOut);
  CHECK_OK(acm::DecodeResolveResponse(bytes.data(), bytes.size(), &rr));
  UNSIGNED_LONGS_EQUAL(acm::kStatusETimedOut, rr.hdr.status);

  // Perf query.
  bytes = acm::EncodePerfQuery(0x66, 0);
  CHECK_TRUE(acm::DecodeRequest(bytes.data(), bytes.size(), &req).ok());
  CHECK_TRUE(req.perf.scope == acm::PerfQueryRequest::Scope::kGlobal);
  bytes = acm::EncodePerfResponse(req.hdr, {9, 8, 7, 6, 5, 4, 3});
  acm::PerfResponse pr;
  CHECK_OK(acm::DecodePerfResponse(bytes.data(), bytes.size(), &pr));
  CHECK_TRUE(pr.counters == std::vector<uint64_t>({9, 8, 7, 6, 5, 4, 3}));
  bytes = acm::EncodeErrorResponse(req.hdr, acm::kStatusESrcAddr);
  CHECK_OK(acm::DecodePerfResponse(bytes.data(), bytes.size(), &pr));
  UNSIGNED_LONGS_EQUAL(acm::kStatusESrcAddr, pr.hdr.status);

  // Endpoint query.
  bytes = acm::EncodeEpQuery(0x77, 1, 0);
  CHECK_TRUE(acm::DecodeRequest(bytes.data(), bytes.size(), &req).ok());
  acm::EpConfig config;
  config.dev_guid = 0x1122334455667788ull;
  config.port_num = 1;
  config.phys_port_cnt = 1;
  config.pkey = 0xffff;
  config.prov_name = "ssa";
  config.addrs = {"a", "fe80::1"};
  bytes = acm::EncodeEpQueryResponse(req.hdr, config);
  acm::EpQueryResponse er;
  CHECK_OK(acm::DecodeEpQueryResponse(bytes.data(), bytes.size(), &er));
  CHECK_TRUE(er.config.dev_guid == config.dev_guid);
  STRCMP_EQUAL("ssa", er.config.prov_name.c_str());
  CHECK_TRUE(er.config.addrs == config.addrs);
}

TEST_GROUP(AcmWireText){};

TEST(AcmWireText, Names) {
  STRCMP_EQUAL("SUCCESS", acm::AcmStatusName(ACM_STATUS_SUCCESS));
  STRCMP_EQUAL("EDESTTYPE", acm::AcmStatusName(ACM_STATUS_EDESTTYPE));
  STRCMP_EQUAL("UNKNOWN", acm::AcmStatusName(4));
  STRCMP_EQUAL("Error Count", acm::CounterName(ACM_CNTR_ERROR));
  STRCMP_EQUAL("Route Cache Count", acm::CounterName(ACM_CNTR_ROUTE_CACHE));
  STRCMP_EQUAL("Unknown", acm::CounterName(ACM_MAX_COUNTER));
  STRCMP_EQUAL("Unknown", acm::CounterName(-1));
  STRCMP_EQUAL("resolve", acm::OpcodeName(ACM_OP_RESOLVE | ACM_OP_ACK));
  STRCMP_EQUAL("unknown", acm::OpcodeName(9));
  STRCMP_EQUAL("path", acm::AddressTypeName(ACM_EP_INFO_PATH));
}

TEST(AcmWireText, PathRecordForLogs) {
  std::string text = acm::FormatPathRecord(SamplePath());
  STRCMP_CONTAINS("dlid 0x0002 slid 0x0001", text.c_str());
  STRCMP_CONTAINS("dgid fe80::2 sgid fe80::1", text.c_str());
  STRCMP_CONTAINS("pkey 0xffff sl 3", text.c_str());
  STRCMP_CONTAINS("mtu 4 (2048)", text.c_str());
  STRCMP_CONTAINS("rate 3 (10 Gb/s)", text.c_str());
  STRCMP_CONTAINS("hop_limit 7 flow_label 0x12345", text.c_str());
  STRCMP_CONTAINS("reversible 1 numpath 1", text.c_str());
}

TEST(AcmWireText, AddressesForLogsNeverCarryControlBytes) {
  acm::EpAddr a;
  CHECK_TRUE(a.SetName(std::string("bad\nname\x01", 10)));
  STRCMP_EQUAL("name bad\\x0aname\\x01", a.ToString().c_str());
  a.type = 0x99;
  STRCMP_EQUAL("type 0x99", a.ToString().c_str());
}

TEST(AcmWireText, NamesUpToSixtyFourBytes) {
  acm::EpAddr a;
  CHECK_TRUE(a.SetName(std::string(64, 'n')));
  UNSIGNED_LONGS_EQUAL(64, a.name().size());
  CHECK_FALSE(a.SetName(std::string(65, 'n')));
  UNSIGNED_LONGS_EQUAL(64, a.name().size());  // unchanged
}
