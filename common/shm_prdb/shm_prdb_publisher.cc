// shm_prdb_publisher.cc: see shm_prdb_publisher.h.
#include "common/shm_prdb/shm_prdb_publisher.h"

#include <unistd.h>

#include <cerrno>

#include "common/shm_prdb/shm_prdb_format.h"
#include "common/smdb/smdb_codec.h"

namespace ssa {
namespace shm_prdb {

TablePublisher::TablePublisher(const std::string& socket_path) {
  char name[4200];
  if (ibssa_shm_object_name(socket_path.c_str(), name, sizeof(name)) == 0) path_ = name;
}

Status TablePublisher::Publish(const std::string& object) {
  if (path_.empty()) return Status::Error(ENAMETOOLONG, "no name for the path tables");
  // Written whole under a temporary name, then renamed over the name:
  // readers see the old object or this one. The umask decides who may
  // read it (0644 under the daemon's usual 022).
  Status st = smdb::WriteFileAtomically(path_, object);
  if (st.ok()) published_ = true;
  return st;
}

void TablePublisher::Withdraw() {
  if (!published_) return;
  unlink(path_.c_str());
  published_ = false;
}

}  // namespace shm_prdb
}  // namespace ssa
