// announce.h: which data-channel address a member or the core tells the
// tree. A listener bound to a wildcard (0.0.0.0, [::]) is reachable at
// several addresses; children need one: the configured `announce`
// address, else the first IPv4 address of an IPoIB interface of the port,
// else loopback (the simulated fabric, where every daemon runs on one
// machine), with a warning saying so.
#ifndef IBACM_SSA_COMMON_TREE_ANNOUNCE_H
#define IBACM_SSA_COMMON_TREE_ANNOUNCE_H

#include <cstdint>
#include <string>

#include "common/base/log.h"
#include "common/base/status.h"
#include "common/tree/ssa_mad.h"

namespace ssa {
namespace tree {

// `bound` is what the listener got (its real port). EINVAL for a bad
// `announce`.
Status AnnounceAddress(const DataAddress& bound, const std::string& announce, uint64_t port_guid,
                       Logger* log, DataAddress* out);

}  // namespace tree
}  // namespace ssa

#endif
