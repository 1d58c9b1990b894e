// sim_slots.cc: flock-based attach slots.
#include "test/sim/sim_slots.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace ssa {
namespace test {
namespace {

std::string ReadFd(int fd) {
  std::string text;
  char buf[1024];
  off_t off = 0;
  for (;;) {
    ssize_t n = pread(fd, buf, sizeof(buf), off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    off += n;
  }
  return text;
}

SlotHolder ParseHolder(int index, const std::string& text) {
  SlotHolder h;
  h.index = index;
  std::istringstream in(text);
  in >> h.pid >> h.node;
  std::getline(in, h.command);
  size_t start = h.command.find_first_not_of(' ');
  h.command = start == std::string::npos ? "" : h.command.substr(start);
  return h;
}

}  // namespace

SlotClaim::~SlotClaim() {
  if (fd_ >= 0) close(fd_);
}

SlotClaim& SlotClaim::operator=(SlotClaim&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    index_ = other.index_;
    fd_ = other.fd_;
    previous_pid_ = other.previous_pid_;
    reap_advised_ = other.reap_advised_;
    other.fd_ = -1;
    other.index_ = -1;
  }
  return *this;
}

Status SlotClaim::SetHolder(pid_t pid, const std::string& node, const std::string& command) {
  std::string line = std::to_string(pid) + " " + node + " " + command + "\n";
  if (ftruncate(fd_, 0) != 0 || pwrite(fd_, line.data(), line.size(), 0) < 0)
    return Status::FromErrno("cannot record the holder of attach slot " + std::to_string(index_));
  return Status::Ok();
}

Status AttachSlots::Create() {
  if (mkdir(dir_.c_str(), 0755) != 0 && errno != EEXIST)
    return Status::FromErrno("cannot create " + dir_);
  for (int i = 0; i < kCount; ++i) {
    int fd = open(SlotPath(i).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return Status::FromErrno("cannot create " + SlotPath(i));
    close(fd);
  }
  return Status::Ok();
}

bool AttachSlots::TryClaim(int index, SlotClaim* claim) {
  int fd = open(SlotPath(index).c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return false;
  }
  SlotHolder previous = ParseHolder(index, ReadFd(fd));
  if (ftruncate(fd, 0) != 0) {
    close(fd);
    return false;
  }
  SlotClaim fresh;
  fresh.index_ = index;
  fresh.fd_ = fd;
  fresh.previous_pid_ = previous.pid;
  *claim = std::move(fresh);
  return true;
}

Status AttachSlots::Claim(SlotClaim* claim) {
  // Two passes: Holders() in another process briefly share-locks free slots
  // while it looks, which can make a free slot look taken for a moment.
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < kCount; ++i)
      if (TryClaim(i, claim)) {
        claim->reap_advised_ = PotentialClients(*claim) > kCount;
        return Status::Ok();
      }
  std::vector<SlotHolder> holders = Holders();
  return Status::Error(EBUSY, "the simulated fabric allows " + std::to_string(kCount) +
                                  " attached processes (OpenSM included); " +
                                  std::to_string(holders.size()) +
                                  " are in use: " + DescribeHolders(holders));
}

int AttachSlots::PotentialClients(const SlotClaim& claim) const {
  int potential = 1 + (claim.previous_pid() > 0 ? 1 : 0);
  for (int i = 0; i < kCount; ++i) {
    if (i == claim.index()) continue;
    int fd = open(SlotPath(i).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    // Held (or being looked at by someone else: count it, the safe side), or
    // free but naming a previous holder that may have died uncleanly.
    if (flock(fd, LOCK_SH | LOCK_NB) != 0 || ParseHolder(i, ReadFd(fd)).pid > 0) ++potential;
    close(fd);
  }
  return potential;
}

std::vector<SlotHolder> AttachSlots::Holders() const {
  std::vector<SlotHolder> holders;
  for (int i = 0; i < kCount; ++i) {
    int fd = open(SlotPath(i).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
      close(fd);  // free: nobody holds it exclusively
      continue;
    }
    holders.push_back(ParseHolder(i, ReadFd(fd)));
    close(fd);
  }
  return holders;
}

std::string AttachSlots::DescribeHolders(const std::vector<SlotHolder>& holders) {
  std::string out;
  for (const SlotHolder& h : holders) {
    if (!out.empty()) out += "; ";
    out += "slot " + std::to_string(h.index) + ": ";
    out += h.pid ? "pid " + std::to_string(h.pid) + " on " + h.node + ": " + h.command
                 : std::string("(starting)");
  }
  return out.empty() ? "(none)" : out;
}

}  // namespace test
}  // namespace ssa
