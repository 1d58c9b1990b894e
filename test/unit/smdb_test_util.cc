// smdb_test_util.cc: see smdb_test_util.h.
#include "test/unit/smdb_test_util.h"

#include <algorithm>
#include <cstring>

#include "common/smdb/smdb_codec.h"
#include "test/support/check_ok.h"

// Last: CppUTest redefines operator new for what follows it.
#include <CppUTest/TestHarness.h>

using namespace ssa::smdb;

namespace smdb_test {
namespace {

template <size_t N>
std::array<char, N> Text(const char* s) {
  std::array<char, N> a{};
  std::strncpy(a.data(), s, N);
  return a;
}

std::array<uint8_t, 16> Gid(uint64_t prefix, uint64_t guid) {
  std::array<uint8_t, 16> g{};
  PutBe64(g.data(), prefix);
  PutBe64(g.data() + 8, guid);
  return g;
}

constexpr uint64_t kPrefix = 0xfe80000000000000ull;
constexpr uint64_t kSw = 0x0002c90300000100ull, kCa1 = 0x0002c90300000001ull,
                   kCa2 = 0x0002c90300000002ull;

SmdbPort Port(uint64_t node, uint8_t num, uint64_t guid, uint16_t lid, uint32_t pkeys) {
  SmdbPort p;
  p.node_guid = node;
  p.port_num = num;
  p.port_guid = guid;
  p.base_lid = lid;
  p.port_state = kPortActive;
  p.phys_state = 5;
  p.mtu_cap = 5;
  p.neighbor_mtu = 5;
  p.link_width_active = 2;
  p.link_speed_active = 4;
  p.rate = 7;  // 40 Gb/s: 4x QDR
  p.capability_mask = 0x02510868;
  p.pkey_table_id = pkeys;
  return p;
}

// Random bytes decoded as a record: every field of every table gets odd values.
template <class R>
R RandomRecord(std::mt19937* rng) {
  uint8_t buf[WireSize<R>()];
  for (uint8_t& b : buf) b = static_cast<uint8_t>((*rng)());
  R r;
  FieldDecoder dec(buf);
  R::Fields(r, dec);
  return r;
}

// Flips one byte outside the key (a record that is all key has none).
template <class R>
void ChangeNonKey(std::mt19937* rng, R* r) {
  constexpr size_t kSize = WireSize<R>(), kKey = KeySize<R>();
  if constexpr (kSize == kKey) return;
  uint8_t buf[kSize];
  EncodeRecord(*r, buf);
  buf[kKey + (*rng)() % (kSize - kKey)] ^= static_cast<uint8_t>(1 + (*rng)() % 255);
  FieldDecoder dec(buf);
  R::Fields(*r, dec);
}

template <class Db>
void Canonicalize(Db* db) {
  db->SortRecords();
  Db::ForEachTable(*db, [](auto& table) {
    using R = typename std::decay_t<decltype(table)>::Record;
    auto same_key = [](const R& a, const R& b) { return KeyOf(a) == KeyOf(b); };
    table.records.erase(std::unique(table.records.begin(), table.records.end(), same_key),
                        table.records.end());
  });
}

template <class R>
void EditTable(std::mt19937* rng, DbTable<R>* t) {
  int ops = 1 + static_cast<int>((*rng)() % 3);
  for (int i = 0; i < ops; ++i) {
    unsigned op = (*rng)() % 3;
    bool single = R::kKeyFields == 0;
    if (!single && op == 0) {
      t->records.push_back(RandomRecord<R>(rng));
    } else if (!single && op == 1 && !t->records.empty()) {
      t->records.erase(t->records.begin() + static_cast<long>((*rng)() % t->records.size()));
    } else if (!t->records.empty()) {
      ChangeNonKey(rng, &t->records[(*rng)() % t->records.size()]);
    }
  }
}

template <class Db>
void AddRandom(std::mt19937* rng, int max_extra, Db* db) {
  Db::ForEachTable(*db, [&](auto& table) {
    using R = typename std::decay_t<decltype(table)>::Record;
    if (R::kKeyFields == 0) return;
    int n = static_cast<int>((*rng)() % static_cast<unsigned>(max_extra + 1));
    for (int i = 0; i < n; ++i) table.records.push_back(RandomRecord<R>(rng));
  });
  Canonicalize(db);
  db->global_epoch = 10 + (*rng)() % 100;
  Db::ForEachTable(*db, [&](auto& table) { table.epoch = (*rng)() % (db->global_epoch + 1); });
}

template <class Db>
void RandomEditsT(std::mt19937* rng, Db* db) {
  const Db original = *db;
  size_t tables = Db::Schema().tables.size();
  do {
    // A random non-empty subset of the tables.
    uint32_t mask = 0;
    while (mask == 0) mask = (*rng)() & ((1u << tables) - 1);
    size_t i = 0;
    Db::ForEachTable(*db, [&](auto& table) {
      if (mask & (1u << i++)) EditTable(rng, &table);
    });
    Canonicalize(db);
  } while (*db == original);
}

}  // namespace

Smdb SampleSmdb() {
  Smdb db;
  db.global_epoch = 3;
  SmdbSubnet& s = db.subnet.records[0];
  s.subnet_prefix = kPrefix;
  s.sm_port_guid = kCa1;
  s.sm_lid = 1;
  s.sm_state = 3;
  s.sm_priority = 15;
  s.subnet_timeout = 18;
  s.packet_life_time = 0x12;
  s.routing_engine = Text<16>("minhop");
  db.subnet.epoch = 1;

  db.guid_lids.records = {{kCa1, kCa1, 1, 0, 0}, {kCa2, kCa2, 2, 0, 0}, {kSw, kSw, 3, 0, 0}};
  db.guid_lids.epoch = 2;

  SmdbNode ca1{kCa1, kCa1, kNodeCa, 1, 64, 0x02c9, 0x1003, 1, Text<64>("ca1 HCA-1")};
  SmdbNode ca2{kCa2, kCa2, kNodeCa, 1, 64, 0x02c9, kDeviceIdTavor, 1, Text<64>("ca2 \"old\"\tHCA")};
  SmdbNode sw{kSw, kSw, kNodeSwitch, 36, 8, 0x02c9, 0xc738, 0, Text<64>("sw1")};
  db.nodes.records = {ca1, ca2, sw};
  db.nodes.epoch = 1;

  db.ports.records = {Port(kCa1, 1, kCa1, 1, 0), Port(kCa2, 1, kCa2, 2, 1), Port(kSw, 0, kSw, 3, 0),
                      Port(kSw, 1, 0, 0, 0), Port(kSw, 2, 0, 0, 0)};
  db.ports.records[3].rate = 3;  // a 4x SDR link to ca1
  db.ports.epoch = 3;

  db.links.records = {{kCa1, 1, kSw, 1}, {kCa2, 1, kSw, 2}, {kSw, 1, kCa1, 1}, {kSw, 2, kCa2, 1}};
  db.links.epoch = 1;

  db.switches.records = {{kSw, 49152, 3, 1024, 0x12, kSwitchEnhancedPort0}};
  db.switches.epoch = 1;

  SmdbLftBlock lft;
  lft.node_guid = kSw;
  lft.block = 0;
  lft.ports.fill(kLftNoPath);
  lft.ports[1] = 1;
  lft.ports[2] = 2;
  lft.ports[3] = 0;
  db.lft_blocks.records = {lft};
  db.lft_blocks.epoch = 1;

  SmdbPkeyBlock full, storage;
  full.table_id = 0;
  full.pkeys[0] = 0xffff;
  storage.table_id = 1;
  storage.pkeys[0] = 0xffff;
  storage.pkeys[1] = 0x8001;
  db.pkey_blocks.records = {full, storage};
  db.pkey_blocks.epoch = 1;

  db.partitions.records = {{0x0001, 1, 0, Text<32>("storage")},
                           {0x7fff, 0, kPartitionDefault, Text<32>("Default")}};
  db.partitions.epoch = 1;

  db.prefix_routes.records = {{0, 0, 0}};
  db.prefix_routes.epoch = 1;
  return db;
}

Prdb SamplePrdb() {
  Prdb db;
  db.global_epoch = 2;
  PrdbSource& src = db.source.records[0];
  src.port_guid = kCa1;
  src.subnet_prefix = kPrefix;
  src.base_lid = 1;
  src.smdb_epoch = 3;
  db.source.epoch = 1;
  for (uint64_t dest : {kCa2, kSw, kCa1}) {
    PrdbPath p;
    p.dgid = Gid(kPrefix, dest);
    p.sgid = Gid(kPrefix, kCa1);
    p.dlid = dest == kCa2 ? 2 : dest == kSw ? 3 : 1;
    p.slid = 1;
    p.pkey = 0xffff;
    p.mtu = dest == kCa2 ? 3 : 5;
    p.rate = 3;
    p.packet_life = dest == kCa1 ? 0 : 18;
    p.flags = kPathReversible;
    db.paths.records.push_back(p);
  }
  db.paths.epoch = 2;
  db.SortRecords();
  return db;
}

Smdb RandomSmdb(std::mt19937* rng, int max_extra) {
  Smdb db = SampleSmdb();
  AddRandom(rng, max_extra, &db);
  return db;
}

Prdb RandomPrdb(std::mt19937* rng, int max_paths) {
  Prdb db = SamplePrdb();
  AddRandom(rng, max_paths, &db);
  return db;
}

void RandomEdits(std::mt19937* rng, Smdb* db) { RandomEditsT(rng, db); }
void RandomEdits(std::mt19937* rng, Prdb* db) { RandomEditsT(rng, db); }

std::string Serialized(const Smdb& db) {
  std::string out;
  ssa::Status s = db.Serialize(&out);
  CHECK_OK(s);
  return out;
}

std::string Serialized(const Prdb& db) {
  std::string out;
  ssa::Status s = db.Serialize(&out);
  CHECK_OK(s);
  return out;
}

uint32_t GetU32(const std::string& bytes, size_t offset) {
  return GetBe32(reinterpret_cast<const uint8_t*>(bytes.data()) + offset);
}

void PutU16(std::string* bytes, size_t offset, uint16_t v) {
  PutBe16(reinterpret_cast<uint8_t*>(&(*bytes)[offset]), v);
}

void PutU32(std::string* bytes, size_t offset, uint32_t v) {
  PutBe32(reinterpret_cast<uint8_t*>(&(*bytes)[offset]), v);
}

std::vector<Section> Sections(const std::string& bytes) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(bytes.data());
  std::vector<Section> out;
  size_t off = GetBe16(p + 10);
  uint32_t n = GetBe32(p + 12);
  for (uint32_t i = 0; i < n; ++i) {
    Section s;
    s.header = off;
    s.id = GetBe16(p + off);
    s.payload = off + GetBe16(p + off + 2);
    s.record_size = GetBe32(p + off + 4);
    s.count = GetBe32(p + off + 8);
    out.push_back(s);
    off = s.end();
  }
  return out;
}

void ResealFileHeader(std::string* bytes) {
  uint8_t* p = reinterpret_cast<uint8_t*>(&(*bytes)[0]);
  SealHeader(p, GetBe16(p + 10), 28);
}

void ResealSection(std::string* bytes, size_t header_offset) {
  uint8_t* p = reinterpret_cast<uint8_t*>(&(*bytes)[header_offset]);
  SealHeader(p, GetBe16(p + 2), 28);
}

void RecrcPayload(std::string* bytes, const Section& s) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(bytes->data());
  PutU32(bytes, s.header + 12, Crc32(p + s.payload, s.end() - s.payload));
  ResealSection(bytes, s.header);
}

}  // namespace smdb_test
