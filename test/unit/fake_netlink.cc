// fake_netlink.cc: see fake_netlink.h.
#include "test/unit/fake_netlink.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ssa {
namespace testing {

namespace {
// What the code under test holds: forwards to the test's FakeNetlinkSocket.
class Forwarder : public NetlinkSocket {
 public:
  explicit Forwarder(std::shared_ptr<FakeNetlinkSocket> s) : s_(std::move(s)) {}
  int fd() const override { return s_->fd(); }
  ssize_t Receive(uint8_t* buf, size_t len, bool* from_kernel) override {
    return s_->Receive(buf, len, from_kernel);
  }
  Status Send(const uint8_t* buf, size_t len) override { return s_->Send(buf, len); }

 private:
  std::shared_ptr<FakeNetlinkSocket> s_;
};
}  // namespace

FakeNetlinkSocket::FakeNetlinkSocket() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

FakeNetlinkSocket::~FakeNetlinkSocket() { close(fd_); }

ssize_t FakeNetlinkSocket::Receive(uint8_t* buf, size_t len, bool* from_kernel) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (queue_.empty()) {
    uint64_t v;
    while (read(fd_, &v, sizeof(v)) == sizeof(v)) {
    }
    return 0;
  }
  Item item = std::move(queue_.front());
  queue_.pop_front();
  if (item.error) return -item.error;
  *from_kernel = item.from_kernel;
  if (item.data.size() > len) return -EMSGSIZE;
  std::memcpy(buf, item.data.data(), item.data.size());
  return static_cast<ssize_t>(item.data.size());
}

Status FakeNetlinkSocket::Send(const uint8_t* buf, size_t len) {
  if (send_error_) return Status::Error(send_error_, "fake netlink send");
  std::lock_guard<std::mutex> lock(mutex_);
  sent_.emplace_back(buf, buf + len);
  return Status::Ok();
}

void FakeNetlinkSocket::Inject(const std::vector<uint8_t>& datagram, bool from_kernel) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Item item;
    item.data = datagram;
    item.from_kernel = from_kernel;
    queue_.push_back(std::move(item));
  }
  uint64_t one = 1;
  if (write(fd_, &one, sizeof(one)) != sizeof(one)) std::abort();
}

void FakeNetlinkSocket::InjectError(int error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Item item;
    item.error = error;
    queue_.push_back(std::move(item));
  }
  uint64_t one = 1;
  if (write(fd_, &one, sizeof(one)) != sizeof(one)) std::abort();
}

std::vector<std::vector<uint8_t>> FakeNetlinkSocket::sent() {
  std::lock_guard<std::mutex> lock(mutex_);
  return sent_;
}

size_t FakeNetlinkSocket::sent_count() {
  std::lock_guard<std::mutex> lock(mutex_);
  return sent_.size();
}

NetlinkOpenFn FakeNetlink::Opener() {
  return [this](int protocol, uint32_t groups, std::unique_ptr<NetlinkSocket>* out) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = refused_.find(protocol);
    if (it != refused_.end()) {
      errno = it->second;
      return Status::FromErrno("netlink socket (protocol " + std::to_string(protocol) + ")");
    }
    auto sock = std::make_shared<FakeNetlinkSocket>();
    sock->groups = groups;
    sockets_[protocol] = sock;
    out->reset(new Forwarder(sock));
    return Status::Ok();
  };
}

FakeNetlinkSocket* FakeNetlink::socket(int protocol) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = sockets_.find(protocol);
  return it == sockets_.end() ? nullptr : it->second.get();
}

void FakeLinks::AddIpoib(int ifindex, const std::string& name, uint64_t port_guid, uint16_t pkey) {
  LinkInfo l;
  l.ifname = name;
  l.type = 32;  // ARPHRD_INFINIBAND
  l.ipoib = true;
  l.gid_prefix = 0xfe80000000000000ULL;
  l.port_guid = port_guid;
  l.pkey = pkey;
  std::lock_guard<std::mutex> lock(mutex_);
  links_[ifindex] = l;
}

void FakeLinks::AddOther(int ifindex, const std::string& name, int arphrd_type) {
  LinkInfo l;
  l.ifname = name;
  l.type = arphrd_type;
  std::lock_guard<std::mutex> lock(mutex_);
  links_[ifindex] = l;
}

void FakeLinks::Remove(int ifindex) {
  std::lock_guard<std::mutex> lock(mutex_);
  links_.erase(ifindex);
}

bool FakeLinks::Lookup(int ifindex, LinkInfo* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = links_.find(ifindex);
  if (it == links_.end()) return false;
  *out = it->second;
  return true;
}

}  // namespace testing
}  // namespace ssa
