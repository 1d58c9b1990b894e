// mad_wire.cc: big-endian encode/decode of the MAD, SA and PathRecord layouts
// documented in mad_wire.h.
#include "common/mad/mad_wire.h"

#include <arpa/inet.h>
#include <infiniband/sa.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "common/base/big_endian.h"

namespace ssa {
namespace mad {

// The PathRecord layout of mad_wire.h is the layout of rdma-core's struct.
static_assert(sizeof(struct ibv_path_record) == kPathRecordSize, "PathRecord is 64 bytes");
static_assert(offsetof(struct ibv_path_record, service_id) == 0, "ServiceID offset");
static_assert(offsetof(struct ibv_path_record, dgid) == 8, "DGID offset");
static_assert(offsetof(struct ibv_path_record, sgid) == 24, "SGID offset");
static_assert(offsetof(struct ibv_path_record, dlid) == 40, "DLID offset");
static_assert(offsetof(struct ibv_path_record, slid) == 42, "SLID offset");
static_assert(offsetof(struct ibv_path_record, flowlabel_hoplimit) == 44, "FlowLabel offset");
static_assert(offsetof(struct ibv_path_record, tclass) == 48, "TClass offset");
static_assert(offsetof(struct ibv_path_record, reversible_numpath) == 49, "NumbPath offset");
static_assert(offsetof(struct ibv_path_record, pkey) == 50, "P_Key offset");
static_assert(offsetof(struct ibv_path_record, qosclass_sl) == 52, "SL offset");
static_assert(offsetof(struct ibv_path_record, mtu) == 54, "MTU offset");
static_assert(offsetof(struct ibv_path_record, rate) == 55, "Rate offset");
static_assert(offsetof(struct ibv_path_record, packetlifetime) == 56, "PacketLifeTime offset");
static_assert(offsetof(struct ibv_path_record, preference) == 57, "Preference offset");
static_assert(IBV_PATH_RECORD_REVERSIBLE == 0x80, "Reversible is bit 7 of byte 49");

namespace {

bool IsZeroGid(const uint8_t gid[16]) {
  for (int i = 0; i < 16; ++i)
    if (gid[i]) return false;
  return true;
}

Status Malformed(const std::string& what) { return Status::Error(EBADMSG, what); }

}  // namespace

uint8_t ResponseMethodFor(uint8_t method) {
  switch (method) {
    case kMethodGet:
    case kMethodSet: return kMethodGetResp;
    case kMethodGetTable: return kMethodGetTableResp;
    case kMethodGetMulti: return kMethodGetMultiResp;
    case kMethodDelete: return kMethodDeleteResp;
    default: return 0;
  }
}

uint16_t MadStatus(const uint8_t* mad, size_t len) {
  if (len < kMadHeaderSize) return 0xffff;
  return GetBe16(mad + 4);
}

std::string DescribeMadStatus(uint16_t status) {
  if (status == 0) return "success";
  std::string out;
  auto add = [&out](const std::string& s) {
    if (!out.empty()) out += ", ";
    out += s;
  };
  if (status & kStatusBusy) add("busy");
  if (status & kStatusRedirect) add("redirect");
  switch (status & kStatusInvalidFieldMask) {
    case 0: break;
    case kStatusBadVersion: add("bad class version"); break;
    case kStatusMethodNotSupported: add("method not supported"); break;
    case kStatusMethodAttrNotSupported: add("method/attribute not supported"); break;
    case kStatusInvalidAttrValue: add("invalid attribute or modifier value"); break;
    default: add("invalid field code " + std::to_string((status & kStatusInvalidFieldMask) >> 2));
  }
  switch (status & kStatusClassMask) {
    case 0: break;
    case kSaStatusNoResources: add("ERR_NO_RESOURCES"); break;
    case kSaStatusReqInvalid: add("ERR_REQ_INVALID"); break;
    case kSaStatusNoRecords: add("ERR_NO_RECORDS"); break;
    case kSaStatusTooManyRecords: add("ERR_TOO_MANY_RECORDS"); break;
    case kSaStatusInvalidGid: add("ERR_REQ_INVALID_GID"); break;
    case kSaStatusInsufficientComponents: add("ERR_REQ_INSUFFICIENT_COMPONENTS"); break;
    case kSaStatusReqDenied: add("ERR_REQ_DENIED"); break;
    case kSaStatusPriSuggested: add("ERR_STATUS_PRIO_SUGGESTED"); break;
    default: {
      char buf[32];
      snprintf(buf, sizeof(buf), "class status 0x%02x", (status & kStatusClassMask) >> 8);
      add(buf);
    }
  }
  if (out.empty()) {
    char buf[32];
    snprintf(buf, sizeof(buf), "status 0x%04x", status);
    out = buf;
  }
  return out;
}

int MadStatusToErrno(uint16_t status) {
  if (status == 0) return 0;
  if ((status & kStatusClassMask) == kSaStatusNoRecords) return -ENODATA;
  if ((status & kStatusClassMask) == kSaStatusNoResources || (status & kStatusBusy)) return -EBUSY;
  if ((status & kStatusClassMask) == kSaStatusReqDenied) return -EACCES;
  return -EINVAL;
}

void EncodeMadHeader(const MadHeader& h, uint8_t* mad) {
  mad[0] = h.base_version;
  mad[1] = h.mgmt_class;
  mad[2] = h.class_version;
  mad[3] = h.method;
  PutBe16(mad + 4, h.status);
  PutBe16(mad + 6, h.class_specific);
  PutBe64(mad + 8, h.tid);
  PutBe16(mad + 16, h.attr_id);
  PutBe16(mad + 18, h.reserved);
  PutBe32(mad + 20, h.attr_mod);
}

Status DecodeMadHeader(const uint8_t* mad, size_t len, MadHeader* h) {
  if (len < kMadHeaderSize)
    return Malformed("MAD of " + std::to_string(len) + " bytes is shorter than its 24-byte header");
  h->base_version = mad[0];
  h->mgmt_class = mad[1];
  h->class_version = mad[2];
  h->method = mad[3];
  h->status = GetBe16(mad + 4);
  h->class_specific = GetBe16(mad + 6);
  h->tid = GetBe64(mad + 8);
  h->attr_id = GetBe16(mad + 16);
  h->reserved = GetBe16(mad + 18);
  h->attr_mod = GetBe32(mad + 20);
  return Status::Ok();
}

void EncodeSaHeader(const SaHeader& h, uint8_t* mad) {
  PutBe64(mad + 36, h.sm_key);
  PutBe16(mad + 44, h.attr_offset);
  PutBe16(mad + 46, 0);
  PutBe64(mad + 48, h.comp_mask);
}

Status DecodeSaHeader(const uint8_t* mad, size_t len, SaHeader* h) {
  if (len < kSaDataOffset)
    return Malformed("SA MAD of " + std::to_string(len) +
                     " bytes is shorter than its 56-byte headers");
  h->sm_key = GetBe64(mad + 36);
  h->attr_offset = GetBe16(mad + 44);
  h->comp_mask = GetBe64(mad + 48);
  return Status::Ok();
}

void EncodeSaRequest(uint8_t method, uint16_t attr_id, uint64_t tid, uint64_t comp_mask,
                     uint64_t sm_key, uint8_t* mad) {
  memset(mad, 0, kMadSize);
  MadHeader h;
  h.mgmt_class = kClassSubnAdm;
  h.class_version = kSaClassVersion;
  h.method = method;
  h.tid = tid;
  h.attr_id = attr_id;
  EncodeMadHeader(h, mad);
  SaHeader sa;
  sa.sm_key = sm_key;
  sa.comp_mask = comp_mask;
  EncodeSaHeader(sa, mad);
}

uint64_t MadTid(const uint8_t* mad) { return GetBe64(mad + 8); }
void SetMadTid(uint8_t* mad, uint64_t tid) { PutBe64(mad + 8, tid); }

void EncodePathRecord(const PathRecord& r, uint8_t* out) {
  memset(out, 0, kPathRecordSize);
  PutBe64(out + 0, r.service_id);
  memcpy(out + 8, r.dgid, 16);
  memcpy(out + 24, r.sgid, 16);
  PutBe16(out + 40, r.dlid);
  PutBe16(out + 42, r.slid);
  PutBe32(out + 44,
          (r.raw_traffic ? 0x80000000u : 0u) | ((r.flow_label & 0xfffffu) << 8) | r.hop_limit);
  out[48] = r.tclass;
  out[49] = static_cast<uint8_t>((r.reversible ? 0x80 : 0) | (r.numb_path & 0x7f));
  PutBe16(out + 50, r.pkey);
  PutBe16(out + 52, static_cast<uint16_t>(((r.qos_class & 0xfff) << 4) | (r.sl & 0xf)));
  out[54] = static_cast<uint8_t>(((r.mtu_selector & 3) << 6) | (r.mtu & 0x3f));
  out[55] = static_cast<uint8_t>(((r.rate_selector & 3) << 6) | (r.rate & 0x3f));
  out[56] =
      static_cast<uint8_t>(((r.packet_life_time_selector & 3) << 6) | (r.packet_life_time & 0x3f));
  out[57] = r.preference;
}

Status DecodePathRecord(const uint8_t* in, size_t len, PathRecord* r) {
  if (len < kPathRecordSize)
    return Malformed("PathRecord of " + std::to_string(len) + " bytes is shorter than 64");
  r->service_id = GetBe64(in + 0);
  memcpy(r->dgid, in + 8, 16);
  memcpy(r->sgid, in + 24, 16);
  r->dlid = GetBe16(in + 40);
  r->slid = GetBe16(in + 42);
  uint32_t fl = GetBe32(in + 44);
  r->raw_traffic = (fl & 0x80000000u) != 0;
  r->flow_label = (fl >> 8) & 0xfffff;
  r->hop_limit = static_cast<uint8_t>(fl);
  r->tclass = in[48];
  r->reversible = (in[49] & 0x80) != 0;
  r->numb_path = in[49] & 0x7f;
  r->pkey = GetBe16(in + 50);
  uint16_t qs = GetBe16(in + 52);
  r->qos_class = qs >> 4;
  r->sl = qs & 0xf;
  r->mtu_selector = in[54] >> 6;
  r->mtu = in[54] & 0x3f;
  r->rate_selector = in[55] >> 6;
  r->rate = in[55] & 0x3f;
  r->packet_life_time_selector = in[56] >> 6;
  r->packet_life_time = in[56] & 0x3f;
  r->preference = in[57];
  return Status::Ok();
}

Status ValidatePathRecord(const PathRecord& r) {
  if (r.dlid == 0 || r.slid == 0)
    return Malformed("PathRecord with DLID " + std::to_string(r.dlid) + " SLID " +
                     std::to_string(r.slid) + " (an SA never answers LID 0)");
  if (r.mtu < 1 || r.mtu > 5)
    return Malformed("PathRecord with MTU code " + std::to_string(r.mtu) + " (valid: 1..5)");
  return Status::Ok();
}

void ToIbvPathRecord(const PathRecord& rec, struct ibv_path_record* out) {
  uint8_t bytes[kPathRecordSize];
  EncodePathRecord(rec, bytes);
  memcpy(out, bytes, sizeof(bytes));
}

void FromIbvPathRecord(const struct ibv_path_record& in, PathRecord* rec) {
  uint8_t bytes[kPathRecordSize];
  memcpy(bytes, &in, sizeof(bytes));
  DecodePathRecord(bytes, sizeof(bytes), rec);
}

uint64_t PathRecordCompMask(const PathRecord& r) {
  uint64_t mask = 0;
  if (r.service_id) mask |= kPrCompServiceId;
  if (!IsZeroGid(r.dgid)) mask |= kPrCompDgid;
  if (!IsZeroGid(r.sgid)) mask |= kPrCompSgid;
  if (r.dlid) mask |= kPrCompDlid;
  if (r.slid) mask |= kPrCompSlid;
  if (r.flow_label) mask |= kPrCompFlowLabel;
  if (r.hop_limit) mask |= kPrCompHopLimit;
  if (r.tclass) mask |= kPrCompTclass;
  if (r.reversible) mask |= kPrCompReversible;
  if (r.pkey) mask |= kPrCompPkey;
  if (r.qos_class) mask |= kPrCompQosClass;
  if (r.sl) mask |= kPrCompSl;
  if (r.mtu_selector) mask |= kPrCompMtuSelector;
  if (r.mtu) mask |= kPrCompMtu;
  if (r.rate_selector) mask |= kPrCompRateSelector;
  if (r.rate) mask |= kPrCompRate;
  if (r.packet_life_time_selector) mask |= kPrCompPacketLifeTimeSelector;
  if (r.packet_life_time) mask |= kPrCompPacketLifeTime;
  return mask;
}

void BuildPathRecordGet(uint64_t tid, const PathRecord& query, uint64_t extra_comp_mask,
                        uint64_t sm_key, uint8_t* mad) {
  PathRecord rec = query;
  rec.reversible = true;
  rec.numb_path = 1;
  EncodeSaRequest(kMethodGet, kAttrPathRecord, tid, PathRecordCompMask(rec) | extra_comp_mask,
                  sm_key, mad);
  EncodePathRecord(rec, mad + kSaDataOffset);
}

void EncodePathRecordGet(uint64_t tid, const PathRecord& rec, uint64_t comp_mask, uint8_t* mad) {
  EncodeSaRequest(kMethodGet, kAttrPathRecord, tid, comp_mask, 0, mad);
  EncodePathRecord(rec, mad + kSaDataOffset);
}

void BuildPathRecordGetByGid(uint64_t tid, const uint8_t sgid[16], const uint8_t dgid[16],
                             uint16_t pkey, uint8_t* mad) {
  PathRecord q;
  memcpy(q.sgid, sgid, 16);
  memcpy(q.dgid, dgid, 16);
  q.pkey = pkey;
  BuildPathRecordGet(tid, q, 0, 0, mad);
}

void BuildPathRecordGetByLid(uint64_t tid, uint16_t slid, uint16_t dlid, uint16_t pkey,
                             uint8_t* mad) {
  PathRecord q;
  q.slid = slid;
  q.dlid = dlid;
  q.pkey = pkey;
  BuildPathRecordGet(tid, q, 0, 0, mad);
}

Status DecodePathRecordResponse(const uint8_t* mad, size_t len, PathRecord* rec) {
  MadHeader h;
  Status st = DecodeMadHeader(mad, len, &h);
  if (!st.ok()) return st;
  char what[96];
  if (h.mgmt_class != kClassSubnAdm || h.method != kMethodGetResp || h.attr_id != kAttrPathRecord) {
    snprintf(what, sizeof(what),
             "expected SubnAdmGetResp(PathRecord), got class 0x%02x method 0x%02x attribute 0x%04x",
             h.mgmt_class, h.method, h.attr_id);
    return Malformed(what);
  }
  if (h.status != 0)
    return Status::Error(MadStatusToErrno(h.status), "SA answered " + DescribeMadStatus(h.status));
  SaHeader sa;
  st = DecodeSaHeader(mad, len, &sa);
  if (!st.ok()) return st;
  // OpenSM fills AttributeOffset with the record size in 8-byte words.
  if (sa.attr_offset != 0 && sa.attr_offset * 8u < kPathRecordSize) {
    snprintf(what, sizeof(what), "PathRecord response with AttributeOffset %u words (record is 8)",
             sa.attr_offset);
    return Malformed(what);
  }
  if (len < kSaDataOffset + kPathRecordSize)
    return Malformed("PathRecord response of " + std::to_string(len) +
                     " bytes cannot hold a record");
  st = DecodePathRecord(mad + kSaDataOffset, len - kSaDataOffset, rec);
  if (!st.ok()) return st;
  return ValidatePathRecord(*rec);
}

void PutGid(uint64_t prefix, uint64_t guid, uint8_t gid[16]) {
  for (int i = 0; i < 8; ++i) {
    gid[i] = static_cast<uint8_t>(prefix >> (56 - 8 * i));
    gid[8 + i] = static_cast<uint8_t>(guid >> (56 - 8 * i));
  }
}

std::string GidToString(const uint8_t gid[16]) {
  char buf[INET6_ADDRSTRLEN];
  if (!inet_ntop(AF_INET6, gid, buf, sizeof(buf))) return "?";
  return buf;
}

}  // namespace mad
}  // namespace ssa
