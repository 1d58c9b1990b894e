// shm_prdb_publisher.cc: see shm_prdb_publisher.h.
#include "common/shm_prdb/shm_prdb_publisher.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "common/base/file_io.h"
#include "common/base/raw_fd.h"
#include "common/shm_prdb/shm_prdb_format.h"

namespace ssa {
namespace shm_prdb {

TablePublisher::TablePublisher(const std::string& socket_path) {
  char dir[128], name[64];
  if (ibssa_shm_dir(geteuid(), dir, sizeof(dir)) ||
      ibssa_shm_object_name(socket_path.c_str(), name, sizeof(name)))
    return;
  dir_ = dir;
  name_ = name;
  path_ = dir_ + "/" + name_;
}

TablePublisher::~TablePublisher() {
  Withdraw();
  // Readers may be inside a lookup on these for a few more microseconds:
  // only those whose grace has passed are truncated.
  Sweep(Clock::now());
  for (const Retired& r : retired_) RawClose(r.fd);
}

int TablePublisher::OpenDir(Status* st) {
  if (mkdir(dir_.c_str(), 0755) != 0 && errno != EEXIST) {
    *st = Status::Error(errno, "cannot make " + dir_ + ": " + strerror(errno));
    return -1;
  }
  int fd = open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *st = Status::Error(errno, "cannot open " + dir_ + ": " + strerror(errno));
    return -1;
  }
  // Ours but writable by others (a umask, an operator's chmod): mend it.
  struct stat s;
  if (fstat(fd, &s) == 0 && s.st_uid == geteuid() && (s.st_mode & (S_IWGRP | S_IWOTH)))
    fchmod(fd, 0755);
  char why[320];
  if (ibssa_shm_check_dir(fd, dir_.c_str(), geteuid(), why, sizeof(why))) {
    RawClose(fd);
    *st = Status::Error(EPERM, why);
    return -1;
  }
  return fd;
}

void TablePublisher::Retire(int fd) {
  const uint32_t one = 1;
  // The readers' cue to look for the new object; it is outside the
  // checksum. A failed write only means readers notice at their next look.
  (void)!pwrite(fd, &one, sizeof(one), offsetof(struct ibssa_shm_header, retired));
  retired_.push_back({fd, Clock::now()});
}

Status TablePublisher::Publish(const std::string& object) {
  if (path_.empty()) return Status::Error(ENAMETOOLONG, "no name for the path tables");
  Status st;
  int dirfd = OpenDir(&st);
  int fd = -1;
  if (dirfd >= 0) {
    st = WriteFileAtomicallyAt(dirfd, name_, object, FileWriteOptions(), &fd);
    RawClose(dirfd);
  }
  if (!st.ok()) {
    Withdraw();
    return st;
  }
  if (current_fd_ >= 0) Retire(current_fd_);
  current_fd_ = fd;
  Sweep(Clock::now());
  return Status::Ok();
}

void TablePublisher::Withdraw() {
  if (current_fd_ < 0) return;
  // Only this user writes the directory, so the name is still ours; where
  // it cannot be removed the retired mark still turns readers away.
  unlink(path_.c_str());
  Retire(current_fd_);
  current_fd_ = -1;
  Sweep(Clock::now());
}

void TablePublisher::Sweep(Clock::time_point now) {
  const auto grace = std::chrono::milliseconds(IBSSA_SHM_RETIRE_GRACE_MS);
  while (!retired_.empty() && now - retired_.front().at >= grace) {
    // Frees the object's memory whoever keeps it open or mapped.
    (void)!ftruncate(retired_.front().fd, 0);
    RawClose(retired_.front().fd);
    retired_.pop_front();
  }
}

}  // namespace shm_prdb
}  // namespace ssa
