// umad_transport.cc: libibumad MadTransport (direct fd or receiver-thread
// bridge, see umad_transport.h).
#include "common/mad/umad_transport.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <infiniband/umad.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/base/big_endian.h"
#include "common/mad/umad_ports.h"

namespace ssa {

namespace {
// How long the bridge thread blocks in one umad_recv() before it looks at
// the stop flag again; bounds Close() latency. Not a synchronisation sleep:
// MADs wake the thread at once.
constexpr int kBridgePollMs = 50;
// Queue bound for the bridge: SA traffic is bounded by the client's depth,
// so only a flood of strays could fill it.
constexpr size_t kBridgeQueueMax = 4096;
// Consecutive hard umad_recv() errors after which the bridge gives up.
constexpr int kBridgeMaxErrors = 1000;
}  // namespace

bool UmadTransport::UnderUmad2sim() {
  // umad2sim exports its client entry points; nothing else does.
  return dlsym(RTLD_DEFAULT, "sim_client_init") != nullptr;
}

UmadTransport::UmadTransport(std::string ca_name, int port_num, Logger* logger)
    : ca_name_(std::move(ca_name)), port_num_(port_num), logger_(logger) {}

UmadTransport::~UmadTransport() { Close(); }

int UmadTransport::fd() const {
  if (portid_ < 0) return -1;
  return bridged_ ? event_fd_ : umad_get_fd(portid_);
}

Status UmadTransport::Open(uint8_t mgmt_class, uint8_t class_version) {
  if (portid_ >= 0) return Status::Error(EBUSY, "umad transport already open");
  Status st = UmadInitOnce();
  if (!st.ok()) return st;
  std::string where = (ca_name_.empty() ? std::string("default CA") : ca_name_) + " port " +
                      std::to_string(port_num_);
  portid_ = umad_open_port(ca_name_.empty() ? nullptr : ca_name_.c_str(), port_num_);
  if (portid_ < 0) {
    int err = portid_;
    portid_ = -1;
    return Status::Error(err, "umad_open_port(" + where + ") failed");
  }
  agent_ = umad_register(portid_, mgmt_class, class_version, 0, nullptr);
  if (agent_ < 0) {
    int err = agent_;
    agent_ = -1;
    umad_close_port(portid_);
    portid_ = -1;
    char what[96];
    snprintf(what, sizeof(what), "umad_register(class 0x%02x v%u) on %s failed", mgmt_class,
             class_version, where.c_str());
    return Status::Error(err, what);
  }
  send_buf_.assign(umad_size() + mad::kMadSize, 0);
  recv_buf_.assign(umad_size() + mad::kMadSize, 0);

  int ufd = umad_get_fd(portid_);
  struct stat sb;
  bridged_ = UnderUmad2sim() || fstat(ufd, &sb) < 0 || !S_ISCHR(sb.st_mode);
  if (bridged_) {
    event_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (event_fd_ < 0) {
      st = Status::FromErrno("eventfd");
      Close();
      return st;
    }
    stop_ = false;
    receiver_ = std::thread([this] { ReceiverThread(); });
  } else {
    int flags = fcntl(ufd, F_GETFL);
    if (flags < 0 || fcntl(ufd, F_SETFL, flags | O_NONBLOCK) < 0) {
      st = Status::FromErrno("fcntl(O_NONBLOCK) on umad fd");
      Close();
      return st;
    }
  }
  SSA_LOG(*logger_, kDebug, "umad transport %s: agent %d class 0x%02x, %s", where.c_str(), agent_,
          mgmt_class, bridged_ ? "bridged (umad2sim)" : "direct fd");
  return Status::Ok();
}

void UmadTransport::Close() {
  if (receiver_.joinable()) {
    stop_ = true;
    receiver_.join();
  }
  if (event_fd_ >= 0) {
    close(event_fd_);
    event_fd_ = -1;
  }
  {
    MutexLock lock(&inbox_mutex_);
    inbox_.clear();
  }
  // umad2sim's own receive thread looks up the agent of every MAD that
  // arrives by its class, and dereferences the result unchecked: a MAD for
  // a class nobody holds (an SA answer to a request cancelled at shutdown,
  // arriving after umad_unregister or umad_close_port) crashes the whole
  // process (SIGSEGV in pthread_mutex_lock on its thread; seen as ibacm
  // exiting with 139). Under umad2sim the agent and the port therefore
  // stay until the process ends: late MADs queue on a descriptor nobody
  // reads, and umad2sim's exit handler frees them.
  if (portid_ >= 0 && !UnderUmad2sim()) {
    if (agent_ >= 0) umad_unregister(portid_, agent_);
    umad_close_port(portid_);
  }
  agent_ = -1;
  portid_ = -1;
}

Status UmadTransport::Send(const uint8_t* mad, size_t len, const MadAddress& to,
                           int response_timeout_ms) {
  if (portid_ < 0) return Status::Error(ENOTCONN, "umad transport not open");
  if (len == 0 || len > mad::kMadSize)
    return Status::Error(EINVAL, "MAD length " + std::to_string(len) + " not in 1..256");
  std::fill(send_buf_.begin(), send_buf_.end(), 0);
  void* umad = send_buf_.data();
  memcpy(umad_get_mad(umad), mad, len);
  umad_set_addr(umad, to.dlid, static_cast<int>(to.qpn), to.sl, static_cast<int>(to.qkey));
  umad_set_pkey(umad, to.pkey_index);
  int rc = umad_send(portid_, agent_, umad, static_cast<int>(len), response_timeout_ms, 0);
  if (rc < 0) return Status::Error(rc, "umad_send to LID " + std::to_string(to.dlid) + " failed");
  return Status::Ok();
}

Status UmadTransport::Receive(ReceivedMad* out) {
  if (portid_ < 0) return Status::Error(ENOTCONN, "umad transport not open");
  return bridged_ ? ReceiveBridged(out) : ReceiveDirect(out);
}

Status UmadTransport::ReceiveDirect(ReceivedMad* out) {
  void* umad = recv_buf_.data();
  int len = static_cast<int>(mad::kMadSize);
  int rc = umad_recv(portid_, umad, &len, 0);
  if (rc == -EAGAIN || rc == -EWOULDBLOCK) return Status::Error(EAGAIN, "no MAD waiting");
  if (rc < 0) return Status::Error(rc, "umad_recv failed");
  out->len = len < 0 ? 0 : std::min(static_cast<size_t>(len), mad::kMadSize);
  memcpy(out->data, umad_get_mad(umad), out->len);
  out->transport_status = umad_status(umad);
  out->slid = FromBe16(umad_get_mad_addr(umad)->lid);
  return Status::Ok();
}

Status UmadTransport::ReceiveBridged(ReceivedMad* out) {
  MutexLock lock(&inbox_mutex_);
  if (inbox_.empty()) {
    // Reset the eventfd while holding the lock: the thread writes it under
    // the same lock after each push, so no wakeup is lost.
    uint64_t count;
    ssize_t n = read(event_fd_, &count, sizeof(count));
    (void)n;
    return Status::Error(EAGAIN, "no MAD waiting");
  }
  *out = inbox_.front();
  inbox_.pop_front();
  return Status::Ok();
}

void UmadTransport::ReceiverThread() {
  std::vector<uint8_t> buf(umad_size() + mad::kMadSize);
  int errors = 0;
  while (!stop_.load()) {
    void* umad = buf.data();
    int len = static_cast<int>(mad::kMadSize);
    int rc = umad_recv(portid_, umad, &len, kBridgePollMs);
    if (rc == -ETIMEDOUT || rc == -EAGAIN || rc == -EWOULDBLOCK) {
      errors = 0;
      continue;
    }
    if (rc < 0) {
      // umad2sim's poll() reports a spurious condition-variable wakeup as
      // an error (-EIO here); only a long run of them is a real failure.
      if (++errors >= kBridgeMaxErrors) {
        SSA_LOG(*logger_, kError,
                "umad receiver for %s port %d: umad_recv keeps failing (%s), stopping",
                ca_name_.c_str(), port_num_, strerror(-rc));
        return;
      }
      continue;
    }
    errors = 0;
    ReceivedMad rx;
    rx.len = len < 0 ? 0 : std::min(static_cast<size_t>(len), mad::kMadSize);
    memcpy(rx.data, umad_get_mad(umad), rx.len);
    rx.transport_status = umad_status(umad);
    rx.slid = FromBe16(umad_get_mad_addr(umad)->lid);
    MutexLock lock(&inbox_mutex_);
    if (inbox_.size() >= kBridgeQueueMax) {
      if (bridge_drops_.fetch_add(1) == 0)
        SSA_LOG(*logger_, kWarn, "umad receiver for %s port %d: queue full, dropping MADs",
                ca_name_.c_str(), port_num_);
      continue;
    }
    inbox_.push_back(rx);
    uint64_t one = 1;
    ssize_t n = write(event_fd_, &one, sizeof(one));
    (void)n;
  }
}

}  // namespace ssa
