// ls_answer.cc: the records of a RESOLVE answer (see ls_answer.h).
#include "core/kernel_ls/ls_answer.h"

#include <rdma/ib_user_sa.h>
#include <rdma/rdma_netlink.h>

#include <algorithm>

#include "common/base/big_endian.h"

namespace ssa {
namespace kernel_ls {

namespace {
constexpr uint32_t kGmpFlags = IB_PATH_PRIMARY | IB_PATH_GMP | IB_PATH_BIDIRECTIONAL;
constexpr uint32_t kOutboundFlags = IB_PATH_PRIMARY | IB_PATH_OUTBOUND;
constexpr uint32_t kInboundFlags = IB_PATH_PRIMARY | IB_PATH_INBOUND;
}  // namespace

bool PathIsRouted(const ibv_path_record& path) {
  // HopLimit is the low byte of the FlowLabel/HopLimit word; the kernel's
  // CM treats a path as local while it is at most 1.
  return (FromBe32(path.flowlabel_hoplimit) & 0xff) > 1;
}

bool PathNeedsDirections(uint8_t path_use, const ibv_path_record& path) {
  if (path_use != LS_RESOLVE_PATH_USE_ALL && path_use != LS_RESOLVE_PATH_USE_UNIDIRECTIONAL)
    return false;
  if (PathIsRouted(path)) return true;
  bool reversible = (path.reversible_numpath & 0x80) != 0;
  return path_use == LS_RESOLVE_PATH_USE_ALL && !reversible;
}

ibv_path_record ReversePath(const ibv_path_record& path) {
  ibv_path_record r = path;
  std::swap(r.sgid, r.dgid);
  std::swap(r.slid, r.dlid);
  return r;
}

LsAnswer AnswerRecords(uint8_t path_use, const ibv_path_record& path) {
  LsAnswer a;
  a.records[a.count++] = {kGmpFlags, path};
  if (!PathNeedsDirections(path_use, path)) return a;
  a.records[a.count++] = {kOutboundFlags, path};
  if (path_use == LS_RESOLVE_PATH_USE_ALL)
    a.records[a.count++] = {kInboundFlags, ReversePath(path)};
  return a;
}

}  // namespace kernel_ls
}  // namespace ssa
