// address_book_test.cc: the core's address database with federation
// peers' entries (opensm_plugin/address_book.h): the hosts file's entries
// plus the peers', the file winning a key both give; every change a new
// epoch with a delta; and a federated core that restarts serves none of
// its peers' entries of its last life (they may have been withdrawn),
// while its epochs keep increasing. Driven directly, no OpenSM.
#include <cstdint>
#include <string>

#include "common/base/log.h"
#include "common/smdb/addr_db.h"
#include "opensm_plugin/address_book.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_util.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

#include "CppUTest/TestHarness.h"

using ssa::opensm_plugin::AddressBook;
using ssa::opensm_plugin::AddressVersion;
namespace smdb = ssa::smdb;

namespace {

smdb::AddrDb Hosts(const std::string& text) {
  smdb::AddrDb db;
  std::vector<smdb::HostsIssue> issues;
  smdb::ParseHosts(text, &db, &issues);
  CHECK(issues.empty());
  return db;
}

smdb::AddrDb Parsed(const AddressVersion& v) {
  smdb::AddrDb db;
  CHECK_OK(smdb::AddrDb::Parse(reinterpret_cast<const uint8_t*>(v.version.bytes->data()),
                               v.version.bytes->size(), &db));
  return db;
}

bool Has(const smdb::AddrDb& db, const char* name, uint8_t last_gid_byte = 0) {
  uint8_t gid[16];
  return db.FindName(name, gid) && (last_gid_byte == 0 || gid[15] == last_gid_byte);
}

const char kLocal[] = "a1 fec0::1:0:0:11\na2 fec0::1:0:0:12\n";
const char kRemote[] = "b1 fec0::2:0:0:21\na2 fec0::2:0:0:22\n";

}  // namespace

TEST_GROUP(AddressBook) {
  ssa::test::TempDir dir;
  ssa::Logger log;
  std::string hosts, state;
  void setup() override {
    CHECK_OK(dir.status());
    log.set_level(ssa::LogLevel::kError);
    hosts = dir.path() + "/hosts";
    state = dir.path() + "/addr.db";
    CHECK_OK(ssa::test::WriteStringToFile(hosts, kLocal));
  }
};

TEST(AddressBook, PeersEntriesJoinTheHostsFilesWhichWinsAKeyBothGive) {
  AddressBook book(hosts, state, &log, true);
  AddressVersion v;
  bool changed = false;
  CHECK_OK(book.Refresh(&v, &changed));
  CHECK(changed);
  const uint64_t first = v.version.epoch;
  CHECK_OK(book.SetRemote(Hosts(kRemote), &v, &changed));
  CHECK(changed);
  CHECK(v.version.epoch > first);
  CHECK(v.delta != nullptr);  // a delta from the version before
  LONGS_EQUAL(first, v.delta_from);
  smdb::AddrDb db = Parsed(v);
  CHECK(Has(db, "b1", 0x21));
  CHECK(Has(db, "a2", 0x12));  // the hosts file's, not the peer's
  LONGS_EQUAL(1, book.overridden());
  LONGS_EQUAL(2, book.local().names.records.size());
  // The same entries again: nothing new.
  CHECK_OK(book.SetRemote(Hosts(kRemote), &v, &changed));
  CHECK(!changed);
  // The peer's entries withdrawn: a new epoch without them.
  const uint64_t with = v.version.epoch;
  CHECK_OK(book.SetRemote(smdb::AddrDb(), &v, &changed));
  CHECK(changed);
  CHECK(v.version.epoch > with);
  CHECK(!Has(Parsed(v), "b1"));
  CHECK(Has(Parsed(v), "a1"));
}

TEST(AddressBook, AFederatedCoreRestartingServesNoneOfItsPeersEntriesOfItsLastLife) {
  // With and without a hosts file of its own (without one, nothing is
  // re-read at start: only the kept file could bring old entries back).
  for (const std::string& file : {hosts, std::string()}) {
    ssa::test::TempDir run;
    CHECK_OK(run.status());
    const std::string kept = run.path() + "/addr.db";
    uint64_t before = 0;
    {
      AddressBook book(file, kept, &log, true);
      AddressVersion v;
      bool changed = false;
      CHECK_OK(book.Refresh(&v, &changed));
      CHECK_OK(book.SetRemote(Hosts(kRemote), &v, &changed));
      CHECK(Has(Parsed(v), "b1"));
      before = v.version.epoch;
    }
    const std::string copy = kept + ".copy";  // as the last life left it
    CHECK_OK(ssa::test::WriteStringToFile(copy, ssa::test::ReadFileText(kept)));
    AddressBook again(file, kept, &log, true);
    AddressVersion v;
    bool changed = false;
    CHECK_OK(again.Refresh(&v, &changed));
    CHECK(changed);
    CHECK_TEXT(v.version.epoch > before, file.c_str());  // epochs never go back
    CHECK_TEXT(!Has(Parsed(v), "b1"), file.c_str());
    CHECK_EQUAL(!file.empty(), Has(Parsed(v), "a1"));
    // Without federation the kept content is served as it was (a core
    // without a hosts file keeps its last database).
    AddressBook plain("", copy, &log, false);
    CHECK_OK(plain.Refresh(&v, &changed));
    CHECK(Has(Parsed(v), "b1"));
  }
}
