// path_text.h: the text forms ssa-smdb prints, and the pieces of its
// command line that name ports: one stable line per path, field-by-field
// differences between two PathRecords, and `--from`/`--to` parsing.
//
// Path line (one per path, fields always in this order, values as the
// SMDB dump writes them: decimal, 0x-hex for P_Keys and labels):
//   path slid=1 dlid=3 status=ok sgid=fe80::2:c9... dgid=fe80::... pkey=0xffff
//        sl=0 mtu=4 rate=3 packet_life=18 hop_limit=0 tclass=0 flow_label=0x00000
//        reversible=1 preference=0
//   path slid=1 dlid=7 status=no-route
// MTU, rate and packet lifetime are the IBA codes without selector bits.
// A record the engine marks not exact (smdb::kPathInexact*: the SA may
// answer otherwise, so no consumer serves it) ends with
//        exact=no why=qos,routing-sl
// and an exact record prints without those two fields. A record whose SL
// the SA draws at random among several (DFSSSP spreading a layer over
// VLs: smdb::PathSlSpan) shows sl= the first of them and, before any
// exact= field,
//        sl_range=4-7
//
// Pure functions; any thread.
#ifndef IBACM_SSA_UTIL_SMDB_TOOL_PATH_TEXT_H
#define IBACM_SSA_UTIL_SMDB_TOOL_PATH_TEXT_H

#include <infiniband/sa.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/smdb_index.h"

namespace ssa {
namespace smdb_tool {

// `flags`: the PrdbPath::flags bits the engine marks (kPathInexact*, the
// SL span).
std::string FormatPathLine(uint16_t slid, uint16_t dlid, smdb::PathStatus status,
                           const ibv_path_record& rec, uint8_t flags = 0);

// A record whose SL is drawn among `span` SLs from its own: when the SA's
// answer `sa` drew one of them, *mine takes that SL (true); otherwise the
// SA's SL is none *mine allows and nothing changes (false).
bool AdoptDrawnSl(unsigned span, const ibv_path_record& sa, ibv_path_record* mine);

struct FieldDiff {
  std::string field;  // "mtu", "reversible", "reserved", ...
  std::string a;      // the first record's value ("engine")
  std::string b;      // the second's ("sa")
};
// Every PathRecord field that differs, in wire order, including selectors,
// NumbPath, ServiceID and the reserved bytes: empty iff the 64 bytes match.
std::vector<FieldDiff> DiffPathRecords(const ibv_path_record& a, const ibv_path_record& b);
// "mtu engine=4 sa=3; rate engine=7 sa=3".
std::string DescribeDiffs(const std::vector<FieldDiff>& diffs, const char* a_name = "engine",
                          const char* b_name = "sa");

// --from / --to: comma-separated items, each "all", a LID (decimal or
// 0x-hex below 0xC000, or "A-B" for a range) or a port GUID (0x + 16 hex
// digits, or any number above 0xFFFF). Returns SLIDs/DLIDs in the order
// given, without duplicates:
//   "all": the base LID of every endpoint (every LID with lmc_all);
//   a LID: that LID (with lmc_all, every LID of the port owning it);
//   a GUID: the base LID of that port (every LID with lmc_all).
// A LID no port owns is kept (the SA will say no record, and so will the
// engine); an unknown GUID is an error.
Status ParseLidList(const std::string& text, const smdb::SmdbIndex& index, bool lmc_all,
                    std::vector<uint16_t>* out);

}  // namespace smdb_tool
}  // namespace ssa

#endif
