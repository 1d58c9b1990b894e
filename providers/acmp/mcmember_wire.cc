// mcmember_wire.cc: big-endian encode/decode of the MCMemberRecord layout
// and the join/leave MADs documented in mcmember_wire.h.
#include "providers/acmp/mcmember_wire.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/base/big_endian.h"
#include "common/mad/mad_wire.h"

namespace ssa {
namespace mad {

namespace {

void BuildMcMemberMad(uint8_t method, uint64_t tid, const McMemberRecord& rec, uint64_t comp_mask,
                      uint8_t* mad) {
  EncodeSaRequest(method, kAttrMcMemberRecord, tid, comp_mask, 0, mad);
  EncodeMcMemberRecord(rec, mad + kSaDataOffset);
}

}  // namespace

void EncodeMcMemberRecord(const McMemberRecord& rec, uint8_t* out) {
  memset(out, 0, kMcMemberRecordSize);
  memcpy(out, rec.mgid, 16);
  memcpy(out + 16, rec.port_gid, 16);
  PutBe32(out + 32, rec.qkey);
  PutBe16(out + 36, rec.mlid);
  out[38] = static_cast<uint8_t>((rec.mtu_selector & 0x3) << 6 | (rec.mtu & 0x3f));
  out[39] = rec.tclass;
  PutBe16(out + 40, rec.pkey);
  out[42] = static_cast<uint8_t>((rec.rate_selector & 0x3) << 6 | (rec.rate & 0x3f));
  out[43] = static_cast<uint8_t>((rec.packet_life_time_selector & 0x3) << 6 |
                                 (rec.packet_life_time & 0x3f));
  PutBe32(out + 44, static_cast<uint32_t>(rec.sl & 0xf) << 28 | (rec.flow_label & 0xfffff) << 8 |
                        rec.hop_limit);
  out[48] = static_cast<uint8_t>((rec.scope & 0xf) << 4 | (rec.join_state & 0xf));
  out[49] = rec.proxy_join ? 0x80 : 0;
}

Status DecodeMcMemberRecord(const uint8_t* in, size_t len, McMemberRecord* rec) {
  if (len < kMcMemberRecordSize)
    return Status::Error(EBADMSG, "MCMemberRecord of " + std::to_string(len) + " bytes (needs " +
                                      std::to_string(kMcMemberRecordSize) + ")");
  memcpy(rec->mgid, in, 16);
  memcpy(rec->port_gid, in + 16, 16);
  rec->qkey = GetBe32(in + 32);
  rec->mlid = GetBe16(in + 36);
  rec->mtu_selector = in[38] >> 6;
  rec->mtu = in[38] & 0x3f;
  rec->tclass = in[39];
  rec->pkey = GetBe16(in + 40);
  rec->rate_selector = in[42] >> 6;
  rec->rate = in[42] & 0x3f;
  rec->packet_life_time_selector = in[43] >> 6;
  rec->packet_life_time = in[43] & 0x3f;
  uint32_t sfh = GetBe32(in + 44);
  rec->sl = static_cast<uint8_t>(sfh >> 28);
  rec->flow_label = (sfh >> 8) & 0xfffff;
  rec->hop_limit = static_cast<uint8_t>(sfh);
  rec->scope = in[48] >> 4;
  rec->join_state = in[48] & 0xf;
  rec->proxy_join = (in[49] & 0x80) != 0;
  return Status::Ok();
}

void BuildMcMemberSet(uint64_t tid, const McMemberRecord& rec, uint64_t comp_mask, uint8_t* mad) {
  BuildMcMemberMad(kMethodSet, tid, rec, comp_mask, mad);
}

void BuildMcMemberDelete(uint64_t tid, const McMemberRecord& rec, uint64_t comp_mask,
                         uint8_t* mad) {
  BuildMcMemberMad(kMethodDelete, tid, rec, comp_mask, mad);
}

Status DecodeMcMemberResponse(const uint8_t* mad, size_t len, bool for_delete,
                              McMemberRecord* rec) {
  MadHeader h;
  Status st = DecodeMadHeader(mad, len, &h);
  if (!st.ok()) return st;
  uint8_t want = for_delete ? kMethodDeleteResp : kMethodGetResp;
  char what[128];
  if (h.mgmt_class != kClassSubnAdm || h.method != want || h.attr_id != kAttrMcMemberRecord) {
    snprintf(what, sizeof(what),
             "expected %s(MCMemberRecord), got class 0x%02x method 0x%02x attribute 0x%04x",
             for_delete ? "SubnAdmDeleteResp" : "SubnAdmGetResp", h.mgmt_class, h.method,
             h.attr_id);
    return Status::Error(EBADMSG, what);
  }
  if (h.status != 0)
    return Status::Error(MadStatusToErrno(h.status), "SA answered " + DescribeMadStatus(h.status));
  if (len < kSaDataOffset + kMcMemberRecordSize)
    return Status::Error(EBADMSG, "MCMemberRecord response of " + std::to_string(len) +
                                      " bytes cannot hold a record");
  st = DecodeMcMemberRecord(mad + kSaDataOffset, len - kSaDataOffset, rec);
  if (!st.ok()) return st;
  if (!for_delete && (rec->mlid < kFirstMulticastLid || rec->mlid == 0xffff)) {
    snprintf(what, sizeof(what), "join answered with MLID 0x%04x, not a multicast LID", rec->mlid);
    return Status::Error(EBADMSG, what);
  }
  return Status::Ok();
}

}  // namespace mad
}  // namespace ssa
