// netlink_fuzzer.cc: libFuzzer target for the core's netlink codecs: what
// arrives on NETLINK_RDMA (the kernel's RDMA_NL_LS path-record requests,
// core/kernel_ls/ls_codec.cc) and on NETLINK_ROUTE (address messages,
// core/addr_watch/rtnl_addr_codec.cc), framed by core/netlink/netlink_msg.cc.
// Each input is one datagram. Built with clang by test/fuzz/local.mk and
// run by test/fuzz/run-fuzzers.sh. Seeds: test/fuzz/corpus/netlink/,
// written by gen_netlink_seeds.py.
//
// Every message must be rejected with a reason or decode to a request that
// encodes back to bytes which decode to the same request; the answers built
// for it must read back the way the kernel reads them.
#include <sys/socket.h>

#include <cstdint>

#include <cstring>

#include "core/addr_watch/rtnl_addr_codec.h"
#include "core/kernel_ls/ls_codec.h"
#include "core/netlink/netlink_msg.h"
#include "test/fuzz/fuzz_check.h"

using namespace ssa;
using namespace ssa::kernel_ls;

namespace {

bool Same(const LsRequest& a, const LsRequest& b) {
  const LsResolveRequest &x = a.resolve, &y = b.resolve;
  return a.type == b.type && a.flags == b.flags && a.seq == b.seq && a.op == b.op &&
         x.device == y.device && x.port_num == y.port_num && x.path_use == y.path_use &&
         x.has_service_id == y.has_service_id && x.service_id == y.service_id &&
         x.has_dgid == y.has_dgid && memcmp(x.dgid, y.dgid, 16) == 0 && x.has_sgid == y.has_sgid &&
         memcmp(x.sgid, y.sgid, 16) == 0 && x.has_tclass == y.has_tclass && x.tclass == y.tclass &&
         x.has_pkey == y.has_pkey && x.pkey == y.pkey && x.has_qos_class == y.has_qos_class &&
         x.qos_class == y.qos_class;
}

NlMessage Only(const std::vector<uint8_t>& bytes) {
  NlMessageReader r(bytes.data(), bytes.size());
  NlMessage m;
  FUZZ_CHECK(r.Next(&m));
  NlMessage extra;
  FUZZ_CHECK(!r.Next(&extra) && r.error().empty());
  return m;
}

void CheckLs(const NlMessage& msg) {
  LsRequest req;
  LsDecodeError why = LsDecodeError::kCount;
  Status st = DecodeLsRequest(msg, &req, &why);
  LsDaemonMessage seen;
  DecodeDaemonMessage(msg, &seen);  // any bytes: must not crash
  if (!st.ok()) {
    FUZZ_CHECK(why != LsDecodeError::kNone && why != LsDecodeError::kCount);
    FUZZ_CHECK(!st.message().empty());
    FUZZ_CHECK(req.seq == msg.seq);  // kept for the error answer
    return;
  }
  FUZZ_CHECK(why == LsDecodeError::kNone);
  if (req.is_ip_resolve()) {
    FUZZ_CHECK(req.ip.family == AF_INET || req.ip.family == AF_INET6);
    LsRequest back;
    FUZZ_CHECK(DecodeLsRequest(Only(EncodeResolveRequest(req)), &back, &why).ok());
    FUZZ_CHECK(back.ip.ifindex == req.ip.ifindex && back.ip.family == req.ip.family &&
               memcmp(back.ip.addr, req.ip.addr, 16) == 0);
    uint8_t gid[16] = {0xfe, 0x80};
    LsDaemonMessage answer;
    FUZZ_CHECK(DecodeDaemonMessage(Only(EncodeIpResolveAnswer(req, gid)), &answer).ok());
    FUZZ_CHECK(!answer.error && answer.has_dgid && memcmp(answer.dgid, gid, 16) == 0);
    return;
  }
  FUZZ_CHECK(req.resolve.has_dgid);
  FUZZ_CHECK(req.resolve.device.size() <= kDeviceNameMax);
  // The device name is NUL-padded on the wire: one of 64 bytes reads back
  // cut to 63, so compare what the encoder can carry.
  LsRequest carried = req;
  if (carried.resolve.device.size() == kDeviceNameMax) carried.resolve.device.pop_back();
  std::vector<uint8_t> again = EncodeResolveRequest(carried);
  LsRequest back;
  FUZZ_CHECK(DecodeLsRequest(Only(again), &back, &why).ok());
  FUZZ_CHECK(Same(carried, back));

  ibv_path_record path = PathFromRequest(req.resolve);
  FUZZ_CHECK(memcmp(path.dgid.raw, req.resolve.dgid, 16) == 0);
  LsDaemonMessage answer;
  FUZZ_CHECK(DecodeDaemonMessage(Only(EncodeResolveAnswer(req, &path)), &answer).ok());
  FUZZ_CHECK(!answer.error && !answer.request && answer.seq == req.seq);
  // The GMP record first, then what ls_answer.h's rule adds.
  FUZZ_CHECK(answer.paths.size() == AnswerRecords(req.resolve.path_use, path).count &&
             memcmp(&answer.paths[0], &path, sizeof(path)) == 0);
  FUZZ_CHECK(DecodeDaemonMessage(Only(EncodeResolveAnswer(req, nullptr)), &answer).ok());
  FUZZ_CHECK(answer.error && answer.paths.empty() && answer.seq == req.seq);
}

void CheckRtnl(const NlMessage& msg) {
  AddrEvent ev;
  std::string why;
  switch (DecodeAddrMessage(msg, &ev, &why)) {
    case AddrDecode::kError: FUZZ_CHECK(!why.empty()); return;
    case AddrDecode::kIgnored: return;
    case AddrDecode::kEvent: break;
  }
  FUZZ_CHECK(ev.ifindex > 0);
  FUZZ_CHECK(ev.address.type == SSA_ADDR_IP || ev.address.type == SSA_ADDR_IP6);
  FUZZ_CHECK(!ev.text.empty());
  AddrEvent back;
  FUZZ_CHECK(DecodeAddrMessage(Only(EncodeAddrMessage(ev)), &back, &why) == AddrDecode::kEvent);
  FUZZ_CHECK(back.added == ev.added && back.ifindex == ev.ifindex && back.text == ev.text &&
             memcmp(back.address.data, ev.address.data, 16) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  NlMessageReader reader(data, size);
  NlMessage msg;
  size_t seen = 0;
  while (reader.Next(&msg)) {
    FUZZ_CHECK(msg.len >= kNlHeaderSize && msg.payload_len == msg.len - kNlHeaderSize);
    FUZZ_CHECK(msg.payload + msg.payload_len <= data + size);
    seen += msg.len;
    CheckLs(msg);
    CheckRtnl(msg);
  }
  FUZZ_CHECK(seen <= size);
  return 0;
}
