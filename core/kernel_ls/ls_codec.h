// ls_codec.h: the kernel's "local service" messages on NETLINK_RDMA
// (client RDMA_NL_LS, <rdma/rdma_netlink.h>): the path-record requests the
// kernel's SA client multicasts to RDMA_NL_GROUP_LS, the daemon's answers,
// and the daemon's SET_TIMEOUT.
//
// A RESOLVE request (nlmsg_type RDMA_NL_GET_TYPE(RDMA_NL_LS, OP_RESOLVE),
// NLM_F_REQUEST, nlmsg_seq the kernel's query id) carries a 68-byte family
// header (struct rdma_ls_resolve_header: device name, port, path use, padded
// to 4) and then attributes, each type possibly with RDMA_NLA_F_MANDATORY:
//   SERVICE_ID u64 host order | DGID, SGID 16 bytes | TCLASS u8 |
//   PKEY u16 host order       | QOS_CLASS u16 host order
// The answer has the same type and sequence number, no NLM_F_REQUEST, no
// family header, and either LS_NLA_TYPE_PATH_RECORD attributes (struct
// ib_path_rec_data of <rdma/ib_user_sa.h>: flags, reserved, the 64-byte
// SA PathRecord in wire order; which records, flagged how: ls_answer.h)
// or only the RDMA_NL_LS_F_ERR flag, on which the kernel asks the SA
// itself at once.
//
// An IP_RESOLVE request (op RDMA_NL_LS_OP_IP_RESOLVE: the kernel's address
// resolution asks it for a destination behind an IB router, an IPoIB route
// with a gateway) carries a 4-byte family header (struct
// rdma_ls_ip_resolve_header: the net device's ifindex) and one mandatory
// attribute, LS_NLA_TYPE_IPV4 (4 bytes) or LS_NLA_TYPE_IPV6 (16), network
// order. Its answer: the same type and sequence number, no family header,
// one LS_NLA_TYPE_DGID attribute (the 16-byte GID), or the error flag.
//
// Everything here is pure: bytes in, values out. Any thread.
#ifndef IBACM_SSA_CORE_KERNEL_LS_LS_CODEC_H
#define IBACM_SSA_CORE_KERNEL_LS_LS_CODEC_H

#include <cstdint>
#include <string>
#include <vector>

#include <infiniband/sa.h>

#include "common/base/status.h"
#include "core/kernel_ls/ls_answer.h"
#include "core/netlink/netlink_msg.h"

namespace ssa {
namespace kernel_ls {

constexpr size_t kResolveHeaderSize = 68;   // NLMSG_ALIGN(sizeof(rdma_ls_resolve_header))
constexpr size_t kDeviceNameMax = 64;       // LS_DEVICE_NAME_MAX
constexpr size_t kPathRecDataSize = 72;     // sizeof(struct ib_path_rec_data)
constexpr size_t kIpResolveHeaderSize = 4;  // NLMSG_ALIGN(sizeof(rdma_ls_ip_resolve_header))

// Why a message was not taken; each kind is counted by the service.
enum class LsDecodeError {
  kNone,
  kNotLocalService,     // another RDMA netlink client's message
  kNotRequest,          // no NLM_F_REQUEST: not for the daemon to answer
  kUnknownOp,           // a request other than RESOLVE (answered with an error)
  kShortFamilyHeader,   // RESOLVE without its 68-byte header
  kBadPathUse,          // path_use beyond LS_RESOLVE_PATH_USE_GMP
  kBadAttribute,        // attribute framing broken
  kAttributeSize,       // a known attribute of the wrong size
  kDuplicateAttribute,  // the same attribute twice
  kUnknownMandatory,    // an attribute we do not know, marked mandatory
  kNoDestination,       // no DGID: nothing to resolve
  kShortIpHeader,       // IP_RESOLVE without its 4-byte header
  kNoAddress,           // IP_RESOLVE without an IPv4 or IPv6 address
  kCount
};
const char* LsDecodeErrorName(LsDecodeError e);

struct LsResolveRequest {
  std::string device;  // the kernel's CA name, e.g. "mlx5_0"
  uint8_t port_num = 0;
  uint8_t path_use = 0;  // LS_RESOLVE_PATH_USE_*
  bool has_service_id = false;
  uint64_t service_id = 0;
  bool has_dgid = false;
  uint8_t dgid[16] = {};
  bool has_sgid = false;
  uint8_t sgid[16] = {};
  bool has_tclass = false;
  uint8_t tclass = 0;
  bool has_pkey = false;
  uint16_t pkey = 0;
  bool has_qos_class = false;
  uint16_t qos_class = 0;
  unsigned ignored_attributes = 0;  // unknown and not mandatory
};

struct LsIpResolveRequest {
  uint32_t ifindex = 0;             // the net device the kernel routes through
  int family = 0;                   // AF_INET or AF_INET6
  uint8_t addr[16] = {};            // network order; 4 bytes for AF_INET
  unsigned ignored_attributes = 0;  // unknown and not mandatory
};

struct LsRequest {
  uint16_t type = 0;  // nlmsg_type, answered with the same
  uint16_t flags = 0;
  uint32_t seq = 0;
  uint8_t op = 0;            // RDMA_NL_GET_OP(type)
  LsResolveRequest resolve;  // op == RDMA_NL_LS_OP_RESOLVE
  LsIpResolveRequest ip;     // op == RDMA_NL_LS_OP_IP_RESOLVE
  bool is_ip_resolve() const;
};

// Decodes one message from the RDMA netlink socket. On failure `why` names
// the reason and `out` still holds the header's type, flags, seq and op,
// so a request can be answered with an error.
Status DecodeLsRequest(const NlMessage& msg, LsRequest* out, LsDecodeError* why);

// The path record a request asks for: the given fields in wire order, the
// rest zero (for the provider to fill in), reversible for path use ALL and
// GMP, one path.
ibv_path_record PathFromRequest(const LsResolveRequest& r);

// The request as the kernel builds it (tests, the fuzzer's round trip):
// RESOLVE or IP_RESOLVE by req.op.
std::vector<uint8_t> EncodeResolveRequest(const LsRequest& req);
// The answer to `req`: a PATH_RECORD attribute for each record of
// AnswerRecords(path use, *path) (ls_answer.h: the GMP record, then for
// routed or one-way paths the outbound and inbound ones), or, without a
// path, the error flag alone.
std::vector<uint8_t> EncodeResolveAnswer(const LsRequest& req, const ibv_path_record* path);
// The answer to an IP_RESOLVE `req`: the DGID attribute, or without a GID
// the error flag alone.
std::vector<uint8_t> EncodeIpResolveAnswer(const LsRequest& req, const uint8_t* gid);
// SET_TIMEOUT: how long (ms) the kernel waits for answers before it asks
// the SA itself.
std::vector<uint8_t> EncodeSetTimeout(uint32_t seq, uint32_t timeout_ms);

// What the daemon sent, read the way the kernel reads it (tests, fuzzer).
struct LsDaemonMessage {
  uint8_t op = 0;
  uint32_t seq = 0;
  bool error = false;  // RDMA_NL_LS_F_ERR
  bool request = false;
  std::vector<uint32_t> path_flags;  // one per PATH_RECORD attribute
  std::vector<ibv_path_record> paths;
  bool has_dgid = false;  // an IP_RESOLVE answer's GID
  uint8_t dgid[16] = {};
  bool has_timeout = false;
  uint32_t timeout_ms = 0;
};
Status DecodeDaemonMessage(const NlMessage& msg, LsDaemonMessage* out);

}  // namespace kernel_ls
}  // namespace ssa

#endif
