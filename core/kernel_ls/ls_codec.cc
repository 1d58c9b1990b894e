// ls_codec.cc: RDMA_NL_LS message codec (see ls_codec.h). Layouts and
// constants come from the installed <rdma/rdma_netlink.h> and
// <rdma/ib_user_sa.h>; the static_asserts tie our sizes to theirs.
#include "core/kernel_ls/ls_codec.h"

#include <linux/netlink.h>
#include <rdma/ib_user_sa.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>

#include <cstring>

#include "common/base/big_endian.h"

namespace ssa {
namespace kernel_ls {

static_assert(kResolveHeaderSize == NlAlign(sizeof(rdma_ls_resolve_header)), "family header");
static_assert(kDeviceNameMax == LS_DEVICE_NAME_MAX, "device name");
static_assert(kPathRecDataSize == sizeof(ib_path_rec_data), "path record data");
static_assert(kIpResolveHeaderSize == NlAlign(sizeof(rdma_ls_ip_resolve_header)), "ip header");
static_assert(sizeof(ibv_path_record) == sizeof(ib_path_rec_data::path_rec), "path record");

namespace {

constexpr uint16_t kTypeMask = static_cast<uint16_t>(RDMA_NLA_TYPE_MASK);

Status Fail(LsDecodeError e, LsDecodeError* why, const std::string& detail) {
  *why = e;
  return Status::Error(EINVAL, std::string(LsDecodeErrorName(e)) + ": " + detail);
}

// One attribute of a RESOLVE request into `r`.
Status TakeAttribute(const NlAttr& a, LsResolveRequest* r, LsDecodeError* why) {
  uint16_t type = a.type & kTypeMask;
  struct Known {
    bool* seen;
    void* value;
    size_t size;
    const char* name;
  };
  Known k{};
  switch (type) {
    case LS_NLA_TYPE_SERVICE_ID: k = {&r->has_service_id, &r->service_id, 8, "SERVICE_ID"}; break;
    case LS_NLA_TYPE_DGID: k = {&r->has_dgid, r->dgid, 16, "DGID"}; break;
    case LS_NLA_TYPE_SGID: k = {&r->has_sgid, r->sgid, 16, "SGID"}; break;
    case LS_NLA_TYPE_TCLASS: k = {&r->has_tclass, &r->tclass, 1, "TCLASS"}; break;
    case LS_NLA_TYPE_PKEY: k = {&r->has_pkey, &r->pkey, 2, "PKEY"}; break;
    case LS_NLA_TYPE_QOS_CLASS: k = {&r->has_qos_class, &r->qos_class, 2, "QOS_CLASS"}; break;
    default:
      // The kernel marks what it cannot do without: an unknown mandatory
      // attribute means we would answer a question we did not understand.
      if (a.type & RDMA_NLA_F_MANDATORY)
        return Fail(LsDecodeError::kUnknownMandatory, why,
                    "attribute type " + std::to_string(type));
      ++r->ignored_attributes;
      return Status::Ok();
  }
  if (a.len != k.size)
    return Fail(LsDecodeError::kAttributeSize, why,
                std::string(k.name) + " has " + std::to_string(a.len) + " bytes, not " +
                    std::to_string(k.size));
  if (*k.seen) return Fail(LsDecodeError::kDuplicateAttribute, why, k.name);
  *k.seen = true;
  std::memcpy(k.value, a.data, k.size);  // host order or raw bytes, as sent
  return Status::Ok();
}

// One attribute of an IP_RESOLVE request into `r`.
Status TakeIpAttribute(const NlAttr& a, LsIpResolveRequest* r, LsDecodeError* why) {
  uint16_t type = a.type & kTypeMask;
  size_t size = type == LS_NLA_TYPE_IPV4 ? 4 : type == LS_NLA_TYPE_IPV6 ? 16 : 0;
  const char* name = type == LS_NLA_TYPE_IPV4 ? "IPV4" : "IPV6";
  if (!size) {
    if (a.type & RDMA_NLA_F_MANDATORY)
      return Fail(LsDecodeError::kUnknownMandatory, why, "attribute type " + std::to_string(type));
    ++r->ignored_attributes;
    return Status::Ok();
  }
  if (a.len != size)
    return Fail(LsDecodeError::kAttributeSize, why,
                std::string(name) + " has " + std::to_string(a.len) + " bytes, not " +
                    std::to_string(size));
  // One address per request: a second (of either family) is a question we
  // would answer only half of.
  if (r->family) return Fail(LsDecodeError::kDuplicateAttribute, why, name);
  r->family = size == 4 ? AF_INET : AF_INET6;
  std::memcpy(r->addr, a.data, size);
  return Status::Ok();
}

Status DecodeIpResolve(const NlMessage& msg, LsIpResolveRequest* r, LsDecodeError* why) {
  if (msg.payload_len < kIpResolveHeaderSize)
    return Fail(LsDecodeError::kShortIpHeader, why,
                std::to_string(msg.payload_len) + " bytes of payload");
  std::memcpy(&r->ifindex, msg.payload + offsetof(rdma_ls_ip_resolve_header, ifindex), 4);
  NlAttrReader attrs(msg.payload + kIpResolveHeaderSize, msg.payload_len - kIpResolveHeaderSize);
  NlAttr a;
  while (attrs.Next(&a)) {
    Status st = TakeIpAttribute(a, r, why);
    if (!st.ok()) return st;
  }
  if (!attrs.error().empty()) return Fail(LsDecodeError::kBadAttribute, why, attrs.error());
  if (!r->family) return Fail(LsDecodeError::kNoAddress, why, "IPV4 or IPV6 missing");
  return Status::Ok();
}

}  // namespace

bool LsRequest::is_ip_resolve() const { return op == RDMA_NL_LS_OP_IP_RESOLVE; }

const char* LsDecodeErrorName(LsDecodeError e) {
  switch (e) {
    case LsDecodeError::kNone: return "ok";
    case LsDecodeError::kNotLocalService: return "not a local-service message";
    case LsDecodeError::kNotRequest: return "not a request";
    case LsDecodeError::kUnknownOp: return "unsupported operation";
    case LsDecodeError::kShortFamilyHeader: return "short resolve header";
    case LsDecodeError::kBadPathUse: return "bad path use";
    case LsDecodeError::kBadAttribute: return "malformed attribute";
    case LsDecodeError::kAttributeSize: return "attribute size";
    case LsDecodeError::kDuplicateAttribute: return "duplicate attribute";
    case LsDecodeError::kUnknownMandatory: return "unknown mandatory attribute";
    case LsDecodeError::kNoDestination: return "no destination GID";
    case LsDecodeError::kShortIpHeader: return "short ip-resolve header";
    case LsDecodeError::kNoAddress: return "no IP address";
    case LsDecodeError::kCount: break;
  }
  return "unknown error";
}

Status DecodeLsRequest(const NlMessage& msg, LsRequest* out, LsDecodeError* why) {
  *out = LsRequest();
  *why = LsDecodeError::kNone;
  out->type = msg.type;
  out->flags = msg.flags;
  out->seq = msg.seq;
  out->op = static_cast<uint8_t>(RDMA_NL_GET_OP(msg.type));
  if (RDMA_NL_GET_CLIENT(msg.type) != RDMA_NL_LS)
    return Fail(LsDecodeError::kNotLocalService, why,
                "client " + std::to_string(RDMA_NL_GET_CLIENT(msg.type)));
  if (!(msg.flags & NLM_F_REQUEST))
    return Fail(LsDecodeError::kNotRequest, why, "no NLM_F_REQUEST");
  if (out->is_ip_resolve()) return DecodeIpResolve(msg, &out->ip, why);
  if (RDMA_NL_GET_OP(msg.type) != RDMA_NL_LS_OP_RESOLVE)
    return Fail(LsDecodeError::kUnknownOp, why, "op " + std::to_string(RDMA_NL_GET_OP(msg.type)));
  if (msg.payload_len < kResolveHeaderSize)
    return Fail(LsDecodeError::kShortFamilyHeader, why,
                std::to_string(msg.payload_len) + " bytes of payload");
  LsResolveRequest& r = out->resolve;
  const char* name = reinterpret_cast<const char*>(msg.payload);
  r.device.assign(name, strnlen(name, kDeviceNameMax));
  r.port_num = msg.payload[offsetof(rdma_ls_resolve_header, port_num)];
  r.path_use = msg.payload[offsetof(rdma_ls_resolve_header, path_use)];
  if (r.path_use >= LS_RESOLVE_PATH_USE_MAX)
    return Fail(LsDecodeError::kBadPathUse, why, std::to_string(r.path_use));
  NlAttrReader attrs(msg.payload + kResolveHeaderSize, msg.payload_len - kResolveHeaderSize);
  NlAttr a;
  while (attrs.Next(&a)) {
    Status st = TakeAttribute(a, &r, why);
    if (!st.ok()) return st;
  }
  if (!attrs.error().empty()) return Fail(LsDecodeError::kBadAttribute, why, attrs.error());
  if (!r.has_dgid) return Fail(LsDecodeError::kNoDestination, why, "DGID missing");
  return Status::Ok();
}

ibv_path_record PathFromRequest(const LsResolveRequest& r) {
  ibv_path_record p;
  std::memset(&p, 0, sizeof(p));
  if (r.has_service_id) p.service_id = ToBe64(r.service_id);
  if (r.has_dgid) std::memcpy(p.dgid.raw, r.dgid, 16);
  if (r.has_sgid) std::memcpy(p.sgid.raw, r.sgid, 16);
  if (r.has_tclass) p.tclass = r.tclass;
  if (r.has_pkey) p.pkey = ToBe16(r.pkey);
  // QoSClass is the upper 12 bits of the 16-bit QoSClass/SL field.
  if (r.has_qos_class) p.qosclass_sl = ToBe16(static_cast<uint16_t>(r.qos_class << 4));
  bool reversible = r.path_use != LS_RESOLVE_PATH_USE_UNIDIRECTIONAL;
  p.reversible_numpath = static_cast<uint8_t>((reversible ? 0x80 : 0) | 1);
  return p;
}

std::vector<uint8_t> EncodeResolveRequest(const LsRequest& req) {
  NlMessageWriter w(req.type, req.flags, req.seq, 0);
  const uint16_t m = RDMA_NLA_F_MANDATORY;
  if (req.is_ip_resolve()) {
    w.Append(&req.ip.ifindex, sizeof(req.ip.ifindex));
    if (req.ip.family == AF_INET) w.AppendAttr(m | LS_NLA_TYPE_IPV4, req.ip.addr, 4);
    if (req.ip.family == AF_INET6) w.AppendAttr(m | LS_NLA_TYPE_IPV6, req.ip.addr, 16);
    return w.Finish();
  }
  const LsResolveRequest& r = req.resolve;
  uint8_t header[kResolveHeaderSize] = {};
  std::memcpy(header, r.device.data(),
              r.device.size() < kDeviceNameMax ? r.device.size() : kDeviceNameMax - 1);
  header[offsetof(rdma_ls_resolve_header, port_num)] = r.port_num;
  header[offsetof(rdma_ls_resolve_header, path_use)] = r.path_use;
  w.Append(header, sizeof(header));
  if (r.has_service_id) w.AppendAttr(m | LS_NLA_TYPE_SERVICE_ID, &r.service_id, 8);
  if (r.has_dgid) w.AppendAttr(m | LS_NLA_TYPE_DGID, r.dgid, 16);
  if (r.has_sgid) w.AppendAttr(m | LS_NLA_TYPE_SGID, r.sgid, 16);
  if (r.has_tclass) w.AppendAttr(m | LS_NLA_TYPE_TCLASS, &r.tclass, 1);
  if (r.has_pkey) w.AppendAttr(m | LS_NLA_TYPE_PKEY, &r.pkey, 2);
  if (r.has_qos_class) w.AppendAttr(m | LS_NLA_TYPE_QOS_CLASS, &r.qos_class, 2);
  return w.Finish();
}

std::vector<uint8_t> EncodeResolveAnswer(const LsRequest& req, const ibv_path_record* path) {
  // No NLM_F_REQUEST: the kernel refuses an answer that carries it.
  NlMessageWriter w(req.type, path ? 0 : RDMA_NL_LS_F_ERR, req.seq, 0);
  if (!path) return w.Finish();
  LsAnswer answer = AnswerRecords(req.resolve.path_use, *path);
  for (size_t i = 0; i < answer.count; ++i) {
    ib_path_rec_data data;
    std::memset(&data, 0, sizeof(data));
    data.flags = answer.records[i].flags;
    std::memcpy(data.path_rec, &answer.records[i].path, sizeof(answer.records[i].path));
    // The kernel compares the raw type: no flag bits on answers.
    w.AppendAttr(LS_NLA_TYPE_PATH_RECORD, &data, sizeof(data));
  }
  return w.Finish();
}

std::vector<uint8_t> EncodeIpResolveAnswer(const LsRequest& req, const uint8_t* gid) {
  NlMessageWriter w(req.type, gid ? 0 : RDMA_NL_LS_F_ERR, req.seq, 0);
  if (gid) w.AppendAttr(LS_NLA_TYPE_DGID, gid, 16);
  return w.Finish();
}

std::vector<uint8_t> EncodeSetTimeout(uint32_t seq, uint32_t timeout_ms) {
  NlMessageWriter w(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_SET_TIMEOUT), NLM_F_REQUEST, seq, 0);
  w.AppendAttr(LS_NLA_TYPE_TIMEOUT, &timeout_ms, sizeof(timeout_ms));
  return w.Finish();
}

Status DecodeDaemonMessage(const NlMessage& msg, LsDaemonMessage* out) {
  *out = LsDaemonMessage();
  if (RDMA_NL_GET_CLIENT(msg.type) != RDMA_NL_LS)
    return Status::Error(EINVAL, "not a local-service message");
  out->op = static_cast<uint8_t>(RDMA_NL_GET_OP(msg.type));
  out->seq = msg.seq;
  out->error = (msg.flags & RDMA_NL_LS_F_ERR) != 0;
  out->request = (msg.flags & NLM_F_REQUEST) != 0;
  NlAttrReader attrs(msg.payload, msg.payload_len);
  NlAttr a;
  while (attrs.Next(&a)) {
    if (a.type == LS_NLA_TYPE_PATH_RECORD) {
      if (a.len != kPathRecDataSize) return Status::Error(EINVAL, "PATH_RECORD size");
      ib_path_rec_data data;
      std::memcpy(&data, a.data, sizeof(data));
      ibv_path_record path;
      std::memcpy(&path, data.path_rec, sizeof(path));
      out->path_flags.push_back(data.flags);
      out->paths.push_back(path);
    } else if (a.type == LS_NLA_TYPE_DGID) {
      if (a.len != 16) return Status::Error(EINVAL, "DGID size");
      out->has_dgid = true;
      std::memcpy(out->dgid, a.data, 16);
    } else if (a.type == LS_NLA_TYPE_TIMEOUT) {
      if (a.len != 4) return Status::Error(EINVAL, "TIMEOUT size");
      out->has_timeout = true;
      std::memcpy(&out->timeout_ms, a.data, 4);
    }
  }
  if (!attrs.error().empty()) return Status::Error(EINVAL, attrs.error());
  return Status::Ok();
}

}  // namespace kernel_ls
}  // namespace ssa
