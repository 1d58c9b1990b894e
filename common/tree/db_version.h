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
// version it released before (ObjectRecycler, BufferRecycler): one idle
// version kept, against a copy of the whole database into fresh memory per
// epoch (members' SMDBs; see object_recycler.h).
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

#include "common/base/buffer_recycler.h"
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
  virtual Status ApplyFull(const Bytes& bytes, uint64_t epoch, uint32_t digest) = 0;
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
    dbs_ = std::make_unique<ObjectRecycler<Db>>(1);
    buffers_ = std::make_unique<BufferRecycler>(1);
  }
  // Deltas built in a recycled version (RecycleVersions).
  size_t recycled() const { return dbs_ ? dbs_->reused() : 0; }

  // Seeds the replica (e.g. from a file kept across restarts).
  Status Load(const Bytes& bytes) {
    auto db = std::make_unique<Db>();
    Status st = Db::Parse(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(), db.get());
    if (!st.ok()) return st;
    const uint64_t epoch = db->global_epoch;
    Install(Share(std::move(db)), {epoch, DigestOf(*bytes), bytes}, nullptr, 0);
    return Status::Ok();
  }

  Status ApplyFull(const Bytes& bytes, uint64_t epoch, uint32_t digest) override {
    if (DigestOf(*bytes) != digest) return Status::Error(EILSEQ, "full transfer: digest mismatch");
    // Parsed into a new object (Parse is not written to reuse one); it is
    // recycled when released.
    auto db = std::make_unique<Db>();
    Status st = Db::Parse(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(), db.get());
    if (!st.ok()) return st;
    if (db->global_epoch != epoch)
      return Status::Error(EBADMSG, "full transfer: epoch differs from announced");
    Install(Share(std::move(db)), {epoch, digest, bytes}, nullptr, 0);
    return Status::Ok();
  }

  Status ApplyDelta(const Bytes& delta, uint64_t from, uint64_t to, uint32_t digest) override {
    if (!db_ || version_.epoch != from)
      return Status::Error(ESTALE, "delta from epoch " + std::to_string(from) + " but holding " +
                                       std::to_string(version_.epoch));
    if (crcs_.tables.size() == Db::Schema().tables.size()) {
      // ApplyDeltaKnown overwrites a recycled version whole.
      std::unique_ptr<Db> db = dbs_ ? dbs_->Take() : std::make_unique<Db>();
      const uint8_t* d = reinterpret_cast<const uint8_t*>(delta->data());
      smdb::DbCrcs crcs;
      Status st = smdb::ApplyDeltaKnown(*db_, crcs_, d, delta->size(), db.get(), &crcs);
      if (!st.ok()) return st;
      if (db->global_epoch != to || crcs.digest != digest)
        return Status::Error(EILSEQ, "delta to epoch " + std::to_string(to) + ": digest mismatch");
      Bytes bytes;
      if (keep_bytes_) {
        // The new serialization spliced from the old one (the delta was
        // checked above); re-encoded only if the old one's layout is not
        // ours.
        const size_t hint = version_.bytes ? version_.bytes->size() : 0;
        std::string s = buffers_ ? buffers_->Take(hint) : std::string();
        if (!version_.bytes ||
            !smdb::SpliceDelta(Db::Schema(), *version_.bytes, d, delta->size(), &s).ok()) {
          st = db->Serialize(&s);
          if (!st.ok()) return st;
        }
        bytes = buffers_ ? buffers_->Share(std::move(s))
                         : std::make_shared<const std::string>(std::move(s));
      }
      Install(Share(std::move(db)), {to, digest, bytes}, delta, from, &crcs);
      return Status::Ok();
    }
    auto db = std::make_shared<Db>();
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
  // `known`: the CRCs ApplyDeltaKnown computed.
  void Install(std::shared_ptr<const Db> db, DbVersion v, Bytes delta, uint64_t from,
               smdb::DbCrcs* known = nullptr) {
    db_ = std::move(db);
    version_ = v;
    crcs_ = smdb::DbCrcs();
    if (known)
      crcs_ = std::move(*known);
    else if (v.bytes &&
        smdb::DbCrcsOf(reinterpret_cast<const uint8_t*>(v.bytes->data()), v.bytes->size(), &crcs_)
            .ok())
      crcs_.digest = v.digest;
    if (!keep_bytes_) version_.bytes.reset();
    if (on_applied_) on_applied_({db_, v, delta, from});
  }

  std::shared_ptr<const Db> Share(std::unique_ptr<Db> db) {
    if (dbs_) return dbs_->Share(std::move(db));
    return std::shared_ptr<const Db>(std::move(db));
  }

  AppliedFn on_applied_;
  bool keep_bytes_;
  std::unique_ptr<ObjectRecycler<Db>> dbs_;  // RecycleVersions()
  std::unique_ptr<BufferRecycler> buffers_;
  std::shared_ptr<const Db> db_;
  DbVersion version_;
  smdb::DbCrcs crcs_;  // of db_ (empty when unknown: deltas take the slow path)
};

}  // namespace tree
}  // namespace ssa

#endif
