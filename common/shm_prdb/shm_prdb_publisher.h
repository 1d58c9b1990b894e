// shm_prdb_publisher.h: puts table objects (shm_prdb_builder.h) where
// readers find them, replacing the previous one atomically: in a
// directory only the daemon's user may write (ibssa_shm_dir: /run/ibssa
// for root, /dev/shm/ibssa-<uid> for others, created 0755 when missing),
// the object is written whole under a temporary name, mode 0644, and
// renamed over the published name (ibssa_shm_object_name of the daemon's
// socket). Nobody else can place, replace or squat a name there; a
// directory another user made first is refused, and says so.
//
// A reader maps the old or the new object, never a mix. A replaced or
// withdrawn object is marked retired at once (readers check the mark
// before every lookup and look for the new one) and truncated
// IBSSA_SHM_RETIRE_GRACE_MS later, so that whoever keeps it open or mapped
// pins no memory of the daemon's: what the daemon's tables cost is the
// current object plus those replaced within the grace period. A failed
// publication withdraws the published object at once (its records may no
// longer be the daemon's answers): readers then use the socket.
//
// Runs on the daemon's loop or its worker, one call at a time (the caller
// serializes); not thread-safe.
#ifndef IBACM_SSA_COMMON_SHM_PRDB_SHM_PRDB_PUBLISHER_H
#define IBACM_SSA_COMMON_SHM_PRDB_SHM_PRDB_PUBLISHER_H

#include <chrono>
#include <deque>
#include <string>

#include "common/base/status.h"

namespace ssa {
namespace shm_prdb {

class TablePublisher {
 public:
  using Clock = std::chrono::steady_clock;

  // `socket_path`: the daemon's client socket, as clients name it.
  explicit TablePublisher(const std::string& socket_path);
  ~TablePublisher();
  TablePublisher(const TablePublisher&) = delete;
  TablePublisher& operator=(const TablePublisher&) = delete;

  // Where the object is published (empty: no name could be made).
  const std::string& path() const { return path_; }
  bool published() const { return current_fd_ >= 0; }
  // Retired objects not yet truncated.
  size_t retired() const { return retired_.size(); }

  // On failure nothing is published any more (the previous object is
  // withdrawn) and the status says what failed, naming the file.
  Status Publish(const std::string& object);
  void Withdraw();
  // Truncates the retired objects whose grace has passed by `now`
  // (Publish and Withdraw do it too).
  void Sweep(Clock::time_point now);

 private:
  // The directory, open, checked and ours; -1 with `st` saying why.
  int OpenDir(Status* st);
  void Retire(int fd);

  std::string dir_, name_, path_;
  int current_fd_ = -1;  // the published object, read-write
  struct Retired {
    int fd;
    Clock::time_point at;
  };
  std::deque<Retired> retired_;
};

}  // namespace shm_prdb
}  // namespace ssa

#endif
