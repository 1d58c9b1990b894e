// acme_address.h: how ib_acme reads the text of -s/-d addresses.
//
// ClassifyAddress is upstream's get_dest(): with -f given, the text is taken
// as that format; with the default (unspecified) format an IPv4 or IPv6
// literal is an IP address, a name getaddrinfo() knows becomes its first
// address (IP format, printed as that address), and anything else is read
// as a LID. So "-d node2" for a name DNS does not know resolves LID 0, as it
// does upstream; use -f n for names the daemon knows but DNS does not.
//
// Thread-safe (getaddrinfo is).
#ifndef IBACM_SSA_UTIL_IB_ACME_ACME_ADDRESS_H
#define IBACM_SSA_UTIL_IB_ACME_ACME_ADDRESS_H

#include <infiniband/sa.h>

#include <string>

#include "common/acm/acm_wire.h"
#include "util/ib_acme/acme_options.h"

namespace ssa {
namespace acme {

struct ClassifiedAddress {
  AddrFormat format = AddrFormat::kUnspecified;  // never kUnspecified on return
  std::string text;  // what to resolve (and print): the IP a name resolved to
};

ClassifiedAddress ClassifyAddress(const std::string& arg, AddrFormat format);

// An IPv4 or else IPv6 literal into `out` (type and address; flags kept).
// False if it is neither.
bool ParseIpAddress(const std::string& text, acm::EpAddr* out);

// A GID in IPv6 notation. False if it does not parse.
bool ParseGid(const std::string& text, ibv_gid* gid);

}  // namespace acme
}  // namespace ssa

#endif
