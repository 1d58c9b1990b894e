// acm_wire_reply_test.cc: the daemon's replies (resolve, error, perf,
// endpoint query) encoded by our codec and read back through the real struct
// acm_msg of <infiniband/acm.h>, exactly where the stock client looks.
#include <CppUTest/TestHarness.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/acm/acm_wire.h"
#include "common/base/big_endian.h"
#include "test/unit/acm_stock_msg.h"

namespace acm = ssa::acm;
using namespace acm_test;

TEST_GROUP(AcmWireReplies){};

TEST(AcmWireReplies, ResolveReplyReadsBackThroughStockStruct) {
  acm_msg req = StockResolve(nullptr, "10.0.0.2");
  req.hdr.tid = 42;
  req.hdr.data[0] = 9;  // whatever the request carried, replies clear data[]
  acm::MsgHeader hdr = acm::MsgHeader::Decode(reinterpret_cast<const uint8_t*>(&req));
  acm::EpAddr source;
  in_addr ip;
  inet_pton(AF_INET, "10.0.0.1", &ip);
  source.SetIpv4(ip);
  ibv_path_record path = SamplePath();

  acm_msg m = Stock(acm::EncodeResolveResponse(hdr, path, nullptr));
  UNSIGNED_LONGS_EQUAL(ACM_OP_RESOLVE | ACM_OP_ACK, m.hdr.opcode);
  UNSIGNED_LONGS_EQUAL(ACM_STATUS_SUCCESS, m.hdr.status);
  UNSIGNED_LONGS_EQUAL(0, m.hdr.data[0] | m.hdr.data[1] | m.hdr.data[2]);
  UNSIGNED_LONGS_EQUAL(ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH, m.hdr.length);  // host order
  CHECK_TRUE(m.hdr.tid == 42);
  UNSIGNED_LONGS_EQUAL(ACM_EP_INFO_PATH, Ep(m, 0).type);
  UNSIGNED_LONGS_EQUAL(IBV_PATH_FLAG_GMP | IBV_PATH_FLAG_PRIMARY | IBV_PATH_FLAG_BIDIRECTIONAL,
                       Ep(m, 0).flags);
  MEMCMP_EQUAL(&path, &Ep(m, 0).info.path, sizeof(path));

  std::vector<uint8_t> bytes = acm::EncodeResolveResponse(hdr, path, &source);
  UNSIGNED_LONGS_EQUAL(16 + 2 * 72, bytes.size());
  m = Stock(bytes);
  UNSIGNED_LONGS_EQUAL(bytes.size(), m.hdr.length);
  UNSIGNED_LONGS_EQUAL(ACM_EP_FLAG_SOURCE, Ep(m, 1).flags);
  UNSIGNED_LONGS_EQUAL(ACM_EP_INFO_ADDRESS_IP, Ep(m, 1).type);
  MEMCMP_EQUAL(&ip, Ep(m, 1).info.addr, 4);
}

TEST(AcmWireReplies, ErrorReplyIsABareHeaderInTheOpcodesByteOrder) {
  acm_msg req = StockResolve("10.0.0.1", "10.0.0.2");
  acm::MsgHeader hdr = acm::MsgHeader::Decode(reinterpret_cast<const uint8_t*>(&req));
  std::vector<uint8_t> bytes = acm::EncodeErrorResponse(hdr, acm::kStatusEDestType);
  UNSIGNED_LONGS_EQUAL(16, bytes.size());
  acm_msg m = Stock(bytes);
  UNSIGNED_LONGS_EQUAL(ACM_OP_RESOLVE | ACM_OP_ACK, m.hdr.opcode);
  UNSIGNED_LONGS_EQUAL(ACM_STATUS_EDESTTYPE, m.hdr.status);
  UNSIGNED_LONGS_EQUAL(16, m.hdr.length);

  hdr.opcode = acm::kOpEpQuery;
  m = Stock(acm::EncodeErrorResponse(hdr, acm::kStatusEInval));
  UNSIGNED_LONGS_EQUAL(ACM_OP_EP_QUERY | ACM_OP_ACK, m.hdr.opcode);
  UNSIGNED_LONGS_EQUAL(16, ssa::FromBe16(m.hdr.length));
}

TEST(AcmWireReplies, PerfReplyReadsBackThroughStockStruct) {
  acm_msg req = NewStock(ACM_OP_PERF_QUERY);
  req.hdr.data[1] = 5;
  req.hdr.length = ssa::ToBe16(16);
  acm::MsgHeader hdr = acm::MsgHeader::Decode(reinterpret_cast<const uint8_t*>(&req));
  std::vector<uint64_t> counters = {1, 2, 3, 4, 5, 6, 0x0102030405060708ull};
  acm_msg m = Stock(acm::EncodePerfResponse(hdr, counters));
  UNSIGNED_LONGS_EQUAL(ACM_OP_PERF_QUERY | ACM_OP_ACK, m.hdr.opcode);
  UNSIGNED_LONGS_EQUAL(ACM_MAX_COUNTER, m.hdr.data[0]);
  UNSIGNED_LONGS_EQUAL(0, m.hdr.data[1] | m.hdr.data[2]);
  UNSIGNED_LONGS_EQUAL(16 + 8 * ACM_MAX_COUNTER, ssa::FromBe16(m.hdr.length));
  for (int i = 0; i < ACM_MAX_COUNTER; ++i) CHECK_TRUE(ssa::FromBe64(Perf(m)[i]) == counters[i]);

  std::vector<uint64_t> many(100, 7);
  std::vector<uint8_t> bytes = acm::EncodePerfResponse(hdr, many);
  UNSIGNED_LONGS_EQUAL(acm::kMaxMsgLength, bytes.size());
  UNSIGNED_LONGS_EQUAL(acm::kMaxCounters, bytes[3]);
}

TEST(AcmWireReplies, EndpointReplyReadsBackThroughStockStruct) {
  acm_msg req = NewStock(ACM_OP_EP_QUERY);
  req.hdr.data[0] = 1;
  req.hdr.data[1] = 2;
  req.hdr.length = ssa::ToBe16(16);
  acm::MsgHeader hdr = acm::MsgHeader::Decode(reinterpret_cast<const uint8_t*>(&req));
  acm::EpConfig config;
  config.dev_guid = 0x0002c90300a1b2c3ull;
  config.port_num = 1;
  config.phys_port_cnt = 2;
  config.pkey = 0xffff;
  config.prov_name = "acmp";
  config.addrs = {"node1", "192.168.0.1"};
  std::vector<uint8_t> bytes = acm::EncodeEpQueryResponse(hdr, config);
  UNSIGNED_LONGS_EQUAL(16 + sizeof(acm_ep_config_data) + 2 * ACM_MAX_ADDRESS, bytes.size());
  acm_msg m = Stock(bytes);
  UNSIGNED_LONGS_EQUAL(ACM_OP_EP_QUERY | ACM_OP_ACK, m.hdr.opcode);
  UNSIGNED_LONGS_EQUAL(ACM_STATUS_SUCCESS, m.hdr.status);
  UNSIGNED_LONGS_EQUAL(1, m.hdr.data[0]);
  UNSIGNED_LONGS_EQUAL(0, m.hdr.data[1] | m.hdr.data[2]);
  UNSIGNED_LONGS_EQUAL(bytes.size(), ssa::FromBe16(m.hdr.length));
  CHECK_TRUE(ssa::FromBe64(m.ep_data.dev_guid) == config.dev_guid);
  UNSIGNED_LONGS_EQUAL(1, m.ep_data.port_num);
  UNSIGNED_LONGS_EQUAL(2, m.ep_data.phys_port_cnt);
  UNSIGNED_LONGS_EQUAL(0xffff, ssa::FromBe16(m.ep_data.pkey));
  UNSIGNED_LONGS_EQUAL(2, ssa::FromBe16(m.ep_data.addr_cnt));
  STRCMP_EQUAL("acmp", reinterpret_cast<const char*>(m.ep_data.prov_name));
  STRCMP_EQUAL("node1", reinterpret_cast<const char*>(m.ep_data.addrs[0].name));
  STRCMP_EQUAL("192.168.0.1", reinterpret_cast<const char*>(m.ep_data.addrs[1].name));
}

TEST(AcmWireReplies, EndpointReplyFitsTheStockBuffer) {
  acm::MsgHeader hdr;
  hdr.opcode = acm::kOpEpQuery;
  acm::EpConfig config;
  config.prov_name = std::string(100, 'p');
  config.addrs.assign(10, std::string(80, 'a'));
  std::vector<uint8_t> bytes = acm::EncodeEpQueryResponse(hdr, config);
  CHECK_TRUE(bytes.size() <= sizeof(acm_msg));
  acm_msg m = Stock(bytes);
  UNSIGNED_LONGS_EQUAL(acm::kMaxEpQueryAddrs, ssa::FromBe16(m.ep_data.addr_cnt));
  UNSIGNED_LONGS_EQUAL(63, strnlen(reinterpret_cast<const char*>(m.ep_data.prov_name), 64));
  UNSIGNED_LONGS_EQUAL(63, strnlen(reinterpret_cast<const char*>(m.ep_data.addrs[6].name), 64));
}
