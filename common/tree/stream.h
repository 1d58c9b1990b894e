// stream.h: the data channel's byte streams, behind an interface so the
// same parent and child code runs over TCP (everywhere: IPoIB on a real
// fabric, loopback on the simulated one), rsockets (RDMA fabrics), or a
// test's fault-injecting wrapper (stream_faults.h).
//
// Streams are non-blocking; fd() is what the owner watches on its Reactor
// (readable, writable). Read/Write return the bytes moved, 0 from Read at
// end of stream, or a negative errno (-EAGAIN: try when the fd is ready).
//
// Ownership: a Stream owns its connection and closes it on destruction.
// Loop thread only.
#ifndef IBACM_SSA_COMMON_TREE_STREAM_H
#define IBACM_SSA_COMMON_TREE_STREAM_H

#include <sys/types.h>

#include <memory>
#include <string>

#include "common/base/status.h"
#include "common/tree/ssa_mad.h"

namespace ssa {
namespace tree {

class Stream {
 public:
  virtual ~Stream() = default;
  virtual int fd() const = 0;
  // After a non-blocking connect, once fd() is writable: OK when
  // connected, else why not.
  virtual Status FinishConnect() = 0;
  virtual ssize_t Read(void* buf, size_t len) = 0;
  virtual ssize_t Write(const void* buf, size_t len) = 0;
  // "10.0.0.2:45678"
  virtual std::string peer() const = 0;
};

class StreamListener {
 public:
  virtual ~StreamListener() = default;
  virtual int fd() const = 0;
  // -EAGAIN when nobody is waiting.
  virtual Status Accept(std::unique_ptr<Stream>* out) = 0;
  // The address bound (the real port when 0 was asked for).
  virtual DataAddress address() const = 0;
};

class StreamTransport {
 public:
  virtual ~StreamTransport() = default;
  virtual Status Listen(const DataAddress& address, std::unique_ptr<StreamListener>* out) = 0;
  // Starts a non-blocking connect; see Stream::FinishConnect.
  virtual Status Connect(const DataAddress& address, std::unique_ptr<Stream>* out) = 0;
  virtual const char* name() const = 0;
};

// TCP (TCP_NODELAY, SO_REUSEADDR, close-on-exec).
std::unique_ptr<StreamTransport> NewTcpTransport();
// librdmacm rsockets; fails at Listen/Connect without an RDMA device.
std::unique_ptr<StreamTransport> NewRsocketTransport();
// "tcp" or "rsocket".
Status NewStreamTransport(const std::string& name, std::unique_ptr<StreamTransport>* out);

}  // namespace tree
}  // namespace ssa

#endif
