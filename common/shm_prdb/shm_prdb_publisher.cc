// shm_prdb_publisher.cc: see shm_prdb_publisher.h.
#include "common/shm_prdb/shm_prdb_publisher.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/shm_prdb/shm_prdb_format.h"

namespace ssa {
namespace shm_prdb {

TablePublisher::TablePublisher(const std::string& socket_path) {
  char name[4200];
  if (ibssa_shm_object_name(socket_path.c_str(), name, sizeof(name)) == 0) path_ = name;
}

Status TablePublisher::Publish(const std::string& object) {
  if (path_.empty()) return Status::Error(ENAMETOOLONG, "no name for the path tables");
  std::string tmp = path_ + ".tmp-" + std::to_string(getpid());
  // 0444: readers map it read-only; nobody writes a published object.
  int fd = open(tmp.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0444);
  if (fd < 0) return Status::Error(errno, "cannot create " + tmp + ": " + strerror(errno));
  size_t done = 0;
  while (done < object.size()) {
    ssize_t n = write(fd, object.data() + done, object.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      close(fd);
      unlink(tmp.c_str());
      return Status::Error(err, "cannot write " + tmp + ": " + strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  // A umask may have taken bits away; readers of other users need 0444.
  fchmod(fd, 0444);
  close(fd);
  if (rename(tmp.c_str(), path_.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return Status::Error(err, "cannot publish " + path_ + ": " + strerror(err));
  }
  published_ = true;
  return Status::Ok();
}

void TablePublisher::Withdraw() {
  if (!published_) return;
  unlink(path_.c_str());
  published_ = false;
}

}  // namespace shm_prdb
}  // namespace ssa
