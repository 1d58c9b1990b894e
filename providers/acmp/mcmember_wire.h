// mcmember_wire.h: the SA MCMemberRecord attribute (multicast group
// membership) and the SubnAdmSet / SubnAdmDelete MADs that join and leave a
// group, with explicit big-endian encode/decode. The MAD and SA headers
// around it are mad_wire.h's.
//
// MCMemberRecord (IBA vol. 1, 15.2.5.17), byte offsets in the 52-byte record
// (OpenSM sends AttributeOffset 7 words: 56 bytes with padding):
//    0 MGID (16)                 40 P_Key (2)
//   16 PortGID (16)              42 RateSelector:2 | Rate:6
//   32 Q_Key (4)                 43 PacketLifeTimeSelector:2 | PacketLifeTime:6
//   36 MLID (2)                  44 SL:4 | FlowLabel:20 | HopLimit:8 (4 bytes)
//   38 MTUSelector:2 | MTU:6     48 Scope:4 | JoinState:4
//   39 TClass (1)                49 ProxyJoin:1 | reserved:23
// JoinState bits: 0 full member, 1 non member, 2 send-only non member.
// A join is SubnAdmSet(MCMemberRecord) answered by SubnAdmGetResp with the
// group's record (MLID and the group's MTU/rate/SL/...); a leave is
// SubnAdmDelete answered by SubnAdmDeleteResp.
//
// Pure functions on caller-owned buffers: no state, any thread.
#ifndef IBACM_SSA_PROVIDERS_ACMP_MCMEMBER_WIRE_H
#define IBACM_SSA_PROVIDERS_ACMP_MCMEMBER_WIRE_H

#include <cstddef>
#include <cstdint>

#include "common/base/status.h"

namespace ssa {
namespace mad {

constexpr uint16_t kAttrMcMemberRecord = 0x0038;
constexpr size_t kMcMemberRecordSize = 52;

// Component mask bits (IBA 15.2.5.17, table 213).
constexpr uint64_t kMcCompMgid = 1ULL << 0;
constexpr uint64_t kMcCompPortGid = 1ULL << 1;
constexpr uint64_t kMcCompQkey = 1ULL << 2;
constexpr uint64_t kMcCompMlid = 1ULL << 3;
constexpr uint64_t kMcCompMtuSelector = 1ULL << 4;
constexpr uint64_t kMcCompMtu = 1ULL << 5;
constexpr uint64_t kMcCompTclass = 1ULL << 6;
constexpr uint64_t kMcCompPkey = 1ULL << 7;
constexpr uint64_t kMcCompRateSelector = 1ULL << 8;
constexpr uint64_t kMcCompRate = 1ULL << 9;
constexpr uint64_t kMcCompPacketLifeTimeSelector = 1ULL << 10;
constexpr uint64_t kMcCompPacketLifeTime = 1ULL << 11;
constexpr uint64_t kMcCompSl = 1ULL << 12;
constexpr uint64_t kMcCompFlowLabel = 1ULL << 13;
constexpr uint64_t kMcCompHopLimit = 1ULL << 14;
constexpr uint64_t kMcCompScope = 1ULL << 15;
constexpr uint64_t kMcCompJoinState = 1ULL << 16;
constexpr uint64_t kMcCompProxyJoin = 1ULL << 17;

constexpr uint8_t kJoinStateFullMember = 0x1;
constexpr uint16_t kFirstMulticastLid = 0xc000;

// All fields host order; GIDs are the 16 wire bytes. Selectors as in
// PathRecord: 0 greater than, 1 less than, 2 exactly, 3 largest.
struct McMemberRecord {
  uint8_t mgid[16] = {};
  uint8_t port_gid[16] = {};
  uint32_t qkey = 0;
  uint16_t mlid = 0;
  uint8_t mtu_selector = 0;
  uint8_t mtu = 0;  // IBA code: 1=256 .. 5=4096
  uint8_t tclass = 0;
  uint16_t pkey = 0;
  uint8_t rate_selector = 0;
  uint8_t rate = 0;  // IBA code, e.g. 3 = 10 Gb/s
  uint8_t packet_life_time_selector = 0;
  uint8_t packet_life_time = 0;
  uint8_t sl = 0;           // 4 bits
  uint32_t flow_label = 0;  // 20 bits
  uint8_t hop_limit = 0;
  uint8_t scope = 0;       // 4 bits
  uint8_t join_state = 0;  // 4 bits
  bool proxy_join = false;
};

// 52 bytes out/in. Values wider than their field are masked on encode.
void EncodeMcMemberRecord(const McMemberRecord& rec, uint8_t* out);
// Fails if len < 52.
Status DecodeMcMemberRecord(const uint8_t* in, size_t len, McMemberRecord* rec);

// Writes a whole 256-byte SubnAdmSet(MCMemberRecord) (a join) or
// SubnAdmDelete(MCMemberRecord) (a leave) into `mad`: MAD header (class
// 0x03 v2, attribute 0x0038, `tid`), SA header (`comp_mask`, SM_Key 0) and
// the record. The core's SA service overwrites the TID.
void BuildMcMemberSet(uint64_t tid, const McMemberRecord& rec, uint64_t comp_mask, uint8_t* mad);
void BuildMcMemberDelete(uint64_t tid, const McMemberRecord& rec, uint64_t comp_mask, uint8_t* mad);

// Checks that `mad` answers a join (SubnAdmGetResp) or, with `for_delete`,
// a leave (SubnAdmDeleteResp) of MCMemberRecord with Status 0, and decodes
// the record. Errors: -EBADMSG for a short or malformed MAD (wrong class,
// method or attribute, a multicast LID outside 0xc000..0xfffe on a join),
// the MadStatusToErrno() code of an SA error status; the message says which.
Status DecodeMcMemberResponse(const uint8_t* mad, size_t len, bool for_delete, McMemberRecord* rec);

}  // namespace mad
}  // namespace ssa

#endif
