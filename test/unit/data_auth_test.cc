// data_auth_test.cc: issue 46, finding 7: who may serve whom on the data
// channel (link_auth.h, frame.h "Session"). Real TCP on loopback, a
// parent (DataServer) and a child (DataClient) on one loop thread:
//   - a child takes data only from a peer that proves the link key the
//     core gave it for that parent: a process on the parent's port
//     without the key (the attack: a local user binds the port while the
//     member restarts) serves a forged PRDB or SMDB with a newer epoch,
//     and nothing of it is applied; the child counts it, logs it and
//     reports the parent lost (it joins again);
//   - a peer that answers as another GUID is refused the same way;
//   - a parent serves nothing to a child whose PROOF is wrong;
//   - the core derives one key per parent, child and token, and gives the
//     parent (TokenCheck) the key it gave the child (join answer).
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/smdb/smdb_prdb.h"
#include "common/tree/data_client.h"
#include "common/tree/data_server.h"
#include "common/tree/db_version.h"
#include "common/tree/frame.h"
#include "common/tree/link_auth.h"
#include "common/tree/membership.h"
#include "common/tree/stream.h"
#include "test/support/check_ok.h"
#include "test/support/loopback.h"
#include "test/support/poll.h"
#include "test/support/rogue_parent.h"
#include "test/unit/loop_thread.h"
#include "test/unit/smdb_test_util.h"

#include "CppUTest/TestHarness.h"

namespace tree = ssa::tree;
using Clock = std::chrono::steady_clock;
using ssa::smdb::Prdb;
using ssa::smdb::Smdb;

namespace {

const tree::LinkKey kKey{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
const tree::LinkKey kOtherKey{{16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}};
constexpr uint64_t kParentGuid = 0x0002c90300000012ULL;
constexpr uint64_t kChildGuid = 0x0002c90300000013ULL;

tree::Bytes Shared(std::string s) { return std::make_shared<const std::string>(std::move(s)); }

// A PRDB or SMDB version of `epoch`, distinct per `seed` (the forged one
// differs from the real one in its records, not only its epoch).
template <class Db>
tree::Bytes Version(uint64_t epoch, uint32_t seed);
template <>
tree::Bytes Version<Prdb>(uint64_t epoch, uint32_t seed) {
  Prdb p = smdb_test::SamplePrdb();
  p.global_epoch = epoch;
  for (auto& r : p.paths.records) r.sl = static_cast<uint8_t>(seed & 0xf);
  return Shared(smdb_test::Serialized(p));
}
template <>
tree::Bytes Version<Smdb>(uint64_t epoch, uint32_t seed) {
  Smdb s = smdb_test::SampleSmdb();
  s.global_epoch = epoch;
  std::mt19937 rng(seed);
  if (seed) smdb_test::RandomEdits(&rng, &s);
  return Shared(smdb_test::Serialized(s));
}

// The loop thread, and a wait on its objects' state.
struct Loop : ssa::test::LoopThread {
  // Polls `done` on the loop until it holds; the bound only bounds a hang.
  bool WaitFor(std::function<bool()> done) {
    return ssa::test::PollUntil(std::chrono::seconds(20), [&] { return Run<bool>(done); });
  }
};

// Destroys `*p` on l's thread, where it lives.
template <class T>
void ResetOnLoop(Loop* l, std::unique_ptr<T>* p) {
  l->Run<int>([p] {
    p->reset();
    return 0;
  });
}

// A parent at `guid` that admits every child for `key` with `link` (the
// real one holds the key the core gave; a rogue only guesses) and serves
// `bytes` as epoch `epoch`.
struct Parent {
  Loop* l;
  std::unique_ptr<tree::DataServer> server;
  Parent(Loop* loop, uint64_t guid, const tree::LinkKey& link, const std::string& key,
         uint64_t epoch, tree::Bytes bytes)
      : l(loop) {
    l->Run<int>([&] {
      tree::DataServerOptions o;
      o.guid = guid;
      server = std::make_unique<tree::DataServer>(
          &l->loop, l->tcp.get(), &l->log, o,
          [key, link](const tree::Hello&, tree::DataServer::AdmitFn done) { done(0, key, link); });
      tree::DataAddress any;
      CHECK_OK(tree::DataAddress::Parse("127.0.0.1:0", &any));
      CHECK_OK(server->Listen(any));
      server->Publish(key, {epoch, tree::DigestOf(*bytes), bytes}, nullptr, 0);
      return 0;
    });
  }
  ~Parent() { ResetOnLoop(l, &server); }
  tree::DataAddress address() {
    return l->Run<tree::DataAddress>([this] { return server->address(); });
  }
  tree::DataServerCounters counters() {
    return l->Run<tree::DataServerCounters>([this] { return server->counters(); });
  }
};

// A child of `kind` holding version 1 of its database, assigned the
// parent kParentGuid with key `key`.
template <class Db>
struct Child {
  Loop* l;
  tree::DbReplica<Db> replica;
  std::unique_ptr<tree::DataClient> client;
  std::vector<std::pair<uint64_t, bool>> lost;  // on_lost calls
  Child(Loop* loop, tree::DbKind kind, const tree::DataAddress& at, const tree::LinkKey& key)
      : l(loop) {
    CHECK_OK(replica.Load(Version<Db>(1, 0)));
    l->Run<int>([&] {
      tree::Hello h;
      h.roles = kind == tree::DbKind::kPrdb ? tree::kRoleConsumer : tree::kRoleAccess;
      h.kind = kind;
      h.guid = kChildGuid;
      client = std::make_unique<tree::DataClient>(&l->loop, l->tcp.get(), &l->log, &replica, h,
                                                  [this](uint64_t guid, bool refused) {
                                                    lost.push_back({guid, refused});
                                                  });
      tree::ParentInfo p;
      p.guid = kParentGuid;
      p.lid = 12;
      p.address = at;
      p.key = key;
      tree::Token token{};
      token[0] = 9;
      client->SetParents(p, tree::ParentInfo{}, token);
      return 0;
    });
  }
  ~Child() { ResetOnLoop(l, &client); }
  tree::DataClientCounters counters() {
    return l->Run<tree::DataClientCounters>([this] { return client->counters(); });
  }
  uint64_t epoch() {
    return l->Run<uint64_t>([this] { return replica.epoch(); });
  }
};

// The child meets a peer at its parent's address that serves a forged
// version 7 of its database with key `peer_key` as GUID `peer_guid`.
template <class Db>
void ForgedParentIsRefused(tree::DbKind kind, uint64_t peer_guid, const tree::LinkKey& peer_key) {
  Loop l;
  ssa::test::RogueOptions o;
  o.guid = peer_guid;
  o.key = peer_key;
  o.epoch = 7;
  o.bytes = *Version<Db>(7, 42);
  o.kind = kind;
  std::unique_ptr<ssa::test::RogueParent> rogue;
  CHECK_OK(ssa::test::RogueParent::Start(o, &rogue));
  tree::DataAddress at;
  CHECK_OK(tree::DataAddress::Parse("127.0.0.1:" + std::to_string(rogue->port()), &at));
  Child<Db> child(&l, kind, at, kKey);
  CHECK(l.WaitFor([&] { return child.client->counters().unproven_parents >= 1; }));
  CHECK(l.WaitFor([&] { return !child.lost.empty(); }));
  auto lost = l.Run<std::pair<uint64_t, bool>>([&] { return child.lost.front(); });
  CHECK_EQUAL(kParentGuid, lost.first);  // reported lost: the child joins again
  CHECK_FALSE(lost.second);
  // The rogue sent its forged version whole, and nothing of it was taken
  // (nor after the child's next tries).
  CHECK(rogue->served() >= 1);
  CHECK(l.WaitFor([&] { return child.client->counters().unproven_parents >= 2; }));
  CHECK_EQUAL(1u, child.epoch());
  CHECK_EQUAL(0u, child.counters().full_received);
}

}  // namespace

TEST_GROUP(DataAuth){};

TEST(DataAuth, AChildTakesDataFromTheParentThatProvesTheLinkKey) {
  Loop l;
  Parent parent(&l, kParentGuid, kKey, "prdb:1", 5, Version<Prdb>(5, 3));
  Child<Prdb> child(&l, tree::DbKind::kPrdb, parent.address(), kKey);
  CHECK(l.WaitFor([&] { return child.replica.epoch() == 5; }));
  CHECK_EQUAL(0u, child.counters().unproven_parents);
  CHECK_EQUAL(0u, parent.counters().bad_proofs);
  CHECK_EQUAL(1u, parent.counters().full_transfers);
}

TEST(DataAuth, AForgedPrdbFromAProcessWithoutTheKeyIsNeverApplied) {
  ForgedParentIsRefused<Prdb>(tree::DbKind::kPrdb, kParentGuid, kOtherKey);
}

TEST(DataAuth, AForgedSmdbFromAProcessWithoutTheKeyIsNeverApplied) {
  ForgedParentIsRefused<Smdb>(tree::DbKind::kSmdb, kParentGuid, kOtherKey);
}

TEST(DataAuth, APeerAnsweringAsAnotherGuidIsRefusedEvenWithAValidKey) {
  // Another member's key cannot serve this child as its parent: the
  // WELCOME must name the GUID the core assigned.
  ForgedParentIsRefused<Smdb>(tree::DbKind::kSmdb, kParentGuid + 1, kKey);
}

TEST(DataAuth, AParentServesNothingToAChildWhoseProofIsWrong) {
  Loop l;
  Parent parent(&l, kParentGuid, kKey, "smdb", 5, Version<Smdb>(5, 3));
  int fd = ssa::test::ConnectLoopback(static_cast<int>(parent.address().port));
  CHECK(fd >= 0);
  tree::Hello h;
  h.roles = tree::kRoleAccess;
  h.kind = tree::DbKind::kSmdb;
  h.guid = kChildGuid;
  std::string hello = tree::HelloPayload(h);
  // The HELLO, and (a child without the key) a PROOF made with another.
  std::string out = tree::EncodeFrame(tree::FrameType::kHello, hello);
  CHECK(send(fd, out.data(), out.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(out.size()));
  tree::FrameReader r;
  std::vector<tree::FrameType> got;
  bool proved = false;
  auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    uint8_t buf[4096];
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;  // closed after the REFUSE
    CHECK_OK(r.Feed(buf, static_cast<size_t>(n)));
    tree::Frame f;
    while (r.Next(&f)) {
      got.push_back(f.type);
      if (f.type == tree::FrameType::kWelcome && !proved) {
        std::string proof = tree::EncodeProof(tree::ProofTag(kOtherKey, hello, f.payload));
        CHECK(send(fd, proof.data(), proof.size(), MSG_NOSIGNAL) > 0);
        proved = true;
      }
    }
  }
  close(fd);
  CHECK(proved);
  // WELCOME, then REFUSE: no transfer.
  CHECK_EQUAL(2u, got.size());
  CHECK(got[1] == tree::FrameType::kRefuse);
  CHECK_EQUAL(1u, parent.counters().bad_proofs);
  CHECK_EQUAL(0u, parent.counters().full_transfers);
}

namespace {
class FlatTopology : public tree::Topology {
 public:
  uint64_t OwnerGuid(uint16_t lid) const override { return 0x1000 + lid; }
  int Hops(uint16_t, uint16_t) const override { return 2; }
};
}  // namespace

TEST(DataAuth, TheCoreGivesTheParentTheKeyItGaveTheChildAndNobodyElse) {
  FlatTopology topology;
  tree::DataAddress address;
  CHECK_OK(tree::DataAddress::Parse("127.0.0.1:7470", &address));
  tree::Membership m(tree::MembershipOptions{}, 0x1001, 1, address);
  m.SetTopology(&topology);
  tree::ContentDigest sha = tree::Sha256Of("an SMDB");
  m.SetCoreEpoch(3, sha);
  auto now = tree::Membership::Clock::now();
  auto join = [&](uint16_t lid, uint8_t roles) {
    tree::JoinRequest r;
    r.roles = roles;
    r.port_guid = 0x1000 + lid;
    if (roles != tree::kRoleConsumer)
      CHECK_OK(
          tree::DataAddress::Parse("127.0.0.1:" + std::to_string(7000 + lid), &r.data_address));
    tree::JoinAnswer a;
    std::string why;
    CHECK_EQUAL_TEXT(0, m.Join(r, lid, now, &a, &why), why.c_str());
    return a;
  };
  tree::JoinAnswer access = join(2, tree::kRoleAccess);
  tree::JoinAnswer consumer = join(10, tree::kRoleConsumer);
  CHECK_EQUAL(0x1002u, consumer.parent.guid);
  CHECK(consumer.smdb_sha256 == sha);
  CHECK(consumer.parent.key == m.LinkKeyOf(0x1002, 0x100a, consumer.token));
  CHECK(consumer.core_key == m.LinkKeyOf(0x1001, 0x100a, consumer.token));
  CHECK(access.parent.key == m.LinkKeyOf(0x1001, 0x1002, access.token));
  // Keys differ by parent, child and token.
  CHECK(consumer.parent.key != consumer.core_key);
  CHECK(consumer.parent.key != m.LinkKeyOf(0x1002, 0x100b, consumer.token));
  tree::Token other = consumer.token;
  other[0] ^= 1;
  CHECK(consumer.parent.key != m.LinkKeyOf(0x1002, 0x100a, other));
  // The assigned parent asking about its child gets the child's key...
  tree::TokenCheckRequest q;
  q.child_guid = 0x100a;
  q.token = consumer.token;
  q.parent_guid = 0x1002;
  tree::TokenCheckAnswer a = m.CheckToken(q, now);
  CHECK(a.valid);
  CHECK(a.key == consumer.parent.key);
  // ...another member asking as parent gets nothing.
  q.parent_guid = 0x1003;
  a = m.CheckToken(q, now);
  CHECK_FALSE(a.valid);
  CHECK(a.key == tree::LinkKey{});
  // A restarted core (another secret) derives other keys.
  tree::Membership m2(tree::MembershipOptions{}, 0x1001, 1, address);
  CHECK(m2.LinkKeyOf(0x1002, 0x100a, consumer.token) != consumer.parent.key);
}

TEST(DataAuth, TagsCoverBothNoncesAndTheirLabels) {
  tree::Hello h;
  h.guid = kChildGuid;
  h.nonce[0] = 1;
  tree::Welcome w;
  w.parent_guid = kParentGuid;
  w.nonce[0] = 2;
  std::string hello = tree::HelloPayload(h), fields = tree::WelcomeFields(w);
  tree::AuthTag t = tree::WelcomeTag(kKey, hello, fields);
  CHECK(tree::TagsEqual(t, tree::WelcomeTag(kKey, hello, fields)));
  CHECK_FALSE(tree::TagsEqual(t, tree::WelcomeTag(kOtherKey, hello, fields)));
  // Another child nonce (a replayed WELCOME) or another parent nonce.
  tree::Hello h2 = h;
  h2.nonce[0] = 3;
  CHECK_FALSE(tree::TagsEqual(t, tree::WelcomeTag(kKey, tree::HelloPayload(h2), fields)));
  tree::Welcome w2 = w;
  w2.nonce[0] = 4;
  CHECK_FALSE(tree::TagsEqual(t, tree::WelcomeTag(kKey, hello, tree::WelcomeFields(w2))));
  // A WELCOME's tag is no PROOF (labels differ).
  w.tag = t;
  CHECK_FALSE(tree::TagsEqual(t, tree::ProofTag(kKey, hello, fields)));
  // SHA-256 of "abc" (FIPS 180-2's example).
  STRCMP_EQUAL("ba7816bf8f01cfea", tree::ShortHex(tree::Sha256Of("abc")).c_str());
}
