// fake_netlink.h: an in-memory NetlinkSocket for tests (the seam of
// core/netlink/netlink_socket.h). Inject() queues a datagram "from the
// kernel" (or from another process) and makes the fd readable; what the
// code under test sends is kept in sent(). The fd is an eventfd, so the
// socket sits in a real EventLoop like the real one. Inject/sent are
// guarded by a mutex: a test thread may feed a daemon running on another.
//
// FakeLinks stands in for sysfs (core/addr_watch/link_info.h): the
// interfaces a test declares, by index.
//
// FakeNetlink is the factory a test hands over as the NetlinkOpenFn: the
// code under test gets a NetlinkSocket that forwards to a FakeNetlinkSocket
// the factory keeps (by protocol), so what was sent can still be read after
// the code under test closed its socket. It can refuse a protocol the way a
// kernel without it does.
#ifndef IBACM_SSA_TEST_UNIT_FAKE_NETLINK_H
#define IBACM_SSA_TEST_UNIT_FAKE_NETLINK_H

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/addr_watch/link_info.h"
#include "core/netlink/netlink_socket.h"

namespace ssa {
namespace testing {

class FakeNetlinkSocket {
 public:
  FakeNetlinkSocket();
  ~FakeNetlinkSocket();
  FakeNetlinkSocket(const FakeNetlinkSocket&) = delete;
  FakeNetlinkSocket& operator=(const FakeNetlinkSocket&) = delete;

  // The NetlinkSocket side.
  int fd() const { return fd_; }
  ssize_t Receive(uint8_t* buf, size_t len, bool* from_kernel);
  Status Send(const uint8_t* buf, size_t len);

  // A datagram for Receive(); `error` instead delivers -error (ENOBUFS).
  void Inject(const std::vector<uint8_t>& datagram, bool from_kernel = true);
  void InjectError(int error);
  std::vector<std::vector<uint8_t>> sent();
  size_t sent_count();
  void set_send_error(int error) { send_error_ = error; }
  uint32_t groups = 0;  // as opened

 private:
  struct Item {
    std::vector<uint8_t> data;
    bool from_kernel = true;
    int error = 0;
  };
  int fd_;
  std::mutex mutex_;  // guards queue_ and sent_
  std::deque<Item> queue_;
  std::vector<std::vector<uint8_t>> sent_;
  int send_error_ = 0;
};

class FakeNetlink {
 public:
  // The NetlinkOpenFn to hand over; the sockets stay owned by their user.
  NetlinkOpenFn Opener();
  // Opening `protocol` fails with `error` (EPROTONOSUPPORT: no such
  // netlink family in this kernel).
  void Refuse(int protocol, int error) { refused_[protocol] = error; }
  // The socket last opened for `protocol`, or null. Valid while the
  // FakeNetlink lives.
  FakeNetlinkSocket* socket(int protocol);

 private:
  std::mutex mutex_;
  std::map<int, int> refused_;
  std::map<int, std::shared_ptr<FakeNetlinkSocket>> sockets_;
};

class FakeLinks : public LinkInfoSource {
 public:
  // An IPoIB interface on the port with GUID `port_guid` (prefix fe80::).
  void AddIpoib(int ifindex, const std::string& name, uint64_t port_guid, uint16_t pkey);
  void AddOther(int ifindex, const std::string& name, int arphrd_type);
  void Remove(int ifindex);
  bool Lookup(int ifindex, LinkInfo* out) override;

 private:
  std::mutex mutex_;  // the daemon's loop thread looks up, the test adds
  std::map<int, LinkInfo> links_;
};

}  // namespace testing
}  // namespace ssa

#endif
