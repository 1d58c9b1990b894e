// membership.h: the core's book of tree members (doc/ssa-tree.md, "Joining
// and parent choice"): admission, parent and backup assignment, tokens,
// leases, and the tree's state as JSON.
//
// Pure logic: no I/O, the time is passed in, so thousands of members are
// tested in one process. Topology questions (who owns a LID, how many
// switch hops between two LIDs) go through `Topology`, implemented over the
// core's SMDB by SmdbTopology.
//
// Not thread-safe: owned and used by the core's loop thread.
#ifndef IBACM_SSA_COMMON_TREE_MEMBERSHIP_H
#define IBACM_SSA_COMMON_TREE_MEMBERSHIP_H

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/smdb/smdb_index.h"
#include "common/tree/link_auth.h"
#include "common/tree/ssa_mad.h"

namespace ssa {
namespace tree {

class Topology {
 public:
  virtual ~Topology() = default;
  // The port GUID owning `lid` (any LID of its LMC range); 0 if none.
  virtual uint64_t OwnerGuid(uint16_t lid) const = 0;
  // Switch hops from `from` to `to` along the LFTs; kFar if no route.
  virtual int Hops(uint16_t from, uint16_t to) const = 0;
  static constexpr int kFar = 1000;
};

// Topology over one SMDB version (borrowed index; it must outlive this).
// Hop counts are cached per (from, to).
class SmdbTopology : public Topology {
 public:
  explicit SmdbTopology(const smdb::SmdbIndex* index) : index_(index) {}
  uint64_t OwnerGuid(uint16_t lid) const override;
  int Hops(uint16_t from, uint16_t to) const override;

 private:
  const smdb::SmdbIndex* index_;
  mutable std::unordered_map<uint32_t, int> hops_;
};

struct MembershipOptions {
  int lease_s = 30;
  int fanout_core = 64;
  int fanout_distribution = 64;
  int fanout_access = 1024;
  // Port GUIDs allowed to take the role; empty = any.
  std::set<uint64_t> allow_distribution;
  std::set<uint64_t> allow_access;
};

// Where the core's versions come from, for the tree view's health facts
// (ssa-tree --check): when its source last asked for a version (the
// plugin: OpenSM's sweep or routing change), last finished making one
// (changed or not), and the newest epoch it made; when the core last
// published. A default time_point: never.
struct CoreActivity {
  std::chrono::steady_clock::time_point requested, extracted, published;
  uint64_t produced_epoch = 0;
};

// One member as the core knows it.
struct Member {
  uint64_t guid = 0;
  uint16_t lid = 0;
  uint8_t roles = 0;
  Gid gid{};
  DataAddress address;
  std::string software;
  Token token{};
  uint64_t parent = 0;  // GUID; the core's own GUID for the core
  uint64_t backup = 0;  // 0: none
  uint64_t epoch = 0;
  MemberCounters counters;
  std::chrono::steady_clock::time_point expires;
  uint64_t joins = 0;
  // The link keys last derived for this life (its token) with its parent,
  // backup and the core, and the GUIDs they were derived for: a renewal
  // that keeps them derives nothing.
  struct KeyFor {
    uint64_t guid = 0;
    LinkKey key{};
  };
  KeyFor parent_key, backup_key, core_key;
};

class Membership {
 public:
  using Clock = std::chrono::steady_clock;

  // The core itself: its port, LID and data-channel address.
  Membership(MembershipOptions options, uint64_t core_guid, uint16_t core_lid,
             DataAddress core_address);

  // A new SMDB: topology for identity checks and hop counts (borrowed;
  // null until the first SMDB, when joins answer "retry").
  void SetTopology(const Topology* topology) { topology_ = topology; }
  // `smdb_sha256`: the SHA-256 of the SMDB's serialization at `epoch`
  // (join answers carry it: link_auth.h).
  void SetCoreEpoch(uint64_t epoch, const ContentDigest& smdb_sha256 = {}) {
    core_epoch_ = epoch;
    core_sha256_ = smdb_sha256;
  }
  void SetCoreCounters(const MemberCounters& c) { core_counters_ = c; }
  void SetCoreActivity(const CoreActivity& a) { core_activity_ = a; }

  // A Join from source LID `slid`. Returns the MAD status; fills *answer
  // on success. *why says why a join was refused, for the log.
  uint16_t Join(const JoinRequest& request, uint16_t slid, Clock::time_point now,
                JoinAnswer* answer, std::string* why);
  uint16_t Leave(const LeaveRequest& request);
  TokenCheckAnswer CheckToken(const TokenCheckRequest& request, Clock::time_point now) const;
  // Whether `guid` is a member with `role` whose lease runs and `token` is
  // the one the core issued it, whatever its parent: what the core sends
  // a member directly (its route-SL slice) needs no more.
  bool HoldsToken(uint64_t guid, const Token& token, uint8_t role, Clock::time_point now) const;
  // The link key of `parent` and the child `child` holding `token`
  // (link_auth.h); the core's own connections use it with its GUID.
  LinkKey LinkKeyOf(uint64_t parent, uint64_t child, const Token& token) const;
  // For each member with `role`: the consumers it serves as parent or as
  // backup (port GUIDs, ascending). Members serving none are absent.
  std::map<uint64_t, std::vector<uint64_t>> ConsumersServed(uint8_t role) const;
  // Forgets members whose lease ran out; returns how many.
  size_t Expire(Clock::time_point now);

  size_t size() const { return members_.size(); }
  const Member* Find(uint64_t guid) const;
  uint64_t core_guid() const { return core_guid_; }
  // What CoreInfo answers: the core's port, data channel, epoch, members.
  CoreInfoAnswer CoreInfo() const {
    CoreInfoAnswer a;
    a.core_guid = core_guid_;
    a.core_lid = core_lid_;
    a.data_address = core_address_;
    a.epoch = core_epoch_;
    a.members = static_cast<uint32_t>(members_.size());
    return a;
  }
  // The tree as `ssa-tree --json` prints it (the core first; its entry also
  // has the fan-out limits and CoreActivity as seconds ago, -1: never).
  std::string ToJson(Clock::time_point now) const;
  // Members by role name (RolesName), the core not counted.
  std::map<std::string, size_t> CountByRole() const;
  // Joins refused, by reason, since start; every reason, 0 until it happens.
  const std::map<std::string, uint64_t>& refusals() const { return refusals_; }
  // Whether the indexes (parents_, kids_) say what the members say (tests).
  bool IndexesAgree() const;

 private:
  ParentInfo InfoOf(uint64_t guid) const;
  // Parent candidates for `m`, best first.
  std::vector<uint64_t> Candidates(const Member& m) const;
  void Assign(Member* m);
  // The only writers of members_' indexes (membership.cc says what each
  // holds): a member added or updated with `roles`, its parent set, a
  // member removed (the next entry returned).
  Member* Add(uint64_t guid, uint8_t roles);
  void SetParent(Member* m, uint64_t parent);
  std::map<uint64_t, Member>::iterator Remove(std::map<uint64_t, Member>::iterator it);
  size_t ChildrenOf(uint64_t guid) const;
  bool Allowed(const JoinRequest& r, std::string* why) const;
  uint16_t Refuse(uint16_t status, const std::string& reason, std::string* why,
                  const std::string& detail);

  MembershipOptions options_;
  const uint64_t core_guid_;
  const uint16_t core_lid_;
  const DataAddress core_address_;
  const Topology* topology_ = nullptr;
  uint64_t core_epoch_ = 0;
  ContentDigest core_sha256_{};
  // Keyed at construction with a secret drawn then and kept nowhere else
  // (never sent): every link key derives from it.
  const LinkKeyDeriver keys_;
  MemberCounters core_counters_;
  CoreActivity core_activity_;
  std::map<uint64_t, Member> members_;  // by port GUID
  // The members that may parent others (distribution or access role), so
  // choosing a parent costs O(parents), not O(members): with 10,000
  // consumers in the book every join walked all of them.
  std::set<uint64_t> parents_;
  std::map<uint64_t, std::set<uint64_t>> kids_;  // parent GUID -> children
  std::set<uint64_t> lost_;  // members reported lost; not assigned until they renew
  std::map<std::string, uint64_t> refusals_;
};

}  // namespace tree
}  // namespace ssa

#endif
