// db_version.h: database versions as the data channel moves them.
//
// Parent side: a Publication is what a parent serves under one key
// ("smdb", "addr", "prdb:<guid>"): the current version (epoch, digest,
// serialized bytes) and the deltas of the last few epochs, so a child a few
// epochs behind gets the chain of deltas instead of the whole database.
// Buffers are immutable and shared: a thousand children share one copy.
//
// Child side: a Replica holds one database and applies transfers to a copy,
// checking the result's digest before it replaces what it holds.
// DbReplica<Db> does it for Smdb, Prdb and AddrDb.
//
// Digest: CRC32 (smdb_format.h) of the database's whole serialization.
// A replica keeps the CRC of each table and applies deltas with
// smdb::ApplyDeltaKnown: the new digest follows from the old by CRC
// arithmetic over the changed records, so an update costs a copy of the
// database, not a re-encoding and re-hashing of it. One that keeps the
// serialization too (members: they serve it) splices the new bytes from
// the old ones and the delta (smdb::SpliceDelta).
//
// A replica that RecycleVersions() builds each delta's result in the
// version it released before (ObjectRecycler): one idle version kept,
// against a copy of the whole database into fresh memory per epoch
// (members' SMDBs; see object_recycler.h). That version is usually the one
// two before the new one: when the replica made the version it holds from
// it by a delta, it writes only what that delta and the new one name
// (ApplyDeltaKnown's made_old, SpliceDeltaCatchUp), not the whole copy.
// What a recycled version holds is known by a serial, unique in the
// process and stamped on it when it was installed (epochs can repeat
// across an SM failover); the delta that made the held version was
// accepted against that very version (base epoch and digest checked), so
// the chain is proven. Anything else (a full transfer between, another
// replica's version, a version never installed) copies whole as before.
//
// Plain objects; the owner's thread (released versions may come back from
// any thread).
#ifndef IBACM_SSA_COMMON_TREE_DB_VERSION_H
#define IBACM_SSA_COMMON_TREE_DB_VERSION_H

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/base/object_recycler.h"
#include "common/base/status.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_format.h"

namespace ssa {
namespace tree {

using Bytes = std::shared_ptr<const std::string>;

inline uint32_t DigestOf(const std::string& bytes) {
  return smdb::Crc32(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

// A new serial for a version a replica installs, unique in the process:
// a recycled object of another replica, or of a version this one no
// longer knows, never matches (DbReplica).
uint64_t NextVersionSerial();

struct DbVersion {
  uint64_t epoch = 0;
  uint32_t digest = 0;
  Bytes bytes;  // the serialization
  // A version kept in parts (an access node's PRDB image,
  // smdb/prdb_image.h) has no `bytes`: this makes them when a child needs
  // the version whole.
  std::function<Bytes()> make_bytes;
};

// One delta step: what turns `from` into `to` (whose digest is `digest`).
struct DeltaStep {
  uint64_t from = 0;
  uint64_t to = 0;
  uint32_t digest = 0;
  Bytes bytes;
};

class Publication {
 public:
  explicit Publication(size_t keep_deltas = 8) : keep_(keep_deltas) {}
  // A new current version, with the delta from the previous one if any
  // (`delta_from` its base epoch). A version under the current epoch with
  // other bytes replaces it: children holding that epoch get it whole.
  void Publish(const DbVersion& v, Bytes delta, uint64_t delta_from);
  const DbVersion& current() const { return current_; }
  bool empty() const { return !current_.bytes && !current_.make_bytes; }
  // The current version whole (made by make_bytes if it is in parts).
  Bytes CurrentBytes() const { return current_.bytes ? current_.bytes : current_.make_bytes(); }
  // The steps from `from` to the current version; false when some step
  // is missing (then the full version is sent).
  bool Chain(uint64_t from, std::vector<DeltaStep>* out) const;

 private:
  size_t keep_;
  DbVersion current_;
  std::map<uint64_t, DeltaStep> steps_;  // by `from`
};

// What a child holds of one database.
class Replica {
 public:
  virtual ~Replica() = default;
  virtual uint64_t epoch() const = 0;
  virtual uint32_t digest() const = 0;
  // Each builds the result on a copy, checks it against `digest` and only
  // then replaces what is held. ESTALE: the delta's base is not what is
  // held; EBADMSG: malformed; EILSEQ: digest mismatch.
  // `digest_checked`: the caller has checked that the CRC32 of `bytes` is
  // `digest` (a data channel frame's CRC that covered them all).
  virtual Status ApplyFull(const Bytes& bytes, uint64_t epoch, uint32_t digest,
                           bool digest_checked = false) = 0;
  virtual Status ApplyDelta(const Bytes& delta, uint64_t from, uint64_t to, uint32_t digest) = 0;
};

// A verified version in place: the owner's view.
template <class Db>
struct Applied {
  std::shared_ptr<const Db> db;
  DbVersion version;
  Bytes delta;  // the delta that made it (null for a full transfer)
  uint64_t delta_from = 0;
};

// With `keep_bytes` false the replica keeps only the parsed database and
// the digest, not the serialization (consumers: nothing downstream needs
// it, and it is as big as the database); version().bytes is then null
// outside the on_applied callback, and in it after a delta (none is made).
template <class Db>
class DbReplica : public Replica {
 public:
  using AppliedFn = std::function<void(const Applied<Db>&)>;
  explicit DbReplica(AppliedFn on_applied = nullptr, bool keep_bytes = true)
      : on_applied_(std::move(on_applied)), keep_bytes_(keep_bytes) {}

  uint64_t epoch() const override { return version_.epoch; }
  uint32_t digest() const override { return version_.digest; }
  std::shared_ptr<const Db> db() const { return db_; }
  const DbVersion& version() const { return version_; }

  // From now on, versions this replica makes are kept when released (one
  // of each: parsed and serialized) and the next delta is built in them.
  void RecycleVersions() {
    dbs_ = std::make_unique<ObjectRecycler<Stamped<Db>>>(1);
    buffers_ = std::make_unique<ObjectRecycler<Stamped<std::string>>>(1);
  }
  // Deltas built in a recycled version (RecycleVersions).
  size_t recycled() const { return dbs_ ? dbs_->reused() : 0; }
  // Of those, the ones whose parsed tables / serialization were caught up
  // from the version two before rather than copied whole.
  size_t caught_up() const { return caught_up_; }
  size_t bytes_caught_up() const { return bytes_caught_up_; }

  // Drops what is held (a version the core did not confirm): the next
  // parent brings the replica from nothing, in full. Owners are not told.
  void Forget() {
    held_serial_ = made_from_ = 0;
    made_held_.reset();
    db_.reset();
    version_ = DbVersion();
    crcs_ = smdb::DbCrcs();
  }

  // Seeds the replica (e.g. from a file kept across restarts).
  Status Load(const Bytes& bytes) { return ApplyWhole(bytes, nullptr, DigestOf(*bytes)); }

  Status ApplyFull(const Bytes& bytes, uint64_t epoch, uint32_t digest,
                   bool digest_checked = false) override {
    if (!digest_checked && DigestOf(*bytes) != digest)
      return Status::Error(EILSEQ, "full transfer: digest mismatch");
    return ApplyWhole(bytes, &epoch, digest);
  }

  Status ApplyDelta(const Bytes& delta, uint64_t from, uint64_t to, uint32_t digest) override {
    if (!db_ || version_.epoch != from)
      return Status::Error(ESTALE, "delta from epoch " + std::to_string(from) + " but holding " +
                                       std::to_string(version_.epoch));
    if (crcs_.tables.size() == Db::Schema().tables.size()) {
      // ApplyDeltaKnown overwrites a recycled version, whole or (when it is
      // the one the held version was made from) caught up.
      auto db = dbs_ ? dbs_->Take() : std::make_unique<Stamped<Db>>();
      const bool catch_up = FromBefore(db->serial);
      db->serial = 0;  // no identity while being written
      const uint8_t* d = reinterpret_cast<const uint8_t*>(delta->data());
      smdb::DbCrcs crcs;
      Status st = smdb::ApplyDeltaKnown(*db_, crcs_, d, delta->size(), &db->value, &crcs,
                                        catch_up ? made_held_.get() : nullptr);
      if (!st.ok()) return st;
      if (db->value.global_epoch != to || crcs.digest != digest)
        return Status::Error(EILSEQ, "delta to epoch " + std::to_string(to) + ": digest mismatch");
      caught_up_ += catch_up;
      const uint64_t serial = NextVersionSerial();
      db->serial = serial;
      Bytes bytes;
      if (keep_bytes_) {
        auto s = buffers_ ? buffers_->Take() : std::make_unique<Stamped<std::string>>();
        st = SpliceBytes(d, delta->size(), *db, s.get());
        if (!st.ok()) return st;
        s->serial = serial;
        bytes = Shared(buffers_.get(), std::move(s));
      }
      Install(Shared(dbs_.get(), std::move(db)), {to, digest, bytes}, delta, from, &crcs, serial);
      return Status::Ok();
    }
    auto db = std::make_shared<Db>();  // never recycled: no serial needed
    Status st = smdb::ApplyDelta(*db_, reinterpret_cast<const uint8_t*>(delta->data()),
                                 delta->size(), db.get());
    if (!st.ok()) return st;
    auto bytes = std::make_shared<std::string>();
    st = db->Serialize(bytes.get());
    if (!st.ok()) return st;
    if (db->global_epoch != to || DigestOf(*bytes) != digest)
      return Status::Error(EILSEQ, "delta to epoch " + std::to_string(to) + ": digest mismatch");
    Install(db, {to, digest, bytes}, delta, from);
    return Status::Ok();
  }

 private:
  // Load and ApplyFull: `bytes` (digest checked) parsed into a new object
  // (Parse is not written to reuse one), recycled when released.
  // `epoch`: the one announced (null: any).
  Status ApplyWhole(const Bytes& bytes, const uint64_t* epoch, uint32_t digest) {
    auto db = std::make_unique<Stamped<Db>>();
    Status st =
        Db::Parse(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(), &db->value);
    if (!st.ok()) return st;
    const uint64_t got = db->value.global_epoch;
    if (epoch && got != *epoch)
      return Status::Error(EBADMSG, "full transfer: epoch differs from announced");
    db->serial = NextVersionSerial();
    const uint64_t serial = db->serial;
    Install(Shared(dbs_.get(), std::move(db)), {got, digest, bytes}, nullptr, 0, nullptr, serial);
    return Status::Ok();
  }

  // A recycled object and the serial of the version it holds (0: none
  // known).
  template <class T>
  struct Stamped {
    T value;
    uint64_t serial = 0;
  };

  // True when a recycled object stamped `serial` holds the version the
  // held one was made from by made_held_.
  bool FromBefore(uint64_t serial) const {
    return serial != 0 && serial == made_from_ && made_held_;
  }

  // The new serialization into *s: caught up in place when *s holds the
  // version before the held one's (and the layout allows), else spliced
  // from the held serialization (the delta was checked), else re-encoded
  // from `db` if the held one's layout is not ours.
  Status SpliceBytes(const uint8_t* d, size_t len, const Stamped<Db>& db, Stamped<std::string>* s) {
    const smdb::DbSchema& schema = Db::Schema();
    const bool catch_up = FromBefore(s->serial);
    s->serial = 0;
    if (version_.bytes && catch_up &&
        smdb::SpliceDeltaCatchUp(schema, *version_.bytes, *made_held_, d, len, &s->value).ok()) {
      ++bytes_caught_up_;
      return Status::Ok();
    }
    if (version_.bytes && smdb::SpliceDelta(schema, *version_.bytes, d, len, &s->value).ok())
      return Status::Ok();
    s->value.clear();
    return db.value.Serialize(&s->value);
  }

  // `known`: the CRCs ApplyDeltaKnown computed; `serial`: the stamp of the
  // recycled objects it was built in (0: not recycled, or a full transfer).
  void Install(std::shared_ptr<const Db> db, DbVersion v, Bytes delta, uint64_t from,
               smdb::DbCrcs* known = nullptr, uint64_t serial = 0) {
    // The held version's serial becomes what the new one was made from
    // (only when a delta made it: a full transfer ends the chain).
    made_from_ = delta && serial ? held_serial_ : 0;
    made_held_ = delta && serial ? delta : nullptr;
    held_serial_ = serial;
    db_ = std::move(db);
    version_ = v;
    crcs_ = smdb::DbCrcs();
    if (known)
      crcs_ = std::move(*known);
    else if (v.bytes && smdb::DbCrcsOf(reinterpret_cast<const uint8_t*>(v.bytes->data()),
                                       v.bytes->size(), &crcs_)
                            .ok())
      crcs_.digest = v.digest;
    if (!keep_bytes_) version_.bytes.reset();
    if (on_applied_) on_applied_({db_, v, delta, from});
  }

  // The object shared as the database (an alias of its Stamped, which
  // comes back whole to its recycler, if any, when released).
  template <class T>
  static std::shared_ptr<const T> Shared(ObjectRecycler<Stamped<T>>* recycler,
                                         std::unique_ptr<Stamped<T>> t) {
    std::shared_ptr<const Stamped<T>> s;
    if (recycler)
      s = recycler->Share(std::move(t));
    else
      s = std::move(t);
    return std::shared_ptr<const T>(s, &s->value);
  }

  AppliedFn on_applied_;
  bool keep_bytes_;
  std::unique_ptr<ObjectRecycler<Stamped<Db>>> dbs_;  // RecycleVersions()
  std::unique_ptr<ObjectRecycler<Stamped<std::string>>> buffers_;
  // The chain (RecycleVersions): the serial of the held version (0: not
  // built in a recycled object), of the version it was made from, and the
  // delta that made it (null: none, or a full transfer).
  uint64_t held_serial_ = 0;
  uint64_t made_from_ = 0;
  Bytes made_held_;
  size_t caught_up_ = 0;
  size_t bytes_caught_up_ = 0;
  std::shared_ptr<const Db> db_;
  DbVersion version_;
  smdb::DbCrcs crcs_;  // of db_ (empty when unknown: deltas take the slow path)
};

}  // namespace tree
}  // namespace ssa

#endif
