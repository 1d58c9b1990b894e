// provider_loader_test.cc: ProviderLoader against real provider shared
// objects (test/providers/), one per rejection reason, and the test provider
// "testprov" driven through its ops table with a fake core.
#include "core/provider_loader.h"

#include <dlfcn.h>
#include <infiniband/acm.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/base/big_endian.h"
#include "test/support/check_ok.h"
#include "test/support/fake_core.h"
#include "test/support/temp_dir.h"

// Last: CppUTest redefines new for what follows it.
#include <CppUTest/TestHarness.h>

namespace {

const std::string kGoodDir = TEST_PROVIDER_DIR "/good/.libs";
const std::string kBadDir = TEST_PROVIDER_DIR "/bad/.libs";
const std::string kExtraDir = TEST_PROVIDER_DIR "/extra/.libs";
const std::string kTestprov = kGoodDir + "/testprov.so";
const std::string kDupV1 = kExtraDir + "/dup_v1.so";
const std::string kDupV2 = kExtraDir + "/dup_v2.so";

using Line = std::pair<ssa::LogLevel, std::string>;

std::string Bad(const std::string& file) { return kBadDir + "/" + file; }

}  // namespace

TEST_GROUP(ProviderLoader) {
  ssa::Logger log;
  std::vector<Line> lines;

  void setup() override {
    log.set_level(ssa::LogLevel::kTrace);
    log.set_sink(
        [this](ssa::LogLevel level, const std::string& line) { lines.emplace_back(level, line); });
  }

  size_t WarningCount() const {
    size_t n = 0;
    for (const auto& l : lines) n += l.first <= ssa::LogLevel::kWarn;
    return n;
  }

  // Loads `path` alone and checks the one warning line and the records.
  void ExpectRejected(const std::string& path, ssa::RejectReason reason, const std::string& why) {
    ssa::ProviderLoader loader(&log);
    lines.clear();
    ssa::Status st = loader.LoadFile(path);
    CHECK_FALSE(st.ok());
    STRCMP_EQUAL(("provider " + path + " rejected: " + why).c_str(), st.message().c_str());
    LONGS_EQUAL(1, lines.size());
    CHECK(lines[0].first == ssa::LogLevel::kWarn);
    STRCMP_EQUAL(("provider " + path + " rejected: " + why).c_str(), lines[0].second.c_str());
    LONGS_EQUAL(0, loader.providers().size());
    LONGS_EQUAL(1, loader.rejected_count());
    LONGS_EQUAL(1, loader.RejectionCount(reason));
    STRCMP_EQUAL(path.c_str(), loader.rejections()[0].path.c_str());
    CHECK(loader.rejections()[0].reason == reason);
    STRCMP_EQUAL(why.c_str(), loader.rejections()[0].message.c_str());
  }
};

TEST(ProviderLoader, LoadsTheGoodProviderWithOneInfoLine) {
  ssa::ProviderLoader loader(&log);
  ssa::Status st = loader.LoadFile(kTestprov);
  CHECK_OK(st);
  LONGS_EQUAL(1, loader.providers().size());
  const ssa::LoadedProvider* lp = loader.Find("testprov");
  CHECK(lp != nullptr);
  POINTERS_EQUAL(loader.providers()[0].get(), lp);
  STRCMP_EQUAL("testprov", lp->name().c_str());
  LONGS_EQUAL(1, lp->version());
  STRCMP_EQUAL(kTestprov.c_str(), lp->path().c_str());
  LONGS_EQUAL(sizeof(ssa_provider), lp->table_size());
  CHECK_TRUE(lp->HasPortChanged());
  CHECK_TRUE(lp->HasQuery());
  CHECK_TRUE(lp->HasQueryPerf());
  CHECK_TRUE(lp->HasCollectMetrics());  // 1.4
  LONGS_EQUAL(0, loader.rejected_count());
  LONGS_EQUAL(1, lines.size());
  char expect[512];
  snprintf(expect, sizeof(expect),
           "provider 'testprov' version 1 (ABI %d.%d, %zu bytes) loaded from %s",
           SSA_PROV_ABI_MAJOR, SSA_PROV_ABI_MINOR, sizeof(ssa_provider), kTestprov.c_str());
  STRCMP_EQUAL(expect, lines[0].second.c_str());
  CHECK(lines[0].first == ssa::LogLevel::kInfo);
}

TEST(ProviderLoader, RejectsWrongMajor) {
  ExpectRejected(Bad("wrong_major.so"), ssa::RejectReason::kWrongMajor,
                 "ABI major " + std::to_string(SSA_PROV_ABI_MAJOR + 1) + ", core speaks " +
                     std::to_string(SSA_PROV_ABI_MAJOR));
}

TEST(ProviderLoader, RejectsMissingMandatoryOp) {
  ExpectRejected(Bad("missing_op.so"), ssa::RejectReason::kMissingOp,
                 "mandatory op resolve is NULL");
}

TEST(ProviderLoader, RejectsTooSmallStruct) {
  const size_t claimed = offsetof(ssa_provider, resolve) + sizeof(ssa_provider::resolve);
  ExpectRejected(Bad("too_small.so"), ssa::RejectReason::kTooSmall,
                 "struct too small: " + std::to_string(claimed) + " bytes, need at least " +
                     std::to_string(SSA_PROVIDER_V1_0_SIZE));
}

TEST(ProviderLoader, RejectsMissingEntrySymbol) {
  ExpectRejected(Bad("no_entry.so"), ssa::RejectReason::kNoEntry,
                 "no entry symbol ssa_provider_entry");
}

TEST(ProviderLoader, RejectsEntryReturningNull) {
  ExpectRejected(Bad("entry_null.so"), ssa::RejectReason::kEntryNull,
                 "ssa_provider_entry() returned NULL for core ABI " +
                     std::to_string(SSA_PROV_ABI_MAJOR) + "." + std::to_string(SSA_PROV_ABI_MINOR));
}

TEST(ProviderLoader, RejectsEmptyName) {
  ExpectRejected(Bad("empty_name.so"), ssa::RejectReason::kBadName, "empty provider name");
}

TEST(ProviderLoader, RejectsUnterminatedName) {
  ExpectRejected(Bad("long_name.so"), ssa::RejectReason::kBadName,
                 "provider name is not NUL-terminated within 32 bytes");
}

TEST(ProviderLoader, RejectsUnresolvedSymbolAtLoadTime) {
  // Lazily bound, the object loads: only eager binding catches it.
  void* lazy = dlopen(Bad("unresolved.so").c_str(), RTLD_LAZY | RTLD_LOCAL);
  CHECK_TRUE_TEXT(lazy != nullptr, dlerror());
  dlclose(lazy);
  ExpectRejected(Bad("unresolved.so"), ssa::RejectReason::kLoadFailed,
                 "cannot load: undefined symbol: ssa_test_symbol_nobody_defines");
}

TEST(ProviderLoader, RejectsMissingFile) {
  ssa::ProviderLoader loader(&log);
  ssa::Status st = loader.LoadFile(kGoodDir + "/no_such_provider.so");
  CHECK_FALSE(st.ok());
  LONGS_EQUAL(1, loader.RejectionCount(ssa::RejectReason::kLoadFailed));
  LONGS_EQUAL(1, WarningCount());
  CHECK(lines[0].second.find("no_such_provider.so rejected: cannot load: ") != std::string::npos);
}

TEST(ProviderLoader, MissingDirectoryIsAnErrorNamingIt) {
  ssa::ProviderLoader loader(&log);
  ssa::Status st = loader.LoadDirectory("/nonexistent/ibacm-ssa-providers");
  CHECK_FALSE(st.ok());
  LONGS_EQUAL(-ENOENT, st.code());
  CHECK(st.message().find("/nonexistent/ibacm-ssa-providers") != std::string::npos);
  LONGS_EQUAL(0, loader.providers().size());
}

TEST(ProviderLoader, GoodDirectoryHoldsOnlyTestprov) {
  ssa::ProviderLoader loader(&log);
  CHECK_OK(loader.LoadDirectory(kGoodDir));
  LONGS_EQUAL(1, loader.providers().size());
  STRCMP_EQUAL("testprov", loader.providers()[0]->name().c_str());
  LONGS_EQUAL(0, loader.rejected_count());
  LONGS_EQUAL(0, WarningCount());
}

TEST(ProviderLoader, BadDirectoryRejectsEveryFileOnceEach) {
  ssa::ProviderLoader loader(&log);
  CHECK_OK(loader.LoadDirectory(kBadDir));
  LONGS_EQUAL(0, loader.providers().size());
  // .libs also holds libtool's .la/.lai/.o files: none may count.
  LONGS_EQUAL(8, loader.rejected_count());
  LONGS_EQUAL(8, WarningCount());
  LONGS_EQUAL(1, loader.RejectionCount(ssa::RejectReason::kWrongMajor));
  LONGS_EQUAL(1, loader.RejectionCount(ssa::RejectReason::kMissingOp));
  LONGS_EQUAL(1, loader.RejectionCount(ssa::RejectReason::kTooSmall));
  LONGS_EQUAL(1, loader.RejectionCount(ssa::RejectReason::kNoEntry));
  LONGS_EQUAL(1, loader.RejectionCount(ssa::RejectReason::kEntryNull));
  LONGS_EQUAL(2, loader.RejectionCount(ssa::RejectReason::kBadName));
  LONGS_EQUAL(1, loader.RejectionCount(ssa::RejectReason::kLoadFailed));
  // Name order, not readdir order.
  STRCMP_EQUAL(Bad("empty_name.so").c_str(), loader.rejections()[0].path.c_str());
  STRCMP_EQUAL(Bad("wrong_major.so").c_str(), loader.rejections()[7].path.c_str());
}

TEST(ProviderLoader, ScansOnlyRegularSoFiles) {
  ssa::test::TempDir tmp("ssa-provdir-");
  CHECK_OK(tmp.status());
  const std::string& dir = tmp.path();
  CHECK_EQUAL(0, symlink(kTestprov.c_str(), (dir + "/a.so").c_str()));
  CHECK_EQUAL(0, symlink(kTestprov.c_str(), (dir + "/a.so.1").c_str()));
  std::ofstream(dir + "/notes.txt") << "not a provider\n";
  std::ofstream(dir + "/text.so") << "not an ELF object\n";
  CHECK_EQUAL(0, mkdir((dir + "/subdir.so").c_str(), 0700));
  {
    ssa::ProviderLoader loader(&log);
    CHECK_OK(loader.LoadDirectory(dir + "/"));
    LONGS_EQUAL(1, loader.providers().size());
    STRCMP_EQUAL((dir + "/a.so").c_str(), loader.providers()[0]->path().c_str());
    LONGS_EQUAL(1, loader.rejected_count());  // text.so only
    STRCMP_EQUAL((dir + "/text.so").c_str(), loader.rejections()[0].path.c_str());
    CHECK(loader.rejections()[0].reason == ssa::RejectReason::kLoadFailed);
  }
}

TEST(ProviderLoader, DuplicateHigherVersionWinsWhenLoadedSecond) {
  ssa::ProviderLoader loader(&log);
  CHECK_OK(loader.LoadFile(kDupV1));
  lines.clear();
  CHECK_OK(loader.LoadFile(kDupV2));
  LONGS_EQUAL(1, loader.providers().size());
  LONGS_EQUAL(2, loader.Find("dup")->version());
  STRCMP_EQUAL(kDupV2.c_str(), loader.Find("dup")->path().c_str());
  LONGS_EQUAL(1, WarningCount());
  STRCMP_EQUAL(("provider 'dup': keeping version 2 from " + kDupV2 + ", dropping version 1 from " +
                kDupV1 + " (higher version wins)")
                   .c_str(),
               lines[0].second.c_str());
  LONGS_EQUAL(1, loader.RejectionCount(ssa::RejectReason::kDuplicate));
  STRCMP_EQUAL(kDupV1.c_str(), loader.rejections()[0].path.c_str());
}

TEST(ProviderLoader, DuplicateHigherVersionWinsWhenLoadedFirst) {
  ssa::ProviderLoader loader(&log);
  CHECK_OK(loader.LoadFile(kDupV2));
  lines.clear();
  ssa::Status st = loader.LoadFile(kDupV1);
  CHECK_FALSE(st.ok());
  LONGS_EQUAL(-EEXIST, st.code());
  LONGS_EQUAL(1, loader.providers().size());
  LONGS_EQUAL(2, loader.Find("dup")->version());
  STRCMP_EQUAL(kDupV2.c_str(), loader.Find("dup")->path().c_str());
  LONGS_EQUAL(1, lines.size());
  STRCMP_EQUAL(("provider 'dup': keeping version 2 from " + kDupV2 + ", dropping version 1 from " +
                kDupV1 + " (higher version wins)")
                   .c_str(),
               lines[0].second.c_str());
  STRCMP_EQUAL(kDupV1.c_str(), loader.rejections()[0].path.c_str());
}

TEST(ProviderLoader, DuplicateOfSameVersionKeepsTheFirstAndItsModule) {
  ssa::ProviderLoader loader(&log);
  CHECK_OK(loader.LoadFile(kTestprov));
  lines.clear();
  CHECK_FALSE(loader.LoadFile(kTestprov).ok());
  LONGS_EQUAL(1, loader.providers().size());
  LONGS_EQUAL(1, lines.size());
  CHECK(lines[0].second.find("(same version: the first loaded stays)") != std::string::npos);
  // The same file twice shares one module: dropping the second reference
  // must leave the kept table mapped.
  STRCMP_EQUAL("testprov", loader.providers()[0]->table()->name);
}

TEST(ProviderLoader, ExtraDirectoryKeepsOlderAndDupV2) {
  ssa::ProviderLoader loader(&log);
  CHECK_OK(loader.LoadDirectory(kExtraDir));
  LONGS_EQUAL(2, loader.providers().size());
  // dup_v2 took dup_v1's place, ahead of older.
  STRCMP_EQUAL("dup", loader.providers()[0]->name().c_str());
  LONGS_EQUAL(2, loader.providers()[0]->version());
  STRCMP_EQUAL("older", loader.providers()[1]->name().c_str());
  LONGS_EQUAL(1, loader.rejected_count());
  LONGS_EQUAL(1, loader.RejectionCount(ssa::RejectReason::kDuplicate));
}

// --- the append-only rule ----------------------------------------------------

namespace {

int DummyResolve(void*, const ssa_resolve_request*, uint64_t) { return 0; }
int DummyQueryPerf(void*, uint64_t*, uint8_t*) { return 0; }
void DummyCollect(void*, const ssa_metrics_ops*, ssa_metrics_sink_t*) {}
int DummyAppended(void*) { return 0; }

// What struct ssa_provider would look like to a newer core after a later
// minor appended an op: the 1.0 table, then the new member.
struct FutureProvider {
  ssa_provider v1_0;
  int (*appended_op)(void* ctx);
};

}  // namespace

TEST_GROUP(AbiMember){};

TEST(AbiMember, AgreesWithSsaHasMemberAtEveryCut) {
  ssa_provider t{};
  t.resolve = DummyResolve;
  t.query = DummyResolve;
  t.query_perf = DummyQueryPerf;
  t.collect_metrics = DummyCollect;
  for (uint32_t size = 0; size <= sizeof(ssa_provider); ++size) {
    t.size = size;
    CHECK_EQUAL(SSA_HAS_MEMBER(&t, collect_metrics),
                ssa::AbiMember(&t, &ssa_provider::collect_metrics) != nullptr);
    CHECK_EQUAL(SSA_HAS_MEMBER(&t, query), ssa::AbiMember(&t, &ssa_provider::query) != nullptr);
    CHECK_EQUAL(SSA_HAS_MEMBER(&t, query_perf),
                ssa::AbiMember(&t, &ssa_provider::query_perf) != nullptr);
    CHECK_EQUAL(SSA_HAS_MEMBER(&t, resolve), ssa::AbiMember(&t, &ssa_provider::resolve) != nullptr);
  }
  // A cut just before query_perf: query still there, query_perf not.
  t.size = offsetof(ssa_provider, query_perf);
  CHECK(ssa::AbiMember(&t, &ssa_provider::query) == DummyResolve);
  CHECK(ssa::AbiMember(&t, &ssa_provider::query_perf) == nullptr);
  t.size = offsetof(ssa_provider, query_perf) + sizeof(t.query_perf) - 1;
  CHECK(ssa::AbiMember(&t, &ssa_provider::query_perf) == nullptr);
}

TEST(AbiMember, AppendedOpBeyondAnOlderTableReadsAsAbsent) {
  // The memory after the 1.0 part holds a non-null op: only the size may
  // keep the core from using it.
  FutureProvider f{};
  f.appended_op = DummyAppended;
  f.v1_0.size = SSA_PROVIDER_V1_0_SIZE;
  CHECK(ssa::AbiMember(&f, &FutureProvider::appended_op) == nullptr);
  f.v1_0.size = sizeof(FutureProvider);
  CHECK(ssa::AbiMember(&f, &FutureProvider::appended_op) == DummyAppended);
}

TEST(AbiMember, OlderProviderLoadsAndHasNoAppendedOps) {
  ssa::Logger log;
  log.set_level(ssa::LogLevel::kError);
  ssa::ProviderLoader loader(&log);
  ssa::Status st = loader.LoadFile(kExtraDir + "/older.so");
  CHECK_OK(st);
  const ssa::LoadedProvider* lp = loader.Find("older");
  CHECK(lp != nullptr);
  LONGS_EQUAL(SSA_PROVIDER_V1_0_SIZE, lp->table_size());
  LONGS_EQUAL(0, lp->abi_minor());
  // Its optional 1.0 ops are NULL, so absent even though inside its size.
  CHECK_FALSE(lp->HasPortChanged());
  CHECK_FALSE(lp->HasQuery());
  CHECK_FALSE(lp->HasQueryPerf());
  // Nor has it the ops later minors appended (1.1's port_event, 1.4's
  // collect_metrics): its table ends before them.
  CHECK_FALSE(lp->HasPortEvent());
  CHECK_FALSE(lp->HasCollectMetrics());
  // Read as a newer core would read it: the appended op is out of range.
  const auto* as_future = reinterpret_cast<const FutureProvider*>(lp->table());
  CHECK(ssa::AbiMember(as_future, &FutureProvider::appended_op) == nullptr);
}

// --- testprov through its ops table, with a fake core ------------------------

namespace {

using ssa::test::FakeCore;

constexpr uint64_t kPrefix = 0xfe80000000000000ULL;
constexpr uint64_t kGuid = 0x0002c90300000005ULL;
constexpr uint16_t kLid = 5;

ssa_address NameAddress(const char* name) {
  ssa_address a{};
  a.size = sizeof(a);
  a.type = SSA_ADDR_NAME;
  snprintf(reinterpret_cast<char*>(a.data), sizeof(a.data), "%s", name);
  return a;
}

ssa_resolve_request GidRequest(uint64_t prefix, uint64_t guid, uint32_t flags) {
  ssa_resolve_request r{};
  r.size = sizeof(r);
  r.flags = flags;
  r.src = NameAddress("node5");
  r.dst.size = sizeof(r.dst);
  r.dst.type = SSA_ADDR_GID;
  const uint64_t be[2] = {ssa::ToBe64(prefix), ssa::ToBe64(guid)};
  memcpy(r.dst.data, be, sizeof(be));
  return r;
}

}  // namespace

// Opens one device/port/endpoint/address of testprov on a fake core.
TEST_GROUP(Testprov) {
  ssa::Logger log;
  std::unique_ptr<ssa::ProviderLoader> loader;
  const ssa_provider* prov = nullptr;
  FakeCore core;
  const ssa_core_ops& ops = FakeCore::kOps;
  void *prov_ctx = nullptr, *dev_ctx = nullptr, *port_ctx = nullptr, *ep_ctx = nullptr,
       *addr_ctx = nullptr;
  uint16_t pkeys[1] = {0xffff};

  void setup() override {
    log.set_level(ssa::LogLevel::kError);
    loader = std::make_unique<ssa::ProviderLoader>(&log);
    CHECK_OK(loader->LoadFile(kTestprov));
    prov = loader->Find("testprov")->table();
  }
  void teardown() override { loader.reset(); }

  void Open() {
    LONGS_EQUAL(0, prov->init(&ops, core.handle(), &prov_ctx));
    ssa_device_info dev{sizeof(dev), "ibsim0", 0x0002c90300000001ULL, 1};
    LONGS_EQUAL(0, prov->open_device(prov_ctx, &dev, &dev_ctx));
    ssa_port_info port{};
    port.size = sizeof(port);
    port.ca_name = "ibsim0";
    port.port_num = 1;
    port.state = 4;
    port.lid = kLid;
    port.gid_prefix = kPrefix;
    port.port_guid = kGuid;
    port.pkey_count = 1;
    port.pkeys = pkeys;
    LONGS_EQUAL(0, prov->open_port(dev_ctx, &port, nullptr, &port_ctx));
    ssa_endpoint_info ep{sizeof(ep), 0xffff, 0};
    LONGS_EQUAL(0, prov->open_endpoint(port_ctx, &ep, &ep_ctx));
    ssa_address addr = NameAddress("node5");
    LONGS_EQUAL(0, prov->add_address(ep_ctx, &addr, &addr_ctx));
  }
  // Request `id`'s answer, which must have been given once.
  const FakeCore::Answer& AnswerTo(uint64_t id) {
    auto it = core.answers.find(id);
    CHECK_TEXT(it != core.answers.end(), ("no answer to request " + std::to_string(id)).c_str());
    LONGS_EQUAL(1, it->second.times);
    return it->second;
  }
  void Close() {
    prov->remove_address(addr_ctx);
    prov->close_endpoint(ep_ctx);
    prov->close_port(port_ctx);
    prov->close_device(dev_ctx);
    prov->fini(prov_ctx);
  }
};

TEST(Testprov, ResolvesAGidFromTheRequestAndThePort) {
  Open();
  ssa_resolve_request req = GidRequest(kPrefix, 0x0002c90300000007ULL, 0);
  LONGS_EQUAL(0, prov->resolve(addr_ctx, &req, 42));
  LONGS_EQUAL(1, core.answers.size());
  const FakeCore::Answer& a = AnswerTo(42);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, a.status);
  CHECK_TRUE(a.has_path);
  CHECK_FALSE(a.is_query);
  MEMCMP_EQUAL(req.dst.data, a.path.dgid.raw, 16);
  LONGS_EQUAL(7, ssa::FromBe16(a.path.dlid));
  CHECK_EQUAL(kPrefix, ssa::FromBe64(a.path.sgid.global.subnet_prefix));
  CHECK_EQUAL(kGuid, ssa::FromBe64(a.path.sgid.global.interface_id));
  LONGS_EQUAL(kLid, ssa::FromBe16(a.path.slid));
  LONGS_EQUAL(0xffff, ssa::FromBe16(a.path.pkey));
  Close();
}

TEST(Testprov, KnowsItsOwnAddressesOnlyAndAnswersEdestaddrOtherwise) {
  Open();
  ssa_resolve_request req{};
  req.size = sizeof(req);
  req.src = NameAddress("node5");
  req.dst = NameAddress("node5");
  LONGS_EQUAL(0, prov->resolve(addr_ctx, &req, 1));
  req.dst = NameAddress("stranger");
  LONGS_EQUAL(0, prov->resolve(addr_ctx, &req, 2));
  LONGS_EQUAL(2, core.answers.size());
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerTo(1).status);
  LONGS_EQUAL(kLid, ssa::FromBe16(AnswerTo(1).path.dlid));
  CHECK_EQUAL(kGuid, ssa::FromBe64(AnswerTo(1).path.dgid.global.interface_id));
  LONGS_EQUAL(ACM_STATUS_EDESTADDR, AnswerTo(2).status);
  CHECK_FALSE(AnswerTo(2).has_path);
  Close();
}

TEST(Testprov, NodelayAnswersEnodataOnceThenThePath) {
  Open();
  ssa_resolve_request req = GidRequest(kPrefix, 9, ACM_FLAGS_NODELAY);
  LONGS_EQUAL(0, prov->resolve(addr_ctx, &req, 1));
  LONGS_EQUAL(0, prov->resolve(addr_ctx, &req, 2));
  LONGS_EQUAL(2, core.answers.size());
  LONGS_EQUAL(ACM_STATUS_ENODATA, AnswerTo(1).status);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerTo(2).status);
  LONGS_EQUAL(9, ssa::FromBe16(AnswerTo(2).path.dlid));

  uint64_t values[ACM_MAX_COUNTER + 2] = {};
  uint8_t count = ACM_MAX_COUNTER + 2;
  LONGS_EQUAL(0, prov->query_perf(ep_ctx, values, &count));
  LONGS_EQUAL(ACM_MAX_COUNTER, count);
  LONGS_EQUAL(2, values[ACM_CNTR_RESOLVE]);
  LONGS_EQUAL(1, values[ACM_CNTR_NODATA]);
  LONGS_EQUAL(0, values[ACM_CNTR_ERROR]);
  LONGS_EQUAL(1, core.counters[ACM_CNTR_ROUTE_QUERY]);
  LONGS_EQUAL(1, core.counters[ACM_CNTR_ROUTE_CACHE]);
  Close();
  STRCMP_EQUAL(
      "calls: init=1 open_device=1 close_device=1 open_port=1 close_port=1 port_changed=0 "
      "open_endpoint=1 close_endpoint=1 add_address=1 remove_address=1 resolve=2 query=0 "
      "query_perf=1 port_event=0",
      core.logs.back().c_str());
}

TEST(Testprov, DelayedAnswersComeFromATimerAndFiniAnswersTheRest) {
  core.SetOptions("test.cfg", 1, {{"delay_ms", "5"}, {"colour", "blue"}});
  Open();
  LONGS_EQUAL(1, core.config_warnings.size());
  STRCMP_EQUAL("test.cfg:2: unknown option", core.config_warnings[0].c_str());
  ssa_resolve_request req = GidRequest(kPrefix, 9, 0);
  LONGS_EQUAL(0, prov->query(addr_ctx, &req, 1));
  LONGS_EQUAL(0, prov->resolve(addr_ctx, &req, 2));
  LONGS_EQUAL(0, core.answers.size());
  LONGS_EQUAL(2, core.timers.size());
  FakeCore::Timer first = core.timers[0];
  first.fn(first.arg);
  LONGS_EQUAL(1, core.answers.size());
  CHECK_TRUE(AnswerTo(1).is_query);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerTo(1).status);
  Close();  // request 2 still waits: fini must answer it and cancel its timer
  LONGS_EQUAL(2, core.answers.size());
  LONGS_EQUAL(ACM_STATUS_ENOTCONN, AnswerTo(2).status);
  CHECK_FALSE(core.timers[1].live);
}

TEST(Testprov, FailInitOptionMakesInitFail) {
  core.SetOptions("test.cfg", 1, {{"fail_init", "yes"}});
  LONGS_EQUAL(-EINVAL, prov->init(&ops, core.handle(), &prov_ctx));
}
