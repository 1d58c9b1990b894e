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
  // Not smdb::WriteFileAtomically: IBSSA_SHM_DIR is world-writable, so the
  // temporary name may be anybody's. O_EXCL | O_NOFOLLOW never writes
  // through a file or link someone else put there; such a thing is removed
  // (the sticky bit lets the daemon's user remove only what it may) and
  // the creation tried once more.
  std::string tmp = path_ + ".tmp";
  int flags = O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
  int fd = open(tmp.c_str(), flags, 0644);
  if (fd < 0 && errno == EEXIST && unlink(tmp.c_str()) == 0) fd = open(tmp.c_str(), flags, 0644);
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
  // Readers of any user may map it, nobody but the daemon's user may write
  // it (readers check both): whatever the umask took away or left.
  fchmod(fd, 0644);
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
