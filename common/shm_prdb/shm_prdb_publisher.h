// shm_prdb_publisher.h: puts table objects (shm_prdb_builder.h) where
// readers find them, replacing the previous one atomically: the object is
// written whole under a temporary name in IBSSA_SHM_DIR (created
// exclusively, never through a link: the directory is world-writable),
// mode 0644, and renamed over the published name (ibssa_shm_name of the daemon's
// socket). A reader maps the old or the new object, never a mix; the old
// one's memory goes when its last reader unmaps it, so memory does not
// grow with readers or epochs. Withdraw() removes the name (a daemon that
// stops, or has nothing exact to serve): readers then use the socket.
//
// Runs on the daemon's loop; not thread-safe.
#ifndef IBACM_SSA_COMMON_SHM_PRDB_SHM_PRDB_PUBLISHER_H
#define IBACM_SSA_COMMON_SHM_PRDB_SHM_PRDB_PUBLISHER_H

#include <string>

#include "common/base/status.h"

namespace ssa {
namespace shm_prdb {

class TablePublisher {
 public:
  // `socket_path`: the daemon's client socket, as clients name it.
  explicit TablePublisher(const std::string& socket_path);
  ~TablePublisher() { Withdraw(); }
  TablePublisher(const TablePublisher&) = delete;
  TablePublisher& operator=(const TablePublisher&) = delete;

  const std::string& path() const { return path_; }
  Status Publish(const std::string& object);
  void Withdraw();

 private:
  std::string path_;
  bool published_ = false;
};

}  // namespace shm_prdb
}  // namespace ssa

#endif
