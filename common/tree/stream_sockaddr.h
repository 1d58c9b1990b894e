// stream_sockaddr.h: a DataAddress as a socket address and back, for the
// stream transports that take sockets' addresses (tcp_stream.cc,
// rsocket_stream.cc).
#ifndef IBACM_SSA_COMMON_TREE_STREAM_SOCKADDR_H
#define IBACM_SSA_COMMON_TREE_STREAM_SOCKADDR_H

#include <sys/socket.h>

#include "common/tree/ssa_mad.h"

namespace ssa {
namespace tree {

// Fills *ss (AF_INET6 for family 6, else AF_INET) and returns its length.
socklen_t ToSockaddr(const DataAddress& a, sockaddr_storage* ss);
// The DataAddress of an AF_INET or AF_INET6 address; empty for any other.
DataAddress FromSockaddr(const sockaddr_storage& ss);

}  // namespace tree
}  // namespace ssa

#endif
