// path_engine_fabric.h: the hand-built SMDB the path-engine unit tests
// (path_engine_test.cc) run on, the builder that makes it the way the
// OpenSM plugin fills an SMDB, and the SA record each path should get.
//
// The fabric (every value chosen so that each rule shows):
//
//   A(10,11) T(13)  G(14)                     C(16,17) D(18) F(20) J(40)
//      p1     p3     p7                          p1     p2    p3    p7
//      +------S1 (LID 1)--p5=====p5--S2 (LID 2)--+------+-----+-----+
//      |  p2          \---p6-----p6---/    p4 (down)   p8
//      B(12)                                          H(30)
//
//   - p5 link: 4x QDR + EDR (100 Gb/s), MTU 2048; p6 link: 1x SDR, MTU 512;
//     S1 sends C's LID 16 over p5 and LID 17 over p6 (parallel links).
//   - A: 4x QDR (40), MTU 4096; C: 12x SDR (30, code 4); D: 1x DDR (5,
//     code 5): the slower link has the higher code.
//   - Switch external ports have capability mask 0 as on ibsim and are
//     rated with port 0's extended speeds, as the plugin records them.
//   - T is a Mellanox Tavor (device 23108), and the subnet has quirks on.
//   - S2 has no route for A's second LID 11 (the path from it is not
//     reversible), S1 none for F's LID 20, S2 sends E's LID 22 out of its
//     down port 4, and LID 40 loops between the switches.
//   - P_Keys: most ports {0xffff, 0x8002}; D {0xffff, 0x0002 limited};
//     G {0x0002 limited}; H {0xffff}. Partitions 0x7fff (SL 1), 0x0002 (SL 5).
//
// Test code; single thread.
#ifndef IBACM_SSA_TEST_UNIT_PATH_ENGINE_FABRIC_H
#define IBACM_SSA_TEST_UNIT_PATH_ENGINE_FABRIC_H

#include <infiniband/sa.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "common/base/big_endian.h"
#include "common/mad/mad_wire.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_index.h"

namespace path_engine_test {

using namespace ssa::smdb;

constexpr uint64_t kPrefix = 0xfe80000000000000ULL;
constexpr uint8_t kSdr = 1, kDdr = 2, kQdr = 4, kEdr = 2;  // speed / ext speed codes
constexpr uint8_t k1x = 1, k4x = 2, k12x = 8;              // widths
constexpr uint32_t kCapExt = kCapHasExtSpeeds | 0x48;      // + SM-unrelated bits

// Builds an Smdb the way the OpenSM plugin fills one (rates included).
class FabricBuilder {
 public:
  explicit FabricBuilder(uint8_t lmc = 1) {
    SmdbSubnet& s = db_.subnet.records[0];
    s.subnet_prefix = kPrefix;
    s.lmc = lmc;
    s.subnet_timeout = 18;
    s.default_sl = 0;
  }
  Smdb& db() { return db_; }

  void Ca(uint64_t guid, uint16_t lid, uint8_t lmc, uint8_t mtu, uint8_t width, uint8_t speed,
          uint8_t ext, uint32_t pkey_table, uint16_t device_id = 0) {
    SmdbNode n;
    n.node_guid = guid;
    n.node_type = kNodeCa;
    n.num_ports = 1;
    n.vendor_id = 0x0002c9;
    n.device_id = device_id;
    db_.nodes.records.push_back(n);
    AddPort(guid, 1, guid + 1, lid, lmc, mtu, width, speed, ext, ext ? kCapExt : 0x48, pkey_table);
    if (lid) db_.guid_lids.records.push_back({guid + 1, guid + 1, lid, lmc, 0});
  }
  // A 2-port IB router whose port 1 (GUID guid + 1) is on this subnet, as
  // OpenSM sees one: its other port is of another subnet, undiscovered
  // (no port GUID).
  void Router(uint64_t guid, uint16_t lid, uint8_t mtu, uint8_t width, uint8_t speed,
              uint32_t pkey_table) {
    SmdbNode n;
    n.node_guid = guid;
    n.node_type = kNodeRouter;
    n.num_ports = 2;
    db_.nodes.records.push_back(n);
    AddPort(guid, 1, guid + 1, lid, 0, mtu, width, speed, 0, 0x48, pkey_table);
    AddPort(guid, 2, 0, 0, 0, mtu, width, speed, 0, 0x48, kNoPkeyTable);
    db_.guid_lids.records.push_back({guid + 1, guid + 1, lid, 0, 0});
  }
  void PrefixRoute(uint64_t prefix, uint64_t router_port_guid) {
    SmdbPrefixRoute r;
    r.seq = static_cast<uint32_t>(db_.prefix_routes.records.size());
    r.prefix = prefix;
    r.router_port_guid = router_port_guid;
    db_.prefix_routes.records.push_back(r);
  }
  void Switch(uint64_t guid, uint16_t lid, uint8_t ports, uint16_t top) {
    SmdbNode n;
    n.node_guid = guid;
    n.node_type = kNodeSwitch;
    n.num_ports = ports;
    db_.nodes.records.push_back(n);
    // Port 0 as ibsim has it: 1K MTU, 4x SDR, extended speeds capable.
    AddPort(guid, 0, guid + 1, lid, 0, 3, k4x, kSdr, 0, kCapExt, 1);
    db_.guid_lids.records.push_back({guid + 1, guid + 1, lid, 0, 0});
    SmdbSwitch s;
    s.node_guid = guid;
    s.lin_fdb_top = top;
    db_.switches.records.push_back(s);
  }
  // A switch external port (capability mask 0, as ibsim's), rated with
  // port 0's extended-speed capability as the plugin does.
  void SwitchPort(uint64_t sw, uint8_t num, uint8_t mtu, uint8_t width, uint8_t speed, uint8_t ext,
                  bool down = false) {
    AddPort(sw, num, 0, 0, 0, mtu, width, speed, ext, 0, kNoPkeyTable);
    SmdbPort& p = db_.ports.records.back();
    p.rate = ComputePortRate(width, speed, ext, true);
    if (down) p.port_state = kPortDown;
  }
  void Link(uint64_t a, uint8_t pa, uint64_t b, uint8_t pb) {
    db_.links.records.push_back({a, pa, b, pb});
    db_.links.records.push_back({b, pb, a, pa});
  }
  void Route(uint64_t sw, uint16_t lid, uint8_t port) {
    Block(sw, lid / kLftBlockSize).ports[lid % kLftBlockSize] = port;
  }
  void Pkeys(uint32_t table, std::initializer_list<uint16_t> keys) {
    SmdbPkeyBlock b;
    b.table_id = table;
    size_t i = 0;
    for (uint16_t k : keys) b.pkeys[i++] = k;
    db_.pkey_blocks.records.push_back(b);
  }
  void Partition(uint16_t pkey, uint8_t sl) {
    SmdbPartition p;
    p.pkey = pkey;
    p.sl = sl;
    db_.partitions.records.push_back(p);
  }

 private:
  void AddPort(uint64_t node, uint8_t num, uint64_t port_guid, uint16_t lid, uint8_t lmc,
               uint8_t mtu, uint8_t width, uint8_t speed, uint8_t ext, uint32_t cap,
               uint32_t pkey_table) {
    SmdbPort p;
    p.node_guid = node;
    p.port_num = num;
    p.port_guid = port_guid;
    p.base_lid = lid;
    p.lmc = lmc;
    p.port_state = kPortActive;
    p.mtu_cap = mtu;
    p.link_width_active = width;
    p.link_speed_active = speed;
    p.link_speed_ext_active = ext;
    p.capability_mask = cap;
    p.rate = ComputePortRate(width, speed, ext, (cap & kCapHasExtSpeeds) != 0);
    p.pkey_table_id = pkey_table;
    db_.ports.records.push_back(p);
  }
  SmdbLftBlock& Block(uint64_t sw, uint16_t block) {
    for (auto& b : db_.lft_blocks.records)
      if (b.node_guid == sw && b.block == block) return b;
    SmdbLftBlock b;
    b.node_guid = sw;
    b.block = block;
    b.ports.fill(kLftNoPath);
    db_.lft_blocks.records.push_back(b);
    return db_.lft_blocks.records.back();
  }
  Smdb db_;
};

constexpr uint64_t S1 = 0x1000, S2 = 0x2000;
constexpr uint64_t A = 0xA0, B = 0xB0, C = 0xC0, D = 0xD0, E = 0xE0, F = 0xF0, G = 0x60, H = 0x80,
                   J = 0x90, T = 0x70;

inline Smdb TwoSwitchFabric() {
  FabricBuilder f;
  f.db().subnet.records[0].flags = kSubnetEnableQuirks;
  f.Switch(S1, 1, 8, 63);
  f.Switch(S2, 2, 8, 63);
  f.Ca(A, 10, 1, 5, k4x, kQdr, 0, 1);
  f.Ca(B, 12, 0, 5, k4x, kQdr, 0, 1);
  f.Ca(T, 13, 0, 5, k4x, kQdr, 0, 1, kDeviceIdTavor);
  f.Ca(G, 14, 0, 4, k4x, kQdr, 0, 3);
  f.Ca(C, 16, 1, 4, k12x, kSdr, 0, 1);
  f.Ca(D, 18, 0, 4, k1x, kDdr, 0, 2);
  f.Ca(F, 20, 0, 4, k4x, kQdr, 0, 1);
  f.Ca(E, 22, 0, 4, k4x, kQdr, 0, 1);  // its switch port is down
  f.Ca(H, 30, 0, 4, k4x, kQdr, 0, 4);
  f.Ca(J, 40, 0, 4, k4x, kQdr, 0, 1);
  f.SwitchPort(S1, 1, 5, k4x, kQdr, 0);
  f.SwitchPort(S1, 2, 5, k4x, kQdr, 0);
  f.SwitchPort(S1, 3, 5, k4x, kQdr, 0);
  f.SwitchPort(S1, 5, 4, k4x, kQdr, kEdr);
  f.SwitchPort(S1, 6, 2, k1x, kSdr, 0);
  f.SwitchPort(S1, 7, 4, k4x, kQdr, 0);
  f.SwitchPort(S2, 1, 4, k12x, kSdr, 0);
  f.SwitchPort(S2, 2, 4, k1x, kDdr, 0);
  f.SwitchPort(S2, 3, 4, k4x, kQdr, 0);
  f.SwitchPort(S2, 4, 4, k4x, kQdr, 0, /*down=*/true);
  f.SwitchPort(S2, 5, 4, k4x, kQdr, kEdr);
  f.SwitchPort(S2, 6, 2, k1x, kSdr, 0);
  f.SwitchPort(S2, 7, 4, k4x, kQdr, 0);
  f.SwitchPort(S2, 8, 4, k4x, kQdr, 0);
  f.Link(A, 1, S1, 1);
  f.Link(B, 1, S1, 2);
  f.Link(T, 1, S1, 3);
  f.Link(G, 1, S1, 7);
  f.Link(S1, 5, S2, 5);
  f.Link(S1, 6, S2, 6);
  f.Link(C, 1, S2, 1);
  f.Link(D, 1, S2, 2);
  f.Link(F, 1, S2, 3);
  f.Link(J, 1, S2, 7);
  f.Link(H, 1, S2, 8);
  // S1: local ports, C's LIDs split over the parallel links, nothing for F.
  for (auto r : std::map<uint16_t, uint8_t>{{1, 0},
                                            {2, 5},
                                            {10, 1},
                                            {11, 1},
                                            {12, 2},
                                            {13, 3},
                                            {14, 7},
                                            {16, 5},
                                            {17, 6},
                                            {18, 5},
                                            {22, 5},
                                            {30, 5},
                                            {40, 5}})
    f.Route(S1, r.first, r.second);
  // S2: A's LID 10 over p5, 11 not routed; E's LID out of the down port;
  // LID 40 back to S1, which sends it back here: a loop.
  for (auto r : std::map<uint16_t, uint8_t>{{1, 5},
                                            {2, 0},
                                            {10, 5},
                                            {12, 5},
                                            {13, 5},
                                            {14, 5},
                                            {16, 1},
                                            {17, 1},
                                            {18, 2},
                                            {20, 3},
                                            {22, 4},
                                            {30, 8},
                                            {40, 5}})
    f.Route(S2, r.first, r.second);
  f.Pkeys(1, {0xffff, 0x8002});
  f.Pkeys(2, {0xffff, 0x0002});
  f.Pkeys(3, {0x0002});
  f.Pkeys(4, {0xffff});
  f.Partition(0x7fff, 1);
  f.Partition(0x0002, 5);
  f.db().SortRecords();
  return f.db();
}

// The SA's record for the fields that vary here; the rest as OpenSM
// leaves them (0), with selector 2 on MTU, rate and lifetime.
inline ibv_path_record Expected(uint64_t sguid, uint16_t slid, uint64_t dguid, uint16_t dlid,
                                uint16_t pkey, uint8_t sl, uint8_t mtu, uint8_t rate, uint8_t life,
                                bool reversible) {
  ssa::mad::PathRecord r;
  uint64_t be = ssa::ToBe64(kPrefix);
  memcpy(r.dgid, &be, 8);
  memcpy(r.sgid, &be, 8);
  be = ssa::ToBe64(dguid + 1);
  memcpy(r.dgid + 8, &be, 8);
  be = ssa::ToBe64(sguid + 1);
  memcpy(r.sgid + 8, &be, 8);
  r.dlid = dlid;
  r.slid = slid;
  r.reversible = reversible;
  r.pkey = pkey;
  r.sl = sl;
  r.mtu_selector = r.rate_selector = r.packet_life_time_selector = 2;
  r.mtu = mtu;
  r.rate = rate;
  r.packet_life_time = life;
  ibv_path_record out;
  ssa::mad::ToIbvPathRecord(r, &out);
  return out;
}

// Two IB routers for the off-subnet tests: R1's port GUID (node GUID + 1)
// is the smaller number, R2's the smaller once byte-swapped, so OpenSM's
// "first router" on a little-endian host is R2 (as on ibsim).
constexpr uint64_t R1 = 0x0100000000000a00, R2 = 0x0200000000000500;
constexpr uint16_t kR1Lid = 50, kR2Lid = 51;

struct PrefixRouteSpec {
  uint64_t prefix, port_guid;  // as in OpenSM's prefix_routes_file; 0: "*"
};

// TwoSwitchFabric with R1 on S1 port 4 and R2 on S1 port 8 (4x QDR, 4K
// MTU, P_Keys as A's), these prefix routes in this order, and this subnet
// prefix. Sorted.
inline Smdb TwoRouterFabric(std::initializer_list<PrefixRouteSpec> routes,
                            uint64_t subnet_prefix = kPrefix) {
  FabricBuilder f;
  f.db() = TwoSwitchFabric();
  f.db().subnet.records[0].subnet_prefix = subnet_prefix;
  f.Router(R1, kR1Lid, 5, k4x, kQdr, 1);
  f.Router(R2, kR2Lid, 5, k4x, kQdr, 1);
  f.SwitchPort(S1, 4, 5, k4x, kQdr, 0);
  f.SwitchPort(S1, 8, 5, k4x, kQdr, 0);
  f.Link(R1, 1, S1, 4);
  f.Link(R2, 1, S1, 8);
  f.Route(S1, kR1Lid, 4);
  f.Route(S1, kR2Lid, 8);
  f.Route(S2, kR1Lid, 5);
  f.Route(S2, kR2Lid, 5);
  for (const PrefixRouteSpec& r : routes) f.PrefixRoute(r.prefix, r.port_guid);
  f.db().SortRecords();
  return f.db();
}

// `db` sorted and indexed; null when the index refuses it.
inline std::unique_ptr<SmdbIndex> SortedIndex(Smdb* db) {
  db->SortRecords();
  std::unique_ptr<SmdbIndex> x;
  if (!SmdbIndex::Build(*db, &x).ok()) return nullptr;
  return x;
}

// The same fabric without the Tavor quirk (opt.enable_quirks off).
inline Smdb WithoutQuirks(Smdb db) {
  db.subnet.records[0].flags &= ~kSubnetEnableQuirks;
  return db;
}

// One random change to a fabric (an LFT entry, a port's MTU, rate or
// state, a link removed); returns what it did, for failure messages.
inline std::string MutateFabric(std::mt19937* rng, Smdb* db) {
  auto pick = [rng](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(*rng); };
  switch (pick(5)) {
    case 0: {
      auto& b = db->lft_blocks.records[pick(db->lft_blocks.records.size())];
      size_t i = pick(kLftBlockSize);
      b.ports[i] = static_cast<uint8_t>(pick(2) ? pick(9) : kLftNoPath);
      return "lft " + std::to_string(b.block * kLftBlockSize + i);
    }
    case 1: {
      auto& p = db->ports.records[pick(db->ports.records.size())];
      p.mtu_cap = static_cast<uint8_t>(1 + pick(5));
      return "mtu of port " + std::to_string(p.port_num);
    }
    case 2: {
      auto& p = db->ports.records[pick(db->ports.records.size())];
      p.link_width_active = static_cast<uint8_t>(1u << pick(4));
      p.rate = static_cast<uint8_t>(2 + pick(10));
      return "rate of port " + std::to_string(p.port_num);
    }
    case 3: {
      auto& p = db->ports.records[pick(db->ports.records.size())];
      p.port_state = static_cast<uint8_t>(1 + pick(4));
      return "state of port " + std::to_string(p.port_num);
    }
    default: {
      if (db->links.records.empty()) return "nothing";
      SmdbLink l = db->links.records[pick(db->links.records.size())];
      auto& v = db->links.records;
      v.erase(std::remove_if(v.begin(), v.end(),
                             [&](const SmdbLink& x) {
                               return (x.node_guid == l.node_guid && x.port_num == l.port_num) ||
                                      (x.node_guid == l.peer_node_guid &&
                                       x.port_num == l.peer_port_num);
                             }),
              v.end());
      return "link removed";
    }
  }
}

}  // namespace path_engine_test

#endif
