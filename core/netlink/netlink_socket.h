// netlink_socket.h: the seam between the core and the kernel's netlink
// sockets (NETLINK_RDMA for the kernel's path-record requests, NETLINK_ROUTE
// for address changes).
//
// The daemon opens real sockets through OpenNetlinkSocket(); tests hand the
// core a factory that returns an in-memory fake instead, so the codecs and
// the services behind them run on recorded and hand-built messages on a
// machine whose kernel offers neither service.
//
// A socket is used on the thread of the reactor that watches its fd.
#ifndef IBACM_SSA_CORE_NETLINK_NETLINK_SOCKET_H
#define IBACM_SSA_CORE_NETLINK_NETLINK_SOCKET_H

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "common/base/status.h"

namespace ssa {

class NetlinkSocket {
 public:
  virtual ~NetlinkSocket() = default;
  // A non-blocking fd that becomes readable (EPOLLIN) when Receive() has
  // something; the socket owns it.
  virtual int fd() const = 0;
  // Reads one datagram into `buf`. Returns its length; 0 when nothing is
  // left (EAGAIN); -ENOBUFS when the kernel dropped messages because the
  // socket's buffer was full (the caller must resynchronise); -EMSGSIZE
  // when the datagram did not fit `len` (it is discarded); another -errno
  // on failure. `from_kernel` is set to whether the sender was the kernel
  // (port id 0): anything else on these sockets is not to be trusted.
  virtual ssize_t Receive(uint8_t* buf, size_t len, bool* from_kernel) = 0;
  // Sends one datagram to the kernel.
  virtual Status Send(const uint8_t* buf, size_t len) = 0;
};

// Opens a netlink socket of `protocol` (NETLINK_RDMA, NETLINK_ROUTE, ...),
// non-blocking and close-on-exec, bound to the multicast groups in
// `groups` (the nl_groups bit mask: bit N-1 for group N).
using NetlinkOpenFn =
    std::function<Status(int protocol, uint32_t groups, std::unique_ptr<NetlinkSocket>* out)>;
Status OpenNetlinkSocket(int protocol, uint32_t groups, std::unique_ptr<NetlinkSocket>* out);

// What one drain of a socket saw besides the datagrams it handed on.
struct NetlinkDrainResult {
  uint64_t overflows = 0;  // -ENOBUFS: the kernel dropped messages
  uint64_t errors = 0;     // receive errors, datagrams too large for the buffer
  uint64_t foreign = 0;    // datagrams not from the kernel, dropped
  int last_error = 0;      // errno of the last receive error
};
// Reads at most `burst` datagrams from `socket` (so one busy socket does
// not starve the loop; epoll reports it again) into a buffer of
// `buffer_size` bytes, and hands each one the kernel sent to `handle`.
// Stops when the socket is empty or on a receive error other than an
// oversized datagram.
NetlinkDrainResult DrainNetlinkSocket(NetlinkSocket* socket, size_t buffer_size, int burst,
                                      const std::function<void(const uint8_t*, size_t)>& handle);

// The nl_groups bit of multicast group `group` (groups count from 1).
constexpr uint32_t NetlinkGroupBit(unsigned group) { return group ? 1u << (group - 1) : 0; }

}  // namespace ssa

#endif
