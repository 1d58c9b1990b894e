// tool_output.h: what the infiniband-diags tools print, parsed once for
// every test that reads them on the simulated fabric: ibstat (a port's
// state, LIDs and GUIDs), ibnetdiscover (the nodes found) and saquery -p
// (a PathRecord, field by field, compared with one of ours), and GIDs as
// those tools print them.
//
// Plain functions of text; no state.
#ifndef IBACM_SSA_TEST_SUPPORT_TOOL_OUTPUT_H
#define IBACM_SSA_TEST_SUPPORT_TOOL_OUTPUT_H

#include <infiniband/sa.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ssa {
namespace test {

// What `ibstat` prints for the CA and its first port.
struct IbstatPort {
  std::string state;           // "Active", "Down", ...
  std::string physical_state;  // "LinkUp", ...
  int lid = -1;
  int sm_lid = -1;
  std::string port_guid;  // "0x0000000000100004"
  std::string node_guid;
  // Every "Key: value" line, the CA's and the first port's, as printed
  // ("Base lid" -> "3").
  std::map<std::string, std::string> fields;
};
IbstatPort ParseIbstat(const std::string& output);
// One value of ibstat's output, e.g. "Base lid" -> "3"; "" if absent.
std::string IbstatField(const std::string& output, const std::string& label);

// Node records in `ibnetdiscover` output: lines starting with "Switch", "Ca".
struct DiscoveredNodes {
  int switches = 0;
  int cas = 0;
  std::vector<std::string> descriptions;  // the quoted node descriptions
};
DiscoveredNodes ParseIbnetdiscover(const std::string& output);

// saquery -p's "PathRecord dump:" block: field name -> value text, e.g.
// "\t\tdlid....................1" -> {"dlid", "1"}. Empty: no record.
std::map<std::string, std::string> ParseSaqueryPath(const std::string& output);
// Every field saquery prints against our record (network order): "" when
// all are equal, else "field: saquery X, ours Y; " per difference.
std::string SaqueryDifferences(const std::map<std::string, std::string>& saquery,
                               const ibv_path_record& ours);

// A GID as inet_ntop writes it, the form saquery and ib_acme print.
std::string GidText(const uint8_t gid[16]);
// The GID of the port with `port_guid` under the SM's default subnet
// prefix (fe80::/64), as GidText writes it ("fe80::10:4").
std::string DefaultGidText(uint64_t port_guid);
// The GID of `port_guid` under subnet prefix `prefix`, written the same way.
std::string PrefixedGidText(uint64_t prefix, uint64_t port_guid);

}  // namespace test
}  // namespace ssa

#endif
