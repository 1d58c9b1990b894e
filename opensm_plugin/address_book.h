// address_book.h: the core's address database (common/smdb/addr_db.h):
// read from the plugin's `hosts_file` (upstream ibacm_hosts.data format),
// versioned, and kept in the dump directory (addr.db) so that its epochs
// never go backwards across OpenSM restarts, as the SMDB's do not.
//
// Refresh() re-reads the file when its modification time or size changed
// and returns a new version only when the content changed (the epoch of
// each table that changed moves). Without a hosts file the database is
// empty (epoch 1): every parent still has one to serve, so consumers
// never wait for it. A file that disappears or cannot be read keeps the
// last version (logged once per cause).
//
// With federation (tree/federation.h), the database also holds the
// entries the peers' cores announce (SetRemote): the content is the hosts
// file's entries plus the peers' whose name or IP the file does not
// already give (the file wins). Those are never kept across a restart:
// a federated core starts from its hosts file alone, with the kept
// file's epochs, and the peers send theirs again.
//
// Plain object; the core's loop thread.
#ifndef IBACM_SSA_OPENSM_PLUGIN_ADDRESS_BOOK_H
#define IBACM_SSA_OPENSM_PLUGIN_ADDRESS_BOOK_H

#include <sys/types.h>

#include <ctime>
#include <memory>
#include <string>

#include "common/base/log.h"
#include "common/smdb/addr_db.h"
#include "common/tree/db_version.h"

namespace ssa {
namespace opensm_plugin {

struct AddressVersion {
  tree::DbVersion version;
  tree::Bytes delta;  // from `delta_from`; null when there is none
  uint64_t delta_from = 0;
  size_t names = 0, ips = 0;
};

class AddressBook {
 public:
  // `hosts_file` "" = none; `state_file` "" = not kept.
  AddressBook(std::string hosts_file, std::string state_file, Logger* log, bool federated = false);

  // The current version after looking at the file; `changed` says whether
  // it is new since the previous call.
  Status Refresh(AddressVersion* out, bool* changed);
  // A member holds address epoch `seen` from another core (see
  // SmdbProducer::ContinueAfter): the current content becomes epoch
  // seen + 1, every table with it. False (nothing new) when `seen` is
  // below the current epoch or nothing is loaded yet.
  bool ContinueAfter(uint64_t seen, AddressVersion* out);

  // The peers' entries now (sorted, unique keys); `changed` as Refresh's.
  Status SetRemote(const smdb::AddrDb& remote, AddressVersion* out, bool* changed);
  // The hosts file's entries (what this core may announce to its peers).
  const smdb::AddrDb& local() const { return local_; }
  // Peers' entries not served because the hosts file names the same key.
  size_t overridden() const { return overridden_; }

 private:
  Status Load();
  Status Install(smdb::AddrDb next, AddressVersion* out);
  // local_ and remote_ merged into a new version if the content changed.
  Status Rebuild(AddressVersion* out, bool* changed);

  std::string hosts_file_;
  std::string state_file_;
  Logger* log_;
  bool federated_;
  smdb::AddrDb local_, remote_;  // tables only (epochs unused)
  size_t overridden_ = 0;
  bool loaded_ = false;
  std::shared_ptr<const smdb::AddrDb> db_;
  AddressVersion current_;
  time_t mtime_ = 0;
  long mtime_ns_ = 0;
  off_t size_ = -1;
  int last_errno_ = 0;
};

}  // namespace opensm_plugin
}  // namespace ssa

#endif
