// shm_prdb_builder.h: builds one path table object (shm_prdb_format.h) in
// memory from what the daemon serves: ports with their exact records, the
// answer for each destination GID, the address database, the endpoints'
// addresses. The caller decides what is served (the ssa provider:
// providers/ssa/shm_export.h); this only lays it out, sorted and checksummed.
//
// Not thread-safe; one builder per object.
#ifndef IBACM_SSA_COMMON_SHM_PRDB_SHM_PRDB_BUILDER_H
#define IBACM_SSA_COMMON_SHM_PRDB_SHM_PRDB_BUILDER_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/shm_prdb/shm_prdb_format.h"

namespace ssa {
namespace shm_prdb {

struct PortTables {
  std::array<uint8_t, 16> gid{};
  uint16_t base_lid = 0;
  uint8_t lmc = 0;
  uint64_t epoch = 0;
  std::vector<uint16_t> pkeys;  // the endpoints', the core's order (at most IBSSA_SHM_MAX_PKEYS)
  std::vector<ibssa_shm_path> paths;  // any order, (slid, dlid) unique
  // Destination GID -> the (slid, dlid) of the record the daemon answers.
  std::vector<std::pair<std::array<uint8_t, 16>, uint32_t>> gid_answers;
};

struct Publisher {
  int32_t pid = 0;
  uint64_t start = 0;  // ibssa_shm_process_start(pid)
  uint64_t serial = 0;
};

class TableBuilder {
 public:
  void AddPort(PortTables port) { ports_.push_back(std::move(port)); }
  void set_addr_epoch(uint64_t epoch) { addr_epoch_ = epoch; }
  // A name (lower-cased here; at most 63 characters) or IP (4 or 16 bytes).
  void AddName(const std::string& name, const uint8_t gid[16]);
  void AddIp(const uint8_t* ip, size_t len, const uint8_t gid[16]);
  // An endpoint address of port `port_index` (type: 1 name, 2 IPv4, 3 IPv6).
  void AddSource(uint16_t type, const uint8_t* addr, size_t len, uint16_t port_index,
                 uint16_t pkey);
  void set_default_source(uint32_t index) { default_src_ = index; }
  size_t sources() const { return srcs_.size(); }
  void set_flags(uint32_t flags) { flags_ = flags; }

  // The whole object: sorted, keys unique (the last added wins), checksummed.
  std::string Build(const Publisher& who) const;

 private:
  std::vector<PortTables> ports_;
  std::vector<ibssa_shm_name> names_;
  std::vector<ibssa_shm_ip> ips_;
  std::vector<ibssa_shm_src> srcs_;
  uint32_t default_src_ = IBSSA_SHM_NO_INDEX;
  uint32_t flags_ = 0;
  uint64_t addr_epoch_ = 0;
};

}  // namespace shm_prdb
}  // namespace ssa

#endif
