// shm_export_test.cc: the ssa provider's publication of the path tables
// (providers/ssa/shm_export.h) across its two threads: a publication
// whose inputs were gathered before Invalidate() (a port, endpoint or
// address went away) publishes nothing, the tables are withdrawn at once,
// and the next publication puts them back.
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "common/smdb/smdb_prdb.h"
#include "providers/ssa/shm_export.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

#include "CppUTest/TestHarness.h"

using ssa::ssa_provider::ExportPort;
using ssa::ssa_provider::PrdbView;
using ssa::ssa_provider::ShmExport;

namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

ExportPort Port() {
  auto db = std::make_shared<ssa::smdb::Prdb>();
  db->global_epoch = 5;
  db->source.records[0].base_lid = 4;
  ssa::smdb::PrdbPath r;
  r.sgid[15] = 4;
  r.dgid[15] = 9;
  r.slid = 4;
  r.dlid = 9;
  r.flags = ssa::smdb::kPathReversible;
  db->paths.records.push_back(r);
  ExportPort p;
  p.gid[15] = 4;
  p.lid = 4;
  p.view = std::make_shared<const PrdbView>(db);
  p.pkeys.push_back(0xFFFF);
  return p;
}

}  // namespace

TEST_GROUP(ShmExport) { ssa::test::TempDir dir{"shm-export-test."}; };

TEST(ShmExport, APublicationGatheredBeforeAnInvalidationPublishesNothing) {
  ShmExport out(dir.path() + "/ibacm-unix.sock");
  CHECK_OK(out.Publish({Port()}, nullptr, out.generation()));
  CHECK(Exists(out.path()));
  uint64_t before = out.generation();
  out.Invalidate();  // on the loop, while the worker builds from `before`
  CHECK_FALSE(Exists(out.path()));
  CHECK_OK(out.Publish({Port()}, nullptr, before));
  CHECK_FALSE(Exists(out.path()));
  CHECK_OK(out.Publish({Port()}, nullptr, out.generation()));
  CHECK(Exists(out.path()));
}
