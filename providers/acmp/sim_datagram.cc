// sim_datagram.cc: unix-datagram-socket backend of the datagram transport
// (layout and header in sim_datagram.h).
#include "providers/acmp/sim_datagram.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#include "common/base/big_endian.h"
#include "common/base/raw_fd.h"

namespace ssa {
namespace dgram {

namespace {

constexpr uint8_t kMagic[4] = {'I', 'B', 'D', 'G'};
constexpr uint8_t kVersion = 1;
constexpr uint8_t kFlagGrh = 1;
constexpr uint8_t kFlagMulticast = 2;
// QPNs probed before Open gives up (one fabric directory holds a handful
// of endpoints per LID).
constexpr uint32_t kQpnProbeLimit = 4096;

Status MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0777) == 0 || errno == EEXIST) return Status::Ok();
  return Status::FromErrno("mkdir " + path);
}

std::string MemberName(uint16_t lid, uint32_t qpn) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%u.%x", lid, qpn);
  return buf;
}

// True if `path` names a socket file that nobody has bound any more.
bool IsDeadSocket(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un sa = {};
  sa.sun_family = AF_UNIX;
  snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path.c_str());
  bool dead =
      connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) < 0 && errno == ECONNREFUSED;
  RawClose(fd);
  return dead;
}

bool PkeysMatch(uint16_t a, uint16_t b) {
  return (a & 0x7fff) == (b & 0x7fff) && (a & 0x7fff) != 0 && ((a | b) & 0x8000);
}

class SimEndpoint : public DatagramEndpoint {
 public:
  SimEndpoint(const std::string& dir, const EndpointParams& params) : dir_(dir), params_(params) {}
  ~SimEndpoint() override {
    for (const Gid& g : joined_) unlink(MemberPath(g).c_str());
    if (fd_ >= 0) RawClose(fd_);
    if (!path_.empty()) unlink(path_.c_str());
  }
  SimEndpoint(const SimEndpoint&) = delete;
  SimEndpoint& operator=(const SimEndpoint&) = delete;

  Status Open() {
    Status st = MakeDir(dir_);
    if (st.ok()) st = MakeDir(dir_ + "/ud");
    if (st.ok()) st = MakeDir(dir_ + "/mc");
    if (!st.ok()) return st;
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return Status::FromErrno("socket(AF_UNIX, SOCK_DGRAM)");
    for (uint32_t qpn = kSimFirstQpn; qpn < kSimFirstQpn + kQpnProbeLimit; ++qpn) {
      std::string path = SocketPath(params_.lid, qpn);
      sockaddr_un sa;
      if (!Address(path, &sa)) return Status::Error(ENAMETOOLONG, "socket path too long: " + path);
      if (bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0) {
        qpn_ = qpn;
        path_ = path;
        return Status::Ok();
      }
      if (errno != EADDRINUSE) return Status::FromErrno("bind " + path);
      // Left behind by an endpoint that is gone: reclaim the name.
      if (IsDeadSocket(path) && unlink(path.c_str()) == 0 &&
          bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0) {
        qpn_ = qpn;
        path_ = path;
        return Status::Ok();
      }
    }
    return Status::Error(EADDRINUSE, "no free QPN for LID " + std::to_string(params_.lid) +
                                         " under " + dir_ + "/ud");
  }

  uint32_t qpn() const override { return qpn_; }
  const EndpointParams& params() const override { return params_; }
  int fd() const override { return fd_; }

  Status Send(const UnicastTarget& to, const uint8_t* data, size_t len) override {
    uint8_t buf[kSimHeaderSize + kMaxPayload];
    Status st = Frame(to.av, to.qpn, to.qkey, false, data, len, buf);
    if (!st.ok()) return st;
    ++stats_.sent;
    Deliver(SocketPath(to.av.dlid, to.qpn), buf, kSimHeaderSize + len, nullptr);
    return Status::Ok();
  }

  Status SendToGroup(const Group& group, const uint8_t* data, size_t len) override {
    uint8_t buf[kSimHeaderSize + kMaxPayload];
    AddressVector av = group.av;
    av.global = true;
    av.dgid = group.mgid;
    av.dlid = group.mlid;
    Status st = Frame(av, kMulticastQpn, params_.qkey, true, data, len, buf);
    if (!st.ok()) return st;
    std::string gdir = GroupDir(group.mgid);
    DIR* d = opendir(gdir.c_str());
    if (!d) {
      ++stats_.send_errors;
      return Status::FromErrno("group " + GidText(group.mgid) + ": opendir " + gdir);
    }
    std::vector<std::string> members;
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') members.emplace_back(e->d_name);
    closedir(d);
    ++stats_.sent;
    for (const std::string& m : members) {
      std::string member_file = gdir + "/" + m;
      Deliver(dir_ + "/ud/" + m, buf, kSimHeaderSize + len, &member_file);
    }
    return Status::Ok();
  }

  Status Join(const Group& group) override {
    Status st = MakeDir(GroupDir(group.mgid));
    if (!st.ok()) return st;
    int fd = open(MemberPath(group.mgid).c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0) return Status::FromErrno("join " + GidText(group.mgid));
    RawClose(fd);
    joined_.insert(group.mgid);
    return Status::Ok();
  }

  Status Leave(const Group& group) override {
    if (!joined_.erase(group.mgid)) return Status::Error(ENOENT, "not a member");
    if (unlink(MemberPath(group.mgid).c_str()) < 0 && errno != ENOENT)
      return Status::FromErrno("leave " + GidText(group.mgid));
    return Status::Ok();
  }

  bool Receive(Datagram* out) override {
    uint8_t buf[kSimHeaderSize + kMaxPayload + 1];
    for (;;) {
      ssize_t n = recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
      if (n < 0) return false;  // EAGAIN: nothing more now
      RejectReason why = RejectReason::kCount;
      if (Parse(buf, static_cast<size_t>(n), out, &why)) {
        ++stats_.received;
        return true;
      }
      ++stats_.rejected;
      ++stats_.rejected_by[static_cast<int>(why)];
    }
  }

  const EndpointStats& stats() const override { return stats_; }

 private:
  struct GidLess {
    bool operator()(const Gid& a, const Gid& b) const { return memcmp(a.raw, b.raw, 16) < 0; }
  };

  std::string SocketPath(uint16_t lid, uint32_t qpn) const {
    return dir_ + "/ud/" + MemberName(lid, qpn);
  }
  std::string GroupDir(const Gid& mgid) const { return dir_ + "/mc/" + MgidDirName(mgid); }
  std::string MemberPath(const Gid& mgid) const {
    return GroupDir(mgid) + "/" + MemberName(params_.lid, qpn_);
  }
  static bool Address(const std::string& path, sockaddr_un* sa) {
    *sa = {};
    sa->sun_family = AF_UNIX;
    if (path.size() >= sizeof(sa->sun_path)) return false;
    memcpy(sa->sun_path, path.c_str(), path.size() + 1);
    return true;
  }

  Status Frame(const AddressVector& av, uint32_t dest_qpn, uint32_t qkey, bool multicast,
               const uint8_t* data, size_t len, uint8_t* buf) {
    if (len > kMaxPayload) {
      ++stats_.send_errors;
      return Status::Error(EMSGSIZE, std::to_string(len) + "-byte datagram (at most " +
                                         std::to_string(kMaxPayload) + ")");
    }
    memset(buf, 0, kSimHeaderSize);
    memcpy(buf, kMagic, 4);
    buf[4] = kVersion;
    buf[5] = static_cast<uint8_t>((av.global ? kFlagGrh : 0) | (multicast ? kFlagMulticast : 0));
    PutBe16(buf + 6, static_cast<uint16_t>(len));
    PutBe16(buf + 8, static_cast<uint16_t>(params_.lid | av.src_path_bits));
    PutBe16(buf + 10, av.dlid);
    PutBe32(buf + 12, qpn_);
    PutBe32(buf + 16, dest_qpn);
    // UD: a Q_Key with the high bit set means "use the QP's own Q_Key".
    PutBe32(buf + 20, (qkey & 0x80000000u) ? params_.qkey : qkey);
    PutBe16(buf + 24, params_.pkey);
    buf[26] = av.sl;
    memcpy(buf + 28, params_.gid.raw, 16);
    memcpy(buf + 44, av.dgid.raw, 16);
    memcpy(buf + kSimHeaderSize, data, len);
    return Status::Ok();
  }

  // Sends one framed datagram to the socket at `path`; a receiver that is
  // gone (or whose queue is full) loses it, as on the wire. `member_file`:
  // the group member entry to remove if its socket is dead.
  void Deliver(const std::string& path, const uint8_t* buf, size_t len,
               const std::string* member_file) {
    sockaddr_un sa;
    if (!Address(path, &sa)) {
      ++stats_.undeliverable;
      return;
    }
    if (sendto(fd_, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&sa),
               sizeof(sa)) >= 0)
      return;
    ++stats_.undeliverable;
    if (member_file && (errno == ECONNREFUSED || errno == ENOENT)) unlink(member_file->c_str());
  }

  // False, with the reason, for what an HCA would drop.
  bool Parse(const uint8_t* buf, size_t n, Datagram* out, RejectReason* why) const {
    *why = RejectReason::kBadHeader;
    if (n < kSimHeaderSize || memcmp(buf, kMagic, 4) != 0 || buf[4] != kVersion) return false;
    size_t len = GetBe16(buf + 6);
    if (len > kMaxPayload || n != kSimHeaderSize + len) return false;
    bool multicast = (buf[5] & kFlagMulticast) != 0;
    uint32_t dest_qpn = GetBe32(buf + 16);
    Gid dgid;
    memcpy(dgid.raw, buf + 44, 16);
    *why = RejectReason::kWrongQpn;
    if (multicast ? dest_qpn != kMulticastQpn : dest_qpn != qpn_) return false;
    *why = RejectReason::kNotMember;
    if (multicast && !joined_.count(dgid)) return false;
    *why = RejectReason::kWrongQkey;
    if (GetBe32(buf + 20) != params_.qkey) return false;
    *why = RejectReason::kWrongPkey;
    if (!PkeysMatch(GetBe16(buf + 24), params_.pkey)) return false;
    out->len = len;
    memcpy(out->data, buf + kSimHeaderSize, len);
    out->slid = GetBe16(buf + 8);
    out->src_qpn = GetBe32(buf + 12);
    out->sl = buf[26] & 0xf;
    out->dlid_path_bits = static_cast<uint8_t>(GetBe16(buf + 10) & ((1u << params_.lmc) - 1));
    out->has_grh = (buf[5] & kFlagGrh) != 0;
    memcpy(out->sgid.raw, buf + 28, 16);
    out->dgid = dgid;
    out->multicast = multicast;
    return true;
  }

  std::string dir_;
  EndpointParams params_;
  int fd_ = -1;
  uint32_t qpn_ = 0;
  std::string path_;
  std::set<Gid, GidLess> joined_;
  EndpointStats stats_;
};

class SimTransport : public DatagramTransport {
 public:
  explicit SimTransport(const std::string& dir) : dir_(dir) {}
  const char* name() const override { return "sim"; }
  Status Open(const EndpointParams& params, std::unique_ptr<DatagramEndpoint>* out) override {
    if (!params.lid) return Status::Error(EINVAL, "endpoint without a LID");
    auto ep = std::make_unique<SimEndpoint>(dir_, params);
    Status st = ep->Open();
    if (!st.ok()) return st.WithContext("simulated UD endpoint under " + dir_);
    *out = std::move(ep);
    return Status::Ok();
  }

 private:
  std::string dir_;
};

}  // namespace

std::unique_ptr<DatagramTransport> MakeSimDatagramTransport(const std::string& dir) {
  return std::make_unique<SimTransport>(dir);
}

std::string MgidDirName(const Gid& mgid) {
  char buf[33];
  for (int i = 0; i < 16; ++i) snprintf(buf + 2 * i, 3, "%02x", mgid.raw[i]);
  return buf;
}

std::string DefaultSimDatagramDir() {
  const char* fabric = getenv("SIMFAB_DIR");
  if (fabric && *fabric) return std::string(fabric) + "/acmp-dgram";
  const char* tmp = getenv("TMPDIR");
  std::string base = tmp && *tmp ? tmp : "/tmp";
  const char* sock = getenv("IBSIM_SOCKNAME");
  std::string tag = sock && *sock ? sock : "default";
  for (char& c : tag)
    if (c == '/') c = '_';
  return base + "/ibacm-acmp-dgram-" + tag;
}

}  // namespace dgram
}  // namespace ssa
