// kernel_ls_side.h: the kernel's side of the RDMA_NL_LS conversation, for
// the tests of core/kernel_ls/, written from the installed uapi layouts
// (<linux/netlink.h>, <rdma/rdma_netlink.h>, <rdma/ib_user_sa.h>) and not
// from our codec:
//   - LsBuilder: a message assembled byte by byte, as the kernel's SA
//     client builds its requests;
//   - KernelReadsAnswer: an answer read by the rules of the kernel's
//     drivers/infiniband/core/sa_query.c (ib_nl_handle_resolve_resp,
//     ib_nl_is_good_resolve_resp with its attribute policy,
//     ib_nl_process_good_resolve_rsp) of kernels up to 6.0 and since 6.1,
//     then sorted as rdma_cm's cma_query_handler sorts the records.
//     Where the kernel only warns (bytes left after the attributes) or
//     reads beyond a short record, the checker refuses: our answers must
//     not depend on the kernel's leniency.
#ifndef IBACM_SSA_TEST_UNIT_KERNEL_LS_SIDE_H
#define IBACM_SSA_TEST_UNIT_KERNEL_LS_SIDE_H

#include <linux/netlink.h>
#include <rdma/ib_user_sa.h>
#include <rdma/rdma_netlink.h>

#include <infiniband/sa.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kernel_side {

// A netlink message assembled by hand: header, payload, attributes.
struct LsBuilder {
  std::vector<uint8_t> bytes;
  explicit LsBuilder(uint16_t type, uint16_t flags = NLM_F_REQUEST, uint32_t seq = 77) {
    nlmsghdr h = {};
    h.nlmsg_type = type;
    h.nlmsg_flags = flags;
    h.nlmsg_seq = seq;
    h.nlmsg_pid = 0;
    Put(&h, sizeof(h));
  }
  void Put(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
    bytes.resize(NLMSG_ALIGN(bytes.size()), 0);
  }
  void ResolveHeader(const char* dev, uint8_t port, uint8_t use) {
    rdma_ls_resolve_header h;
    std::memset(&h, 0, sizeof(h));
    std::strncpy(reinterpret_cast<char*>(h.device_name), dev, sizeof(h.device_name) - 1);
    h.port_num = port;
    h.path_use = use;
    Put(&h, sizeof(h));
  }
  void Attr(uint16_t type, const void* p, size_t n, uint16_t len_override = 0) {
    nlattr a;
    a.nla_len = len_override ? len_override : static_cast<uint16_t>(NLA_HDRLEN + n);
    a.nla_type = type;
    bytes.insert(bytes.end(), reinterpret_cast<uint8_t*>(&a),
                 reinterpret_cast<uint8_t*>(&a) + sizeof(a));
    Put(p, n);
  }
  // A PATH_RECORD attribute holding struct ib_path_rec_data.
  void PathRecord(uint32_t flags, const ibv_path_record& path) {
    ib_path_rec_data d;
    std::memset(&d, 0, sizeof(d));
    d.flags = flags;
    std::memcpy(d.path_rec, &path, sizeof(path));
    Attr(LS_NLA_TYPE_PATH_RECORD, &d, sizeof(d));
  }
  std::vector<uint8_t> Done() {
    uint32_t len = static_cast<uint32_t>(bytes.size());
    std::memcpy(bytes.data(), &len, 4);
    return bytes;
  }
};

enum class Kernel { kUpTo6_0, kSince6_1 };

// What the kernel made of an answer to a RESOLVE request it sent with
// `path_use` and sequence number `seq`.
struct KernelRead {
  bool taken = false;                     // the query completed with path records
  std::string why;                        // otherwise: why not (to the SA, or failed)
  std::vector<ib_path_rec_data> records;  // taken, in order
  // rdma_cm's sorting of `records` (indices into it, -1: none): the
  // path its CM uses, and the directional ones.
  int gmp = -1, inbound = -1, outbound = -1;
  const ibv_path_record& Path(int i) const {
    return *reinterpret_cast<const ibv_path_record*>(records.at(static_cast<size_t>(i)).path_rec);
  }
};

// The attribute policy of sa_query.c (ib_nl_policy): the longest a
// binary attribute may be, the shortest a fixed-size one.
inline bool PolicyAccepts(uint16_t type, size_t len) {
  switch (type) {
    case LS_NLA_TYPE_PATH_RECORD: return len <= sizeof(ib_path_rec_data);
    case LS_NLA_TYPE_DGID:
    case LS_NLA_TYPE_SGID: return len <= 16;
    case LS_NLA_TYPE_TIMEOUT: return len >= 4;
    case LS_NLA_TYPE_SERVICE_ID: return len >= 8;
    case LS_NLA_TYPE_TCLASS: return len >= 1;
    case LS_NLA_TYPE_PKEY:
    case LS_NLA_TYPE_QOS_CLASS: return len >= 2;
    default: return true;
  }
}

// The mask a record's flags must hold, by path use and kernel.
inline uint32_t KernelMask(uint8_t path_use, Kernel k) {
  if (path_use == LS_RESOLVE_PATH_USE_UNIDIRECTIONAL) return IB_PATH_PRIMARY | IB_PATH_OUTBOUND;
  if (path_use == LS_RESOLVE_PATH_USE_ALL && k == Kernel::kSince6_1) return IB_PATH_PRIMARY;
  return IB_PATH_PRIMARY | IB_PATH_GMP | IB_PATH_BIDIRECTIONAL;
}

inline KernelRead Refused(KernelRead* out, const std::string& why) {
  out->why = why;
  return *out;
}

inline KernelRead KernelReadsAnswer(const std::vector<uint8_t>& bytes, uint32_t seq,
                                    uint8_t path_use, Kernel k) {
  KernelRead out;
  nlmsghdr h;
  if (bytes.size() < NLMSG_HDRLEN) return Refused(&out, "shorter than a header");
  std::memcpy(&h, bytes.data(), sizeof(h));
  if (h.nlmsg_len != bytes.size()) return Refused(&out, "nlmsg_len is not the datagram's");
  if (h.nlmsg_type != RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE))
    return Refused(&out, "not a RESOLVE message");
  if (h.nlmsg_flags & NLM_F_REQUEST) return Refused(&out, "NLM_F_REQUEST: refused (EPERM)");
  if (h.nlmsg_seq != seq) return Refused(&out, "no query with this sequence number");
  if (h.nlmsg_flags & RDMA_NL_LS_F_ERR) return Refused(&out, "error flag: asks the SA");
  // nla_parse_deprecated over the payload, with the policy.
  const uint8_t* p = bytes.data() + NLMSG_HDRLEN;
  size_t rem = bytes.size() - NLMSG_HDRLEN;
  std::vector<std::pair<uint16_t, const uint8_t*>> attrs;  // raw type, payload
  while (rem >= NLA_HDRLEN) {
    nlattr a;
    std::memcpy(&a, p, sizeof(a));
    if (a.nla_len < NLA_HDRLEN || a.nla_len > rem) break;
    uint16_t type = a.nla_type & NLA_TYPE_MASK;
    if (type && type < LS_NLA_TYPE_MAX && !PolicyAccepts(type, a.nla_len - NLA_HDRLEN))
      return Refused(&out, "attribute " + std::to_string(type) + " fails the policy: asks the SA");
    if (a.nla_type == LS_NLA_TYPE_PATH_RECORD && a.nla_len != NLA_HDRLEN + sizeof(ib_path_rec_data))
      return Refused(&out, "short PATH_RECORD: the kernel would read beyond it");
    attrs.emplace_back(a.nla_type, p + NLA_HDRLEN);
    size_t step = NLA_ALIGN(a.nla_len);
    if (step > rem) step = rem;
    p += step;
    rem -= step;
  }
  if (rem) return Refused(&out, "bytes left after the attributes");
  // ib_nl_process_good_resolve_rsp: the records whose flags hold the mask,
  // the first only before 6.1, up to RDMA_PRIMARY_PATH_MAX_REC_NUM since.
  const uint32_t mask = KernelMask(path_use, k);
  const size_t most = k == Kernel::kSince6_1 ? 3 : 1;
  for (const auto& a : attrs) {
    if (a.first != LS_NLA_TYPE_PATH_RECORD) continue;
    ib_path_rec_data d;
    std::memcpy(&d, a.second, sizeof(d));
    if ((d.flags & mask) != mask) continue;
    out.records.push_back(d);
    if (out.records.size() >= most) break;
  }
  if (out.records.empty()) return Refused(&out, "no record holds the mask: the query fails");
  out.taken = true;
  // cma_query_handler (6.1's; before, the one record is the path).
  for (size_t i = 0; i < out.records.size(); ++i) {
    uint32_t f = out.records[i].flags;
    int at = static_cast<int>(i);
    if (k == Kernel::kUpTo6_0 || !f || (f & IB_PATH_GMP))
      out.gmp = at;
    else if (f & IB_PATH_INBOUND)
      out.inbound = at;
    else if (f & IB_PATH_OUTBOUND)
      out.outbound = at;
  }
  return out;
}

}  // namespace kernel_side

#endif
