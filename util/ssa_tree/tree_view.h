// tree_view.h: what ssa-tree prints: the tree's state, as the core writes
// it (a JSON array with one flat object per member, see
// common/tree/membership.h), read back into records and drawn as text
// (one line per member, indented under its parent), Graphviz or the
// Prometheus text format.
//
// Pure functions; any thread.
#ifndef IBACM_SSA_UTIL_SSA_TREE_TREE_VIEW_H
#define IBACM_SSA_UTIL_SSA_TREE_TREE_VIEW_H

#include <map>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {
namespace tree_view {

// One member: every key of its object, values as text (strings unquoted).
using Member = std::map<std::string, std::string>;

// A member's value for `key`, or `def` when it has none; as a number
// (0 when absent), or a signed one (the core's "-1: never").
std::string Field(const Member& m, const char* key, const char* def = "0");
unsigned long long Number(const Member& m, const char* key);
long long SignedNumber(const Member& m, const char* key, long long def);
// The core's entry (role "core"), or null.
const Member* FindCore(const std::vector<Member>& members);

// Parses an array of flat objects whose values are strings, numbers,
// booleans or null. Errors say where and what.
Status ParseMembers(const std::string& json, std::vector<Member>* out);

// One line per member, children indented under their parent (by LID), the
// core first: "access lid 5 guid 0x... epoch 7 (lag 0) parent 3 backup 4
// full 1 delta 6 sent 12345 B refused 0".
std::string RenderText(const std::vector<Member>& members);
// What makes the tree's state, one line per member: role, LID, GUID,
// parent, backup, epoch and lag; not the traffic counters (bytes sent,
// transfers, refusals), which every poll of the core moves.
std::string StateKey(const std::vector<Member>& members);
// A Graphviz digraph: solid edges child -> parent, dashed -> backup.
std::string RenderDot(const std::vector<Member>& members);
// The core's view of every member in the Prometheus text format (names
// ibssa_core_*, labels role, lid, guid; man ssa-tree(1) lists them), with
// the tree's totals; `*error` set if a name were invalid.
std::string RenderPrometheus(const std::vector<Member>& members, std::string* error);

}  // namespace tree_view
}  // namespace ssa

#endif
