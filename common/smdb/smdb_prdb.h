// smdb_prdb.h: the path record database (PRDB): the paths computed for one
// consumer's source port, as the access layer sends them down instead of
// the whole SMDB. Same container format as the SMDB (smdb_format.h) with
// db_type 2, so the same reader, writer, delta and dump code serve both.
//
// A plain value, like Smdb (smdb.h).
#ifndef IBACM_SSA_COMMON_SMDB_SMDB_PRDB_H
#define IBACM_SSA_COMMON_SMDB_SMDB_PRDB_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "common/smdb/smdb_fields.h"
#include "common/smdb/smdb_format.h"

namespace ssa {
namespace smdb {

// Table 1 "source": exactly one record, the port the paths start from.
struct PrdbSource {
  static constexpr uint16_t kTableId = 1;
  static constexpr const char* kTableName = "source";
  static constexpr const char* kRecordName = "source";
  static constexpr int kKeyFields = 0;

  uint64_t port_guid = 0;
  uint64_t subnet_prefix = 0;
  uint16_t base_lid = 0;
  uint8_t lmc = 0;
  uint64_t smdb_epoch = 0;  // global epoch of the SMDB the paths came from

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Hex("port_guid", r.port_guid);
    v.Hex("subnet_prefix", r.subnet_prefix);
    v.Num("base_lid", r.base_lid);
    v.Num("lmc", r.lmc);
    v.Num("smdb_epoch", r.smdb_epoch);
  }
};

// PrdbPath::flags.
constexpr uint8_t kPathReversible = 1u << 0;
// "Not exact": the engine could not compute this record exactly as the SA
// would answer it, for the reason the bit names (PathEngine::InexactFlags).
// A consumer never serves such a record as the SA's: it asks the SA or
// fails (the ssa provider's `fallback`). The record's fields are the
// engine's best effort, kept for tools and diagnostics.
constexpr uint8_t kPathInexactQos = 1u << 1;        // QoS levels / SL2VL tables (opt.qos)
constexpr uint8_t kPathInexactRoutingSl = 1u << 2;  // the routing engine chooses the SL
constexpr uint8_t kPathInexact = kPathInexactQos | kPathInexactRoutingSl;
// Bits 3-6: the SA draws the record's SL at random among PathSlSpan() SLs
// from PrdbPath::sl on every query (route_sls' span, DFSSSP); a consumer
// draws the same way. 0 (one SL) for every other record.
constexpr int kPathSlSpanShift = 3;
constexpr uint8_t kPathSlSpanMask = 0xFu << kPathSlSpanShift;
constexpr unsigned PathSlSpan(uint8_t flags) {
  return ((flags & kPathSlSpanMask) >> kPathSlSpanShift) + 1u;
}
constexpr uint8_t PathSlSpanBits(unsigned span) {
  return span <= 1 ? 0 : static_cast<uint8_t>(((span - 1) & 0xFu) << kPathSlSpanShift);
}

// Table 2 "paths": one PathRecord per (destination GID, source GID,
// destination LID, source LID), with the values an SA would answer (the
// PathRecord codes, without selector bits).
struct PrdbPath {
  static constexpr uint16_t kTableId = 2;
  static constexpr const char* kTableName = "paths";
  static constexpr const char* kRecordName = "path";
  static constexpr int kKeyFields = 4;

  std::array<uint8_t, 16> dgid{};  // network order
  std::array<uint8_t, 16> sgid{};
  uint16_t dlid = 0;
  uint16_t slid = 0;
  uint16_t pkey = 0;
  uint8_t sl = 0;
  uint8_t mtu = 0;          // IBA MTU code
  uint8_t rate = 0;         // IBA rate code
  uint8_t packet_life = 0;  // PacketLifeTime code
  uint8_t hop_limit = 0;
  uint8_t traffic_class = 0;
  uint32_t flow_label = 0;  // 20 bits
  uint8_t preference = 0;
  uint8_t flags = 0;  // kPath*

  template <class Self, class V>
  static constexpr void Fields(Self& r, V& v) {
    v.Bytes("dgid", r.dgid);
    v.Bytes("sgid", r.sgid);
    v.Num("dlid", r.dlid);
    v.Num("slid", r.slid);
    v.Hex("pkey", r.pkey);
    v.Num("sl", r.sl);
    v.Num("mtu", r.mtu);
    v.Num("rate", r.rate);
    v.Num("packet_life", r.packet_life);
    v.Num("hop_limit", r.hop_limit);
    v.Num("traffic_class", r.traffic_class);
    v.Hex("flow_label", r.flow_label);
    v.Num("preference", r.preference);
    v.Hex("flags", r.flags);
  }
};

static_assert(WireSize<PrdbSource>() == 27 && KeySize<PrdbSource>() == 0, "layout");
static_assert(WireSize<PrdbPath>() == 50 && KeySize<PrdbPath>() == 36, "layout");

struct Prdb {
  static constexpr DbType kType = DbType::kPrdb;

  uint64_t global_epoch = 0;
  DbTable<PrdbSource> source{0, {PrdbSource{}}};  // exactly one record
  DbTable<PrdbPath> paths;

  template <class Self, class F>
  static void ForEachTable(Self& db, F&& f) {
    f(db.source);
    f(db.paths);
  }
  static const DbSchema& Schema();

  // As for Smdb (smdb.h).
  Status Serialize(std::string* out) const;
  static Status Parse(const uint8_t* data, size_t len, Prdb* out);
  Status WriteFile(const std::string& path) const;
  static Status ReadFile(const std::string& path, Prdb* out);
  void SortRecords();
};

bool operator==(const Prdb& a, const Prdb& b);
inline bool operator!=(const Prdb& a, const Prdb& b) { return !(a == b); }

}  // namespace smdb
}  // namespace ssa

#endif
