// shm_prdb_publisher.cc: see shm_prdb_publisher.h.
#include "common/shm_prdb/shm_prdb_publisher.h"

#include <unistd.h>

#include <cerrno>

#include "common/base/file_io.h"
#include "common/shm_prdb/shm_prdb_format.h"

namespace ssa {
namespace shm_prdb {

TablePublisher::TablePublisher(const std::string& socket_path) {
  char name[4200];
  if (ibssa_shm_object_name(socket_path.c_str(), name, sizeof(name)) == 0) path_ = name;
}

Status TablePublisher::Publish(const std::string& object) {
  if (path_.empty()) return Status::Error(ENAMETOOLONG, "no name for the path tables");
  // Readers of any user may map it, nobody but the daemon's user may write
  // it (readers check both). The directory is world-writable: file_io's
  // temporary file is created exclusively, never through a link.
  Status st = WriteFileAtomically(path_, object);
  if (!st.ok()) return st;
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
