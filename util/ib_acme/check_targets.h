// check_targets.h: the destinations of a provider test, from -d, a
// destination file, a hosts file and a LID range (in that order).
//
//   -d ARG             bracket ranges expanded as upstream does
//   --dest-file FILE   one destination per line; '#' starts a comment; each
//                      line may use bracket ranges
//   --hosts FILE       the address (first word) of every line: /etc/hosts
//                      ("IP name aliases...") or ibacm_hosts.data ("address
//                      GID"); when the second word is a GID it is the
//                      expected DGID of that address
//   --lid-range A-B    LIDs A..B
// A destination's format is -f's; with -f unspecified a number (decimal or
// 0x hex) is a LID, an IPv4/IPv6 literal an IP address and anything else a
// name. (Upstream's -d guessing asks DNS and reads unknown names as LIDs;
// a provider test wants names to stay names.) GIDs need -f g.
//
// Pure parsing plus file reading; one thread.
#ifndef IBACM_SSA_UTIL_IB_ACME_CHECK_TARGETS_H
#define IBACM_SSA_UTIL_IB_ACME_CHECK_TARGETS_H

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/acm/acm_wire.h"
#include "common/base/status.h"
#include "util/ib_acme/acme_options.h"

namespace ssa {
namespace acme {

struct TestTarget {
  AddrFormat format = AddrFormat::kLid;  // kIp, kName, kLid or kGid
  std::string text;                      // as given
  acm::EpAddr address;                   // kIp/kName: the address (type and info)
  uint16_t lid = 0;                      // kLid
  ibv_gid gid{};                         // kGid
  bool has_expected_dgid = false;        // from a hosts file
  ibv_gid expected_dgid{};

  // "lid 3", "name node2", "ip 10.0.0.2", "gid fe80::2".
  std::string Label() const;
};

// One destination in `format` (kUnspecified: guessed as described above).
Status MakeTarget(const std::string& text, AddrFormat format, TestTarget* out);

// A destination file's text; `name` is used in error messages ("file:line").
Status ParseDestinationText(const std::string& text, const std::string& name, AddrFormat format,
                            std::vector<TestTarget>* out);
// A hosts file's text.
Status ParseHostsText(const std::string& text, const std::string& name,
                      std::vector<TestTarget>* out);

// Everything the options name, files read.
Status BuildTargets(const AcmeOptions& options, std::vector<TestTarget>* out);

}  // namespace acme
}  // namespace ssa

#endif
