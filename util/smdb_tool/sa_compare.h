// sa_compare.h: `ssa-smdb compare`: the engine's PathRecords against the
// live SA's answers to the same SubnAdmGet(PathRecord) queries, sent from
// this host's port (a simulated node under umad2sim, or real hardware).
//
// Every (SLID, DLID) pair is asked once, with up to `sa_depth` queries in
// flight through one SaClient; the engine computes the same pair with the
// local port as requester. A pair matches when both say "no path" (the SA
// answering ERR_NO_RECORDS) or both give the same 64 bytes. Mismatches are
// printed field by field; SA failures (timeouts, other errors) are
// reported and counted apart, since they say nothing about the engine.
// A record the engine (or the PRDB) marks not exact (smdb::kPathInexact*)
// is never served as the SA's, so it is neither a match nor a mismatch:
// it is counted as not_exact, and its line says whether the SA's answer
// in fact differs. A record whose SL the SA draws at random among several
// (smdb::PathSlSpan) matches an SA answer with any of those SLs. By GID,
// the SA answers ERR_NO_RECORDS for an unknown GID and for an off-subnet
// DGID no prefix route leads to a router too (kUnknownSlid, kUnknownDlid,
// kNoRouter); any other status is an SA failure.
//
// Single-threaded: runs its own EventLoop on the calling thread. Call it
// from the main thread before any other thread exists (umad2sim).
#ifndef IBACM_SSA_UTIL_SMDB_TOOL_SA_COMPARE_H
#define IBACM_SSA_UTIL_SMDB_TOOL_SA_COMPARE_H

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/qos_policy.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"

namespace ssa {
namespace smdb_tool {

struct CompareOptions {
  std::vector<uint16_t> slids;
  std::vector<uint16_t> dlids;
  // 0: every pair; otherwise this many pairs spread evenly over all of
  // them (the same pairs every run).
  size_t sample = 0;
  int sa_depth = 16;
  int timeout_ms = 2000;
  int retries = 2;
  std::string port;  // "ca:port"; default: the first active IB port with an SM
  // Ask as upstream ibacm does (Reversible and NumbPath in the mask), and
  // let the engine drop non-reversible paths the same way.
  bool reversible = false;
  // Ask by SGID and DGID (the GUIDs of the ports owning each SLID and
  // DLID; the caller passes one LID per port) instead of by LIDs.
  bool by_gid = false;
  // Ask by SGID and each of these DGIDs (network order; any subnet's, an
  // off-subnet one goes through a router: PathEngine::ComputeByGid)
  // instead of `dlids`. Implies by_gid.
  std::vector<std::array<uint8_t, 16>> dgids;
  // What else the query carries (mask bits and values), for both sides;
  // with pkey_from_path, each pair's first shared P_Key (as ibacm asks).
  smdb::QosQuery query;
  bool pkey_from_path = false;
  size_t max_print = static_cast<size_t>(-1);  // mismatch lines printed
  // Compare the SA with this PRDB (what the SSA tree delivered to a
  // consumer) instead of the engine: a pair absent from it means "no path".
  // A pair it holds is asked with the record's P_Key, the query the
  // record answers (PathEngineOptions::ForPrdb). Borrowed; not with by_gid.
  const smdb::Prdb* prdb = nullptr;
};

struct CompareResult {
  size_t pairs = 0;
  size_t matched = 0;  // same record, or no path on both sides
  size_t no_path = 0;  // ... of which no path on both sides
  size_t mismatched = 0;
  size_t not_exact = 0;         // marked not exact: consumers ask the SA for these
  size_t not_exact_differ = 0;  // ... of which the SA's answer does differ
  size_t sl_drawn = 0;          // SL drawn among several (smdb::PathSlSpan): any of them matches
  size_t sa_failures = 0;       // timeouts and SA errors other than no records
  double sa_seconds = 0;        // first query sent to last answer
  double engine_ns_per_path = 0;
  uint16_t requester_lid = 0;
};

// Prints mismatch and failure lines and one summary line to `out`.
Status RunSaCompare(const smdb::SmdbIndex& index, const CompareOptions& options, FILE* out,
                    CompareResult* result);

}  // namespace smdb_tool
}  // namespace ssa

#endif
