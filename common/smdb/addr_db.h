// addr_db.h: the address database (db_type 3): host names and IP addresses
// of the fabric's nodes with the GID each maps to, as the core reads them
// from a hosts file (upstream ibacm's ibacm_hosts.data format) and the SSA
// tree sends them down to consumers, versioned and delta'd like the SMDB
// (same container format, smdb_format.h).
//
// Table 1 "names": the name, lower-cased (names compare without regard to
// case, as ibacm compares them), NUL-padded to 64 bytes (at most 63
// characters, the acm.h limit). Table 2 "ips": the address as 16 bytes,
// an IPv4 address as its IPv4-mapped IPv6 form (::ffff:a.b.c.d). Each
// maps to a GID (network order). Keys are unique; records sorted by key.
//
// ParseHosts turns hosts-file text into one: "address gid" per line, '#'
// starts a comment, a later line for the same address replaces an earlier
// one; bad lines are reported (with their number) and skipped. It is the
// one parser of that format (the sa provider's addr_data_file uses it too).
//
// A plain value, like Smdb (smdb.h).
#ifndef IBACM_SSA_COMMON_SMDB_ADDR_DB_H
#define IBACM_SSA_COMMON_SMDB_ADDR_DB_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/smdb_fields.h"
#include "common/smdb/smdb_format.h"

namespace ssa {
namespace smdb {

constexpr size_t kMaxHostNameLength = 63;

struct AddrName {
  static constexpr uint16_t kTableId = 1;
  static constexpr const char* kTableName = "names";
  static constexpr const char* kRecordName = "name";
  static constexpr int kKeyFields = 1;

  std::array<char, 64> name{};  // lower-cased, NUL-padded
  std::array<uint8_t, 16> gid{};

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Text("name", r.name);
    v.Bytes("gid", r.gid);
  }
};

struct AddrIp {
  static constexpr uint16_t kTableId = 2;
  static constexpr const char* kTableName = "ips";
  static constexpr const char* kRecordName = "ip";
  static constexpr int kKeyFields = 1;

  std::array<uint8_t, 16> ip{};  // IPv6, or IPv4-mapped IPv6
  std::array<uint8_t, 16> gid{};

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Bytes("ip", r.ip);
    v.Bytes("gid", r.gid);
  }
};

static_assert(WireSize<AddrName>() == 80 && KeySize<AddrName>() == 64, "layout");
static_assert(WireSize<AddrIp>() == 32 && KeySize<AddrIp>() == 16, "layout");

struct AddrDb {
  static constexpr DbType kType = DbType::kAddr;

  uint64_t global_epoch = 0;
  DbTable<AddrName> names;
  DbTable<AddrIp> ips;

  template <class Self, class F>
  static void ForEachTable(Self& db, F&& f) {
    f(db.names);
    f(db.ips);
  }
  static const DbSchema& Schema();

  // As for Smdb (smdb.h).
  Status Serialize(std::string* out) const;
  static Status Parse(const uint8_t* data, size_t len, AddrDb* out);
  Status WriteFile(const std::string& path) const;
  static Status ReadFile(const std::string& path, AddrDb* out);
  void SortRecords();

  // The GID of a name (any case) or of a 4- or 16-byte IP address; false
  // when it is not in the database. Binary search: records are sorted.
  bool FindName(const std::string& name, uint8_t gid[16]) const;
  bool FindIp(const uint8_t* ip, size_t len, uint8_t gid[16]) const;
};

bool operator==(const AddrDb& a, const AddrDb& b);
inline bool operator!=(const AddrDb& a, const AddrDb& b) { return !(a == b); }

// One bad line of a hosts file.
struct HostsIssue {
  int line = 0;
  std::string message;
};

// Parses hosts text into `out` (replacing its tables; epochs untouched).
// Returns how many lines were taken.
size_t ParseHosts(const std::string& text, AddrDb* out, std::vector<HostsIssue>* issues);
// The 16-byte key of an IP address: 4 bytes become ::ffff:a.b.c.d.
std::array<uint8_t, 16> IpKey(const uint8_t* ip, size_t len);
// A name as the key: lower-cased, NUL-padded; false if empty or too long.
bool NameKey(const std::string& name, std::array<char, 64>* out);

}  // namespace smdb
}  // namespace ssa

#endif
