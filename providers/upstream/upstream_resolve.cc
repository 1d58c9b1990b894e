// upstream_resolve.cc: our resolve and query requests as upstream acm_msg
// requests (the client protocol's message, as upstream's core hands it to
// its providers), with our request id as upstream's id. The library answers
// through acm_resolve_response/acm_query_response (core_exports.cc), from
// any thread; the answer reaches the core on the loop (UpstreamBridge::
// Handle).
#include <cerrno>
#include <cstring>

#include "providers/upstream/upstream_bridge.h"

namespace ssa {
namespace upstream {
namespace {

// The request as upstream's core would pass it: a path request is one
// path-record entry; an address request a source and a destination entry
// (hdr.src_index 0, hdr.dst_index 1). The request's flags (NODELAY,
// QUERY_SA) sit on the entry that names the destination.
void BuildMessage(const ssa_resolve_request* req, acm_msg* msg) {
  memset(msg, 0, sizeof(*msg));
  msg->hdr.version = ACM_VERSION;
  msg->hdr.opcode = ACM_OP_RESOLVE;
  const uint32_t flags = req->flags & (ACM_FLAGS_NODELAY | ACM_FLAGS_QUERY_SA);
  // resolve_data is a zero-length array over data[]: index data[] itself.
  auto* ep = reinterpret_cast<acm_ep_addr_data*>(msg->data);
  if (req->has_path) {
    msg->hdr.length = ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH;
    ep[0].flags = flags;
    ep[0].type = ACM_EP_INFO_PATH;
    ep[0].info.path = req->path;
    return;
  }
  msg->hdr.length = ACM_MSG_HDR_LENGTH + 2 * ACM_MSG_EP_LENGTH;
  msg->hdr.src_index = 0;
  msg->hdr.dst_index = 1;
  ep[0].flags = ACM_EP_FLAG_SOURCE;
  ep[0].type = req->src.type;
  memcpy(ep[0].info.addr, req->src.data, sizeof(ep[0].info.addr));
  ep[1].flags = ACM_EP_FLAG_DEST | flags;
  ep[1].type = req->dst.type;
  memcpy(ep[1].info.addr, req->dst.data, sizeof(ep[1].info.addr));
}

}  // namespace

int UpstreamBridge::Forward(UpAddress* a, const ssa_resolve_request* req, uint64_t req_id,
                            bool is_query) {
  if (!SSA_HAS_MEMBER(req, path)) return -EINVAL;
  acm_msg msg;
  BuildMessage(req, &msg);
  pending_[req_id] = is_query;
  // Upstream's core calls query() for QUERY_SA path requests; a library
  // without one gets them as resolves.
  int rc = is_query && up_->query ? up_->query(a->up_ctx, &msg, req_id)
                                  : up_->resolve(a->up_ctx, &msg, req_id);
  if (rc != 0) {
    // Not taken: the core answers it. An answer the library queued anyway
    // finds no pending request and is dropped.
    pending_.erase(req_id);
    Log(SSA_LOG_DEBUG, "%s %llu: the library returned %d", is_query ? "query" : "resolve",
        static_cast<unsigned long long>(req_id), rc);
    return rc < 0 ? rc : -EIO;
  }
  return 0;
}

int UpstreamBridge::Resolve(UpAddress* a, const ssa_resolve_request* req, uint64_t req_id) {
  return Forward(a, req, req_id, false);
}

int UpstreamBridge::Query(UpAddress* a, const ssa_resolve_request* req, uint64_t req_id) {
  return Forward(a, req, req_id, true);
}

}  // namespace upstream
}  // namespace ssa
