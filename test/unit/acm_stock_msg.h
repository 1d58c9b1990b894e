// acm_stock_msg.h: helpers for the acm_wire tests that build and read
// messages through the real struct acm_msg of <infiniband/acm.h>, the way
// the stock client library and upstream's daemon do. Test code only.
#ifndef IBACM_SSA_TEST_UNIT_ACM_STOCK_MSG_H
#define IBACM_SSA_TEST_UNIT_ACM_STOCK_MSG_H

#include <CppUTest/TestHarness.h>
#include <arpa/inet.h>
#include <infiniband/acm.h>

#include <cstring>
#include <vector>

#include "common/base/big_endian.h"

namespace acm_test {

// The stock struct's resolve_data[] and perf_data[] are zero-length arrays
// that g++ -Warray-bounds rightly flags; reach the entries through data[].
inline acm_ep_addr_data& Ep(acm_msg& m, int i) {
  return reinterpret_cast<acm_ep_addr_data*>(m.data)[i];
}
inline uint64_t* Perf(acm_msg& m) { return reinterpret_cast<uint64_t*>(m.data); }

// A zeroed message with version and opcode set, as the stock client starts.
inline acm_msg NewStock(uint8_t opcode) {
  acm_msg m;
  std::memset(&m, 0, sizeof(m));
  m.hdr.version = ACM_VERSION;
  m.hdr.opcode = opcode;
  return m;
}

// The first `len` bytes of a stock message: what its owner sends.
inline std::vector<uint8_t> Wire(const acm_msg& m, size_t len) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(&m);
  return std::vector<uint8_t>(p, p + len);
}

// Our bytes loaded into a stock message, as the stock client's recv does.
inline acm_msg Stock(const std::vector<uint8_t>& bytes) {
  acm_msg m;
  std::memset(&m, 0, sizeof(m));
  CHECK_TRUE(bytes.size() <= sizeof(m));
  std::memcpy(&m, bytes.data(), bytes.size());
  return m;
}

inline in_addr Ip(const char* text) {
  in_addr a;
  CHECK_EQUAL(1, inet_pton(AF_INET, text, &a));
  return a;
}

inline void SetIp(acm_ep_addr_data* d, uint32_t flags, const char* ip) {
  d->flags = flags;
  d->type = ACM_EP_INFO_ADDRESS_IP;
  CHECK_EQUAL(1, inet_pton(AF_INET, ip, d->info.addr));
}

inline void SetName(acm_ep_addr_data* d, uint32_t flags, const char* name) {
  d->flags = flags;
  d->type = ACM_EP_INFO_NAME;
  strncpy(reinterpret_cast<char*>(d->info.name), name, ACM_MAX_ADDRESS);
}

// A resolve request as libibacm's acm_resolve() builds it for IPv4.
inline acm_msg StockResolve(const char* src_ip, const char* dst_ip) {
  acm_msg m = NewStock(ACM_OP_RESOLVE);
  int n = 0;
  if (src_ip) SetIp(&Ep(m, n++), ACM_EP_FLAG_SOURCE, src_ip);
  SetIp(&Ep(m, n++), ACM_EP_FLAG_DEST, dst_ip);
  m.hdr.length = ACM_MSG_HDR_LENGTH + n * ACM_MSG_EP_LENGTH;
  return m;
}

// fe80::1 (LID 1) -> fe80::2 (LID 2), SL 3, 2048 MTU, 10 Gb/s.
inline ibv_path_record SamplePath() {
  ibv_path_record p;
  std::memset(&p, 0, sizeof(p));
  inet_pton(AF_INET6, "fe80::2", p.dgid.raw);
  inet_pton(AF_INET6, "fe80::1", p.sgid.raw);
  p.dlid = ssa::ToBe16(2);
  p.slid = ssa::ToBe16(1);
  p.pkey = ssa::ToBe16(0xffff);
  p.qosclass_sl = ssa::ToBe16(3);
  p.flowlabel_hoplimit = ssa::ToBe32(0x12345u << 8 | 7);
  p.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
  p.mtu = 4;
  p.rate = 3;
  p.packetlifetime = 0x10;
  return p;
}

}  // namespace acm_test

#endif
