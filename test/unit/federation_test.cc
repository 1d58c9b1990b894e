// federation_test.cc: the federation of subnets (tree/federation.h,
// federation_config.h, issue 48 step 2), two or three cores' Federation
// objects on one loop thread over real loopback TCP:
//   - each core serves the entries under its own prefix and takes its
//     peers'; an entry a core holds of another prefix is not announced;
//   - a change reaches the peer as a delta; an entry removed is gone;
//   - a broken link keeps the peer's entries for hold_s, then withdraws
//     them; the peer's return is a full resync that replaces the set;
//   - a peer with several addresses (SM hosts) found at its master's,
//     and after a failover at the new master's; one that refuses us is
//     left for the next;
//   - a listen port held by another socket is retried until it is free;
//   - a peer without the shared key gets nothing and serves nothing;
//   - a peer's entries outside its configured prefix are refused, counted;
//   - the federation file: every mistake refused with what to fix, the
//     key file's mode and owner checked.
#include <arpa/inet.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include "common/smdb/addr_db.h"
#include "common/tree/data_server.h"
#include "common/tree/federation.h"
#include "common/tree/federation_config.h"
#include "test/support/check_ok.h"
#include "test/support/loopback.h"
#include "test/support/poll.h"
#include "test/support/temp_dir.h"
#include "test/unit/loop_thread.h"

#include "CppUTest/TestHarness.h"

namespace tree = ssa::tree;
namespace smdb = ssa::smdb;

namespace {

constexpr uint64_t kPrefixA = 0xfec0000000000001ULL;
constexpr uint64_t kPrefixB = 0xfec0000000000002ULL;
constexpr uint64_t kPrefixC = 0xfec0000000000003ULL;
const char kKeyAB[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const char kKeyOther[] = "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

std::array<uint8_t, 16> Gid(uint64_t prefix, uint64_t guid) {
  std::array<uint8_t, 16> g{};
  for (int i = 0; i < 8; ++i) {
    g[i] = static_cast<uint8_t>(prefix >> (56 - 8 * i));
    g[8 + i] = static_cast<uint8_t>(guid >> (56 - 8 * i));
  }
  return g;
}

// An address database of `hosts` text lines "NAME PREFIX GUID" and
// "IPV4 PREFIX GUID".
smdb::AddrDb Entries(const std::vector<std::string>& lines) {
  smdb::AddrDb db;
  for (const std::string& l : lines) {
    char what[64];
    unsigned long long prefix = 0, guid = 0;
    CHECK(sscanf(l.c_str(), "%63s %llx %llx", what, &prefix, &guid) == 3);
    std::array<uint8_t, 16> gid = Gid(prefix, guid);
    uint8_t v4[4];
    if (inet_pton(AF_INET, what, v4) == 1) {
      smdb::AddrIp r;
      r.ip = smdb::IpKey(v4, 4);
      r.gid = gid;
      db.ips.records.push_back(r);
    } else {
      smdb::AddrName r;
      CHECK(smdb::NameKey(what, &r.name));
      r.gid = gid;
      db.names.records.push_back(r);
    }
  }
  db.SortRecords();
  return db;
}

bool HasName(const smdb::AddrDb& db, const char* name) {
  uint8_t gid[16];
  return db.FindName(name, gid);
}
bool HasIp(const smdb::AddrDb& db, const char* ip) {
  uint8_t v4[4];
  uint8_t gid[16];
  return inet_pton(AF_INET, ip, v4) == 1 && db.FindIp(v4, 4, gid);
}

struct Loop : ssa::test::LoopThread {
  bool WaitFor(std::function<bool()> done) {
    return ssa::test::PollUntil(std::chrono::seconds(20), [&] { return Run<bool>(done); });
  }
};

}  // namespace

TEST_GROUP(Federation) {
  ssa::test::TempDir dir;
  std::unique_ptr<Loop> l;
  int port_a = 0, port_b = 0, port_c = 0;

  void setup() override {
    CHECK_OK(dir.status());
    l = std::make_unique<Loop>();
    port_a = ssa::test::FreeLoopbackPort();
    do port_b = ssa::test::FreeLoopbackPort();
    while (port_b == port_a);
    do port_c = ssa::test::FreeLoopbackPort();
    while (port_c == port_a || port_c == port_b);
  }
  void teardown() override { l.reset(); }

  std::string KeyFile(const std::string& name, const char* hex, mode_t mode = 0600) {
    std::string path = dir.path() + "/" + name + ".key";
    std::ofstream(path) << hex << "\n";
    chmod(path.c_str(), mode);
    return path;
  }

  tree::FederationConfig Config(const std::string& text) {
    tree::FederationConfig c;
    CHECK_OK(tree::ParseFederationText(text, "fed.conf", &c));
    return c;
  }

  std::string Listen(int port) { return "listen 127.0.0.1:" + std::to_string(port) + "\n"; }
  std::string PeerLine(const char* name, int port, uint64_t prefix, const std::string& key) {
    char line[512];
    snprintf(line, sizeof(line), "peer %s 127.0.0.1:%d 0x%016llx %s\n", name, port,
             static_cast<unsigned long long>(prefix), key.c_str());
    return line;
  }

  // A core's federation, started, with `local` entries; counts changes.
  struct Core {
    Loop* l;
    std::unique_ptr<tree::Federation> f;
    int changes = 0;
    Core(Loop* loop, tree::FederationConfig c, uint64_t prefix, const smdb::AddrDb& local)
        : l(loop) {
      l->Run<int>([&] {
        f = std::make_unique<tree::Federation>(&l->loop, l->tcp.get(), &l->log, c, prefix,
                                               [this] { ++changes; });
        f->PublishLocal(local);
        CHECK_OK(f->Start());
        return 0;
      });
    }
    ~Core() {
      l->Run<int>([this] {
        f.reset();
        return 0;
      });
    }
    void Publish(const smdb::AddrDb& local) {
      l->Run<int>([&] {
        f->PublishLocal(local);
        return 0;
      });
    }
    smdb::AddrDb Remote() {
      return l->Run<smdb::AddrDb>([this] {
        smdb::AddrDb r;
        f->Remote(&r);
        return r;
      });
    }
    tree::FederationPeerStats Peer(size_t i) {
      return l->Run<tree::FederationPeerStats>([this, i] { return f->Stats().at(i); });
    }
  };

  // Core A (peer B) and core B (peer A), each with `hold_s`.
  std::unique_ptr<Core> StartA(const std::string& key, int hold_s, const smdb::AddrDb& local) {
    return std::make_unique<Core>(l.get(),
                                  Config(Listen(port_a) + "hold_s " + std::to_string(hold_s) +
                                         "\n" + PeerLine("b", port_b, kPrefixB, key)),
                                  kPrefixA, local);
  }
  std::unique_ptr<Core> StartB(const std::string& key, const smdb::AddrDb& local) {
    return std::make_unique<Core>(
        l.get(), Config(Listen(port_b) + PeerLine("a", port_a, kPrefixA, key)), kPrefixB, local);
  }
};

TEST(Federation, EachCoreServesItsOwnPrefixAndTakesItsPeers) {
  std::string key = KeyFile("ab", kKeyAB);
  // A's hosts file also names a node of B: not A's to announce.
  auto a = StartA(key, 60,
                  Entries({"a1 fec0000000000001 11", "10.1.0.1 fec0000000000001 11",
                           "b9 fec0000000000002 99"}));
  auto b = StartB(key, Entries({"b1 fec0000000000002 21", "b2 fec0000000000002 22",
                                "10.2.0.1 fec0000000000002 21"}));
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].names == 2 && b->f->Stats()[0].names == 1; }));
  smdb::AddrDb at_a = a->Remote(), at_b = b->Remote();
  CHECK(HasName(at_a, "b1"));
  CHECK(HasName(at_a, "B2"));  // names compare without case
  CHECK(HasIp(at_a, "10.2.0.1"));
  CHECK(!HasName(at_a, "a1"));
  CHECK(HasName(at_b, "a1"));
  CHECK(HasIp(at_b, "10.1.0.1"));
  CHECK(!HasName(at_b, "b9"));  // A's entry of B's prefix stayed home
  LONGS_EQUAL(1, a->Peer(0).full);
  CHECK(a->Peer(0).up);
  CHECK(a->changes >= 1);
  LONGS_EQUAL(0, a->Peer(0).refused_versions);
}

TEST(Federation, ChangesTravelAsDeltasAndRemovedEntriesDisappear) {
  std::string key = KeyFile("ab", kKeyAB);
  auto a = StartA(key, 60, Entries({"a1 fec0000000000001 11"}));
  auto b = StartB(key, Entries({"b1 fec0000000000002 21", "b2 fec0000000000002 22",
                                "10.2.0.1 fec0000000000002 21"}));
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].names == 2; }));
  // b2 leaves; 10.2.0.1 moves to b3's port.
  b->Publish(Entries(
      {"b1 fec0000000000002 21", "b3 fec0000000000002 23", "10.2.0.1 fec0000000000002 23"}));
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].deltas >= 1; }));
  smdb::AddrDb at_a = a->Remote();
  CHECK(!HasName(at_a, "b2"));
  CHECK(HasName(at_a, "b3"));
  uint8_t gid[16], v4[4] = {10, 2, 0, 1};
  CHECK(at_a.FindIp(v4, 4, gid));
  LONGS_EQUAL(0x23, gid[15]);
  LONGS_EQUAL(1, a->Peer(0).full);  // the change came as a delta
}

TEST(Federation, ABrokenLinkKeepsEntriesForHoldThenWithdrawsAndReturnResyncs) {
  std::string key = KeyFile("ab", kKeyAB);
  auto a = StartA(key, 1, Entries({"a1 fec0000000000001 11"}));
  auto b = StartB(key, Entries({"b1 fec0000000000002 21", "b2 fec0000000000002 22"}));
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].names == 2; }));
  b.reset();  // B's core goes away
  CHECK(l->WaitFor([&] { return !a->f->Stats()[0].up; }));
  // Still served right after the break (hold_s), withdrawn after it.
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].withdrawals == 1; }));
  LONGS_EQUAL(0, a->Remote().names.records.size());
  // B comes back without b2 (removed while the link was down): the full
  // set it sends replaces everything, b2 is not served again.
  b = StartB(key, Entries({"b1 fec0000000000002 21"}));
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].names == 1; }));
  CHECK(HasName(a->Remote(), "b1"));
  CHECK(!HasName(a->Remote(), "b2"));
  LONGS_EQUAL(1, a->Peer(0).resyncs);
}

TEST(Federation, AListenPortTakenIsRetriedAndTheFederationComesUpOnceItIsFree) {
  std::string key = KeyFile("ab", kKeyAB);
  int holder = ssa::test::ListenLoopback(port_a);
  CHECK(holder >= 0);
  auto a = StartA(key, 60, Entries({"a1 fec0000000000001 11"}));
  auto b = StartB(key, Entries({"b1 fec0000000000002 21"}));
  // A cannot listen, counts each attempt, and still takes B's entries
  // (its own link dials out); B gets nothing of A's meanwhile.
  CHECK(l->WaitFor([&] { return a->f->ListenStats().failures >= 2; }));
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].names == 1; }));
  CHECK(!l->Run<bool>([&] { return a->f->ListenStats().listening; }));
  LONGS_EQUAL(0, b->Remote().names.records.size());
  close(holder);
  // The next retry binds it; B's link comes up and takes A's entries.
  CHECK(l->WaitFor([&] { return a->f->ListenStats().listening; }));
  CHECK(l->WaitFor([&] { return b->f->Stats()[0].names == 1; }));
  CHECK(HasName(b->Remote(), "a1"));
}

// Subnet B with two SM hosts: A's peer line names both; only the master's
// core listens (a standby's federation is not started until it serves).
TEST(Federation, APeerWithSeveralAddressesIsFoundAtItsMasterAndFollowedThroughAFailover) {
  std::string key = KeyFile("ab", kKeyAB);
  int port_b2 = port_c;  // B's second SM host
  auto a = std::make_unique<Core>(
      l.get(),
      Config(Listen(port_a) + "hold_s 600\npeer b 127.0.0.1:" + std::to_string(port_b) +
             ",127.0.0.1:" + std::to_string(port_b2) + " 0xfec0000000000002 " + key + "\n"),
      kPrefixA, Entries({"a1 fec0000000000001 11"}));
  // B's master is on the second host; the first does not listen.
  auto master = std::make_unique<Core>(
      l.get(), Config(Listen(port_b2) + PeerLine("a", port_a, kPrefixA, key)), kPrefixB,
      Entries({"b1 fec0000000000002 21"}));
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].names == 1; }));
  STRCMP_EQUAL(("127.0.0.1:" + std::to_string(port_b2)).c_str(), a->Peer(0).address.c_str());
  CHECK(HasName(a->Remote(), "b1"));
  // Failover: the master's core stops, the first host's SM becomes master
  // (with the node b2 added meanwhile): A finds it and resyncs from it.
  master.reset();
  CHECK(l->WaitFor([&] { return !a->f->Stats()[0].up; }));
  master = StartB(key, Entries({"b1 fec0000000000002 21", "b2 fec0000000000002 22"}));
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].names == 2 && a->f->Stats()[0].resyncs == 1; }));
  STRCMP_EQUAL(("127.0.0.1:" + std::to_string(port_b)).c_str(), a->Peer(0).address.c_str());
  CHECK(HasName(a->Remote(), "b2"));
  LONGS_EQUAL(0, a->Peer(0).withdrawals);
}

// What answers at a peer's first address refuses us (a core of another
// federation on that host): the next address is asked when the refusal's
// retry comes (5 s), and serves.
TEST(Federation, APeerAddressThatRefusesIsLeftForTheNext) {
  std::string key = KeyFile("ab", kKeyAB);
  auto a = std::make_unique<Core>(
      l.get(),
      Config(Listen(port_a) + "peer b 127.0.0.1:" + std::to_string(port_b) +
             ",127.0.0.1:" + std::to_string(port_c) + " 0xfec0000000000002 " + key + "\n"),
      kPrefixA, Entries({"a1 fec0000000000001 11"}));
  int nowhere = ssa::test::FreeLoopbackPort();
  auto stranger = std::make_unique<Core>(
      l.get(), Config(Listen(port_b) + PeerLine("c", nowhere, kPrefixC, key)), kPrefixB,
      Entries({"x1 fec0000000000002 99"}));
  auto b =
      std::make_unique<Core>(l.get(), Config(Listen(port_c) + PeerLine("a", port_a, kPrefixA, key)),
                             kPrefixB, Entries({"b1 fec0000000000002 21"}));
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].names == 1; }));
  CHECK(HasName(a->Remote(), "b1"));
  CHECK(!HasName(a->Remote(), "x1"));
  STRCMP_EQUAL(("127.0.0.1:" + std::to_string(port_c)).c_str(), a->Peer(0).address.c_str());
}

TEST(Federation, AReconnectionWithinHoldReplacesTheSetWhole) {
  std::string key = KeyFile("ab", kKeyAB);
  auto a = StartA(key, 600, Entries({"a1 fec0000000000001 11"}));
  auto b = StartB(key, Entries({"b1 fec0000000000002 21", "b2 fec0000000000002 22"}));
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].names == 2; }));
  b.reset();
  CHECK(l->WaitFor([&] { return !a->f->Stats()[0].up; }));
  LONGS_EQUAL(2, a->Remote().names.records.size());  // held meanwhile
  b = StartB(key, Entries({"b2 fec0000000000002 22"}));
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].resyncs == 1; }));
  CHECK(!HasName(a->Remote(), "b1"));
  CHECK(HasName(a->Remote(), "b2"));
  LONGS_EQUAL(0, a->Peer(0).withdrawals);
}

TEST(Federation, APeerWithoutTheSharedKeyGetsAndGivesNothing) {
  auto a = StartA(KeyFile("ab", kKeyAB), 60, Entries({"a1 fec0000000000001 11"}));
  auto b = StartB(KeyFile("other", kKeyOther), Entries({"b1 fec0000000000002 21"}));
  // Each end's WELCOME fails the other's check (the WELCOME/PROOF
  // handshake of the data channel: a wrong PROOF is data_auth_test's):
  // both count the peer unproven, neither takes anything.
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].unproven >= 1; }));
  CHECK(l->WaitFor([&] { return b->f->Stats()[0].unproven >= 1; }));
  LONGS_EQUAL(0, a->Remote().names.records.size());
  LONGS_EQUAL(0, b->Remote().names.records.size());
  CHECK(!a->Peer(0).up);
}

TEST(Federation, APeersEntriesOutsideItsPrefixAreRefusedAndCounted) {
  std::string key = KeyFile("ab", kKeyAB);
  auto a = StartA(key, 60, Entries({"a1 fec0000000000001 11"}));
  // A rogue B: it holds the key but announces a GID of another subnet
  // (C's) and one of A's own.
  smdb::AddrDb rogue = Entries(
      {"b1 fec0000000000002 21", "evil fec0000000000003 31", "10.9.9.9 fec0000000000001 11"});
  rogue.global_epoch = rogue.names.epoch = rogue.ips.epoch = 1;
  auto bytes = std::make_shared<std::string>();
  CHECK_OK(rogue.Serialize(bytes.get()));
  tree::CoreSecret secret{};
  CHECK_OK(tree::ReadFederationKey(key, &secret));
  tree::LinkKeyDeriver keys(secret);
  const tree::LinkKey link = keys.Derive(kPrefixB, kPrefixA, tree::kFederationToken);
  std::unique_ptr<tree::DataServer> server;
  l->Run<int>([&] {
    tree::DataServerOptions o;
    o.guid = kPrefixB;
    server = std::make_unique<tree::DataServer>(
        &l->loop, l->tcp.get(), &l->log, o,
        [link](const tree::Hello&, tree::DataServer::AdmitFn done) {
          done(0, "federation", link);
        });
    tree::DataAddress at;
    CHECK_OK(tree::DataAddress::Parse("127.0.0.1:" + std::to_string(port_b), &at));
    CHECK_OK(server->Listen(at));
    server->Publish("federation", {1, tree::DigestOf(*bytes), bytes}, nullptr, 0);
    return 0;
  });
  CHECK(l->WaitFor([&] { return a->f->Stats()[0].full == 1; }));
  tree::FederationPeerStats s = a->Peer(0);
  LONGS_EQUAL(2, s.refused_entries);
  LONGS_EQUAL(1, s.refused_versions);
  smdb::AddrDb at_a = a->Remote();
  CHECK(HasName(at_a, "b1"));
  CHECK(!HasName(at_a, "evil"));
  CHECK(!HasIp(at_a, "10.9.9.9"));
  l->Run<int>([&] {
    server.reset();
    return 0;
  });
}

TEST(Federation, ThreeCoresEachHoldBothOthers) {
  std::string ab = KeyFile("ab", kKeyAB), other = KeyFile("ac", kKeyOther);
  auto a = std::make_unique<Core>(l.get(),
                                  Config(Listen(port_a) + PeerLine("b", port_b, kPrefixB, ab) +
                                         PeerLine("c", port_c, kPrefixC, other)),
                                  kPrefixA, Entries({"a1 fec0000000000001 11"}));
  auto b = std::make_unique<Core>(l.get(),
                                  Config(Listen(port_b) + PeerLine("a", port_a, kPrefixA, ab) +
                                         PeerLine("c", port_c, kPrefixC, ab)),
                                  kPrefixB, Entries({"b1 fec0000000000002 21"}));
  auto c = std::make_unique<Core>(l.get(),
                                  Config(Listen(port_c) + PeerLine("a", port_a, kPrefixA, other) +
                                         PeerLine("b", port_b, kPrefixB, ab)),
                                  kPrefixC, Entries({"c1 fec0000000000003 31"}));
  for (Core* core : {a.get(), b.get(), c.get()})
    CHECK(l->WaitFor([&] { return core->f->Stats()[0].full && core->f->Stats()[1].full; }));
  CHECK(HasName(a->Remote(), "b1") && HasName(a->Remote(), "c1"));
  CHECK(HasName(b->Remote(), "a1") && HasName(b->Remote(), "c1"));
  CHECK(HasName(c->Remote(), "a1") && HasName(c->Remote(), "b1"));
}

TEST_GROUP(FederationConfig) {
  ssa::test::TempDir dir;
  std::string key;
  void setup() override {
    CHECK_OK(dir.status());
    key = dir.path() + "/k.key";
    std::ofstream(key) << kKeyAB << "\n";
    chmod(key.c_str(), 0600);
  }
  // The error of parsing `text`, "" when it parses.
  std::string Error(const std::string& text) {
    tree::FederationConfig c;
    ssa::Status st = tree::ParseFederationText(text, "fed.conf", &c);
    return st.ok() ? "" : st.message();
  }
  std::string Peer(const std::string& prefix = "0xfec0000000000002") {
    return "peer b 10.0.0.2:7475 " + prefix + " " + key + "\n";
  }
};

TEST(FederationConfig, AGoodFileParses) {
  tree::FederationConfig c;
  CHECK_OK(tree::ParseFederationText("# ours\nlisten 0.0.0.0:7475\nhold_s 30\n" + Peer() +
                                         "peer c [fd00::3]:7475 0xfec0000000000003 " + key + "\n",
                                     "fed.conf", &c));
  LONGS_EQUAL(30, c.hold_s);
  LONGS_EQUAL(2, c.peers.size());
  CHECK(c.peers[0].prefix == kPrefixB);
  STRCMP_EQUAL("b", c.peers[0].name.c_str());
  LONGS_EQUAL(0x00, c.peers[0].key[0]);
  LONGS_EQUAL(0x1f, c.peers[0].key[31]);
  // A peer subnet with a standby SM: each host's address, in order.
  CHECK_OK(tree::ParseFederationText(
      "listen 0.0.0.0:7475\npeer b 10.0.0.2:7475,[fd00::2]:7476 0xfec0000000000002 " + key + "\n",
      "fed.conf", &c));
  LONGS_EQUAL(2, c.peers[0].addresses.size());
  STRCMP_EQUAL("10.0.0.2:7475", c.peers[0].addresses[0].ToString().c_str());
  STRCMP_EQUAL("[fd00::2]:7476", c.peers[0].addresses[1].ToString().c_str());
}

TEST(FederationConfig, EveryMistakeIsRefusedWithWhatToFix) {
  STRCMP_CONTAINS("no 'listen", Error(Peer()).c_str());
  STRCMP_CONTAINS("no 'peer'", Error("listen 0.0.0.0:1\n").c_str());
  STRCMP_CONTAINS("fed.conf:2: unknown keyword 'peers'",
                  Error("listen 0.0.0.0:1\npeers x\n").c_str());
  STRCMP_CONTAINS("fed.conf:1: listen:", Error("listen host:1\n" + Peer()).c_str());
  STRCMP_CONTAINS("1 to 86400", Error("listen 0.0.0.0:1\nhold_s 0\n" + Peer()).c_str());
  STRCMP_CONTAINS("not a subnet prefix", Error("listen 0.0.0.0:1\n" + Peer("zz")).c_str());
  STRCMP_CONTAINS("link-local", Error("listen 0.0.0.0:1\n" + Peer("0xfe80000000000000")).c_str());
  STRCMP_CONTAINS("used twice", Error("listen 0.0.0.0:1\n" + Peer() + Peer()).c_str());
  STRCMP_CONTAINS("expected 'peer NAME",
                  Error("listen 0.0.0.0:1\npeer b 10.0.0.2:1 0xfec0000000000002\n").c_str());
  auto peer_at = [&](const std::string& addresses) {
    return Error("listen 0.0.0.0:1\npeer b " + addresses + " 0xfec0000000000002 " + key + "\n");
  };
  STRCMP_CONTAINS("fed.conf:2: peer b: an empty address",
                  peer_at("10.0.0.2:1,,10.0.0.3:1").c_str());
  STRCMP_CONTAINS("an empty address", peer_at("10.0.0.2:1,").c_str());
  STRCMP_CONTAINS("10.0.0.3:0: port 0", peer_at("10.0.0.2:1,10.0.0.3:0").c_str());
  STRCMP_CONTAINS("10.0.0.2:1 given twice", peer_at("10.0.0.2:1,10.0.0.2:1").c_str());
  std::string nine;
  for (int i = 1; i <= 9; ++i)
    nine += (i > 1 ? "," : "") + std::string("10.0.0.") + std::to_string(i) + ":1";
  STRCMP_CONTAINS("more than 8 addresses", peer_at(nine).c_str());
}

TEST(FederationConfig, AKeyFileOthersCanReadOrOfTheWrongSizeIsRefused) {
  chmod(key.c_str(), 0644);
  std::string e = Error("listen 0.0.0.0:1\n" + Peer());
  STRCMP_CONTAINS("fed.conf:2: key file", e.c_str());
  STRCMP_CONTAINS("mode 0644", e.c_str());
  STRCMP_CONTAINS("chmod 0600", e.c_str());
  chmod(key.c_str(), 0400);
  STRCMP_EQUAL("", Error("listen 0.0.0.0:1\n" + Peer()).c_str());
  chmod(key.c_str(), 0600);
  std::ofstream(key) << "abcd\n";
  STRCMP_CONTAINS("64 hex digits", Error("listen 0.0.0.0:1\n" + Peer()).c_str());
  std::ofstream(key) << std::string(63, 'a') << "g\n";
  STRCMP_CONTAINS("not hex", Error("listen 0.0.0.0:1\n" + Peer()).c_str());
  std::string link = dir.path() + "/link.key";
  CHECK(symlink(key.c_str(), link.c_str()) == 0);
  tree::CoreSecret s;
  CHECK(!tree::ReadFederationKey(link, &s).ok());  // a symlink is not followed
  CHECK(!tree::ReadFederationKey(dir.path() + "/missing.key", &s).ok());
}
