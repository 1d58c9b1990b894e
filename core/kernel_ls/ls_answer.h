// ls_answer.h: which path records answer one of the kernel's RESOLVE
// requests, and how each is flagged (struct ib_path_rec_data's flags,
// IB_PATH_* of <rdma/ib_user_sa.h>). ls_codec.cc puts them on the wire.
//
// How kernels read an answer (drivers/infiniband/core/sa_query.c,
// ib_nl_process_good_resolve_rsp), by the path use they sent:
//   - up to 6.0: the first PATH_RECORD attribute whose flags hold the use's
//     mask (UNIDIRECTIONAL: PRIMARY|OUTBOUND; GMP, which they send for
//     rdma_cm's reversible requests, and ALL: PRIMARY|GMP|BIDIRECTIONAL);
//   - since 6.1: every matching one, at most 3 (RDMA_PRIMARY_PATH_MAX_REC_NUM);
//     for rdma_cm's reversible requests they send ALL, whose mask is
//     PRIMARY alone, to say they take several. rdma_cm sorts them by flag:
//     the GMP record is the path its CM uses (and the REQ carries), the
//     OUTBOUND record's DLID is the data path's, and, on a routed path
//     (hop limit above 1), the INBOUND record's DLID is sent in the REQ
//     as the one the responder's data should go to.
//
// The answer, in this order:
//   1. the provider's record flagged PRIMARY|GMP|BIDIRECTIONAL, always.
//      Every kernel's mask for every use matches it, so a first-match
//      kernel takes it, as it always did.
//   2. with path use ALL or UNIDIRECTIONAL, when the record needs
//      directions (below): the same record flagged PRIMARY|OUTBOUND;
//   3. with path use ALL only, then: its reverse flagged PRIMARY|INBOUND:
//      SLID and DLID, SGID and DGID swapped, every other field as is (the
//      PRDB holds the paths from our port, not those towards it: the
//      reverse of a reversible record is the SA's own claim).
//      UNIDIRECTIONAL's mask (PRIMARY|OUTBOUND) would skip an inbound
//      record, so none is sent for it.
// A record needs directions when it is routed (hop limit above 1, the
// kernel's own test: the path leaves the subnet through a router) or,
// asked for a reversible path (ALL), it came back not reversible (it is
// known good one way only). The records our providers give on one subnet
// are reversible with hop limit 0 or 1: there the answer is the one GMP
// record, byte for byte what every kernel accepted before.
//
// Pure; any thread.
#ifndef IBACM_SSA_CORE_KERNEL_LS_LS_ANSWER_H
#define IBACM_SSA_CORE_KERNEL_LS_LS_ANSWER_H

#include <cstddef>
#include <cstdint>

#include <infiniband/sa.h>

namespace ssa {
namespace kernel_ls {

// The most path records a kernel takes from one answer
// (RDMA_PRIMARY_PATH_MAX_REC_NUM, in the kernel's <rdma/rdma_cm.h>, not
// in the uapi headers).
constexpr size_t kMaxAnswerRecords = 3;

struct LsAnswerRecord {
  uint32_t flags = 0;  // IB_PATH_*
  ibv_path_record path;
};

struct LsAnswer {
  size_t count = 0;
  LsAnswerRecord records[kMaxAnswerRecords];
  bool directional() const { return count > 1; }
};

// The records answering a request of `path_use` (LS_RESOLVE_PATH_USE_*)
// with the provider's `path` (wire order).
LsAnswer AnswerRecords(uint8_t path_use, const ibv_path_record& path);

// The rule's two tests and the reversal, for the tests and the log.
bool PathIsRouted(const ibv_path_record& path);
bool PathNeedsDirections(uint8_t path_use, const ibv_path_record& path);
ibv_path_record ReversePath(const ibv_path_record& path);

}  // namespace kernel_ls
}  // namespace ssa

#endif
