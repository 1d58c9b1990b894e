// sa_provider_fake_core.h: test fixture for the sa provider's ABI tests
// (sa_provider_abi_test.cc, sa_provider_events_test.cc): loads the built
// provider (providers/sa/.libs/sa.so) with dlopen and drives it through its
// ops table with a fake core (test/support/fake_core.h) that records the SA
// MADs it is asked to send, which a test completes when it says so, and
// every answer.
//
// Each test owns one fixture (CppUTest makes one per test); one thread.
#ifndef IBACM_SSA_TEST_UNIT_SA_PROVIDER_FAKE_CORE_H
#define IBACM_SSA_TEST_UNIT_SA_PROVIDER_FAKE_CORE_H

#include <arpa/inet.h>
#include <dlfcn.h>
#include <infiniband/acm.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/big_endian.h"
#include "common/mad/mad_wire.h"
#include "test/support/check_ok.h"
#include "test/support/fake_core.h"
#include "test/support/sa_reply.h"
#include "test/support/temp_dir.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

namespace sa_provider_test {

namespace mad = ssa::mad;

// TEST_PROVIDER_DIR is <builddir>/test/providers.
inline const std::string kSaProvider = TEST_PROVIDER_DIR "/../../providers/sa/.libs/sa.so";

// The sa tests' core: FakeCore (it records the SA MADs and answers), its
// config warnings under the name these tests use.
struct SaFakeCore : ssa::test::FakeCore {
  std::vector<std::string>& warnings = config_warnings;
};
inline const ssa_core_ops& kFakeOps = ssa::test::FakeCore::kOps;

// The port every test opens: LID 5, GUID 0x...1231, SM at LID 1.
inline constexpr uint64_t kPrefix = 0xfe80000000000000ULL;
inline constexpr uint64_t kGuid = 0x0002c90300001231ULL;

inline void GidOf(uint64_t guid, uint8_t out[16]) {
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<uint8_t>(kPrefix >> (56 - 8 * i));
    out[8 + i] = static_cast<uint8_t>(guid >> (56 - 8 * i));
  }
}

inline ssa_address Lid(uint16_t lid) {
  ssa_address a = {};
  a.size = sizeof(a);
  a.type = SSA_ADDR_LID;
  uint16_t be = ssa::ToBe16(lid);
  memcpy(a.data, &be, 2);
  return a;
}

inline ssa_address GidAddr(uint64_t guid) {
  ssa_address a = {};
  a.size = sizeof(a);
  a.type = SSA_ADDR_GID;
  GidOf(guid, a.data);
  return a;
}

inline ssa_address Name(const char* name) {
  ssa_address a = {};
  a.size = sizeof(a);
  a.type = SSA_ADDR_NAME;
  strncpy(reinterpret_cast<char*>(a.data), name, sizeof(a.data) - 1);
  return a;
}

class SaProviderFixture : public Utest {
 public:
  void* handle = nullptr;
  const ssa_provider* prov = nullptr;
  SaFakeCore core;
  void* prov_ctx = nullptr;
  void* dev_ctx = nullptr;
  void* port_ctx = nullptr;
  void* ep_ctx = nullptr;
  void* addr_ctx = nullptr;
  ssa_port_info port{};
  uint16_t pkeys[1] = {0xffff};
  uint64_t next_id = 1;
  ssa::test::TempDir tmp{"ssa-saprov-"};
  const std::string& dir = tmp.path();
  uint8_t last_reply[mad::kMadSize] = {};

  void setup() override {
    handle = dlopen(kSaProvider.c_str(), RTLD_NOW | RTLD_LOCAL);
    CHECK_TEXT(handle != nullptr, dlerror());
    auto entry = reinterpret_cast<ssa_provider_entry_fn>(dlsym(handle, SSA_PROVIDER_ENTRY_SYMBOL));
    CHECK(entry != nullptr);
    prov = entry(SSA_PROV_ABI_MAJOR, SSA_PROV_ABI_MINOR);
    CHECK(prov != nullptr);
    CHECK_OK(tmp.status());
    port.size = sizeof(port);
    port.ca_name = "fake0";
    port.port_num = 1;
    port.state = 4;
    port.lid = 5;
    port.sm_lid = 1;
    port.gid_prefix = kPrefix;
    port.port_guid = kGuid;
    port.pkey_count = 1;
    port.pkeys = pkeys;
  }
  void teardown() override {
    Close();
    if (handle) dlclose(handle);
    CHECK_OK(tmp.Remove());
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  // Options as an INI [sa] section, written out as the core would have read
  // them (the fake core's config_format says INI).
  void Options(const std::vector<std::pair<std::string, std::string>>& kv) {
    std::string text = "[sa]\n";
    for (const auto& p : kv) text += p.first + " = " + p.second + "\n";
    std::string file = Write("opts.cfg", text);
    int line = 2;
    for (const auto& p : kv) core.options.push_back({p.first, p.second, file, line++});
  }
  // init, one device, port, endpoint (P_Key 0xffff) and address "node5".
  void Open() {
    LONGS_EQUAL(0, prov->init(&kFakeOps, core.handle(), &prov_ctx));
    ssa_device_info dev = {sizeof(dev), "fake0", 0x0002c90300001230ULL, 1};
    LONGS_EQUAL(0, prov->open_device(prov_ctx, &dev, &dev_ctx));
    LONGS_EQUAL(
        0, prov->open_port(dev_ctx, &port, reinterpret_cast<ssa_core_port_t*>(&core), &port_ctx));
    ep_ctx = OpenEndpoint(0xffff);
    ssa_address self = Name("node5");
    LONGS_EQUAL(0, prov->add_address(ep_ctx, &self, &addr_ctx));
  }
  void* OpenEndpoint(uint16_t pkey) {
    ssa_endpoint_info info = {sizeof(info), pkey, 0};
    void* ctx = nullptr;
    LONGS_EQUAL(0, prov->open_endpoint(port_ctx, &info, &ctx));
    return ctx;
  }
  void Close() {
    if (!prov_ctx) return;
    if (addr_ctx) prov->remove_address(addr_ctx);
    if (ep_ctx) prov->close_endpoint(ep_ctx);
    prov->close_port(port_ctx);
    prov->close_device(dev_ctx);
    prov->fini(prov_ctx);
    prov_ctx = nullptr;
  }
  uint64_t Resolve(const ssa_address& dst, uint32_t flags = 0, void* from = nullptr) {
    ssa_resolve_request req = {};
    req.size = sizeof(req);
    req.flags = flags;
    req.src = Name("node5");
    req.dst = dst;
    uint64_t id = next_id++;
    LONGS_EQUAL(0, prov->resolve(from ? from : addr_ctx, &req, id));
    return id;
  }
  uint64_t QuerySa(const ibv_path_record& path) {
    ssa_resolve_request req = {};
    req.size = sizeof(req);
    req.flags = ACM_FLAGS_QUERY_SA;
    req.has_path = 1;
    req.path = path;
    uint64_t id = next_id++;
    LONGS_EQUAL(0, prov->query(addr_ctx, &req, id));
    return id;
  }
  // The record a query asked for, and its component mask.
  mad::PathRecord Asked(size_t i, uint64_t* mask = nullptr) {
    mad::PathRecord rec;
    CHECK_OK(mad::DecodePathRecord(core.sent.at(i).mad.data() + mad::kSaDataOffset,
                                   mad::kPathRecordSize, &rec));
    mad::SaHeader sa;
    CHECK_OK(mad::DecodeSaHeader(core.sent.at(i).mad.data(), mad::kMadSize, &sa));
    if (mask) *mask = sa.comp_mask;
    return rec;
  }
  // Completes query `i` with a record (status 0) or an SA error status.
  void Reply(size_t i, uint16_t sa_status = 0, uint8_t mtu = 4) {
    mad::PathRecord asked = Asked(i);
    mad::PathRecord r;
    GidOf(kGuid, r.sgid);
    if (asked.dlid) {
      r.dlid = asked.dlid;
      GidOf(0x100000 + asked.dlid, r.dgid);
    } else {
      memcpy(r.dgid, asked.dgid, 16);
      r.dlid = static_cast<uint16_t>(asked.dgid[15]);
    }
    r.slid = asked.slid ? asked.slid : port.lid;
    r.pkey = asked.pkey;
    ssa::test::TypicalPathFields(&r);
    r.mtu = mtu;
    uint8_t m[mad::kMadSize] = {};
    ssa::test::EncodeSaPathReply(r, sa_status, m);
    memcpy(last_reply, m, sizeof(m));
    Done(i, 0, m);
  }
  void Done(size_t i, int status, const uint8_t* m = nullptr) {
    SaFakeCore::Sent& s = core.sent.at(i);
    CHECK_FALSE(s.completed);  // the core calls each completion once
    s.completed = true;
    s.done(s.arg, status, m, m ? mad::kMadSize : 0);
  }
  const SaFakeCore::Answer& AnswerOf(uint64_t id) {
    auto it = core.answers.find(id);
    CHECK_TEXT(it != core.answers.end(), ("no answer for request " + std::to_string(id)).c_str());
    LONGS_EQUAL(1, it->second.times);
    return it->second;
  }
  bool Answered(uint64_t id) { return core.answers.count(id) != 0; }
  uint64_t EpCounter(void* ep, int counter) {
    uint64_t v[ACM_MAX_COUNTER] = {};
    uint8_t n = ACM_MAX_COUNTER;
    LONGS_EQUAL(0, prov->query_perf(ep, v, &n));
    LONGS_EQUAL(ACM_MAX_COUNTER, n);
    return v[counter];
  }
};

}  // namespace sa_provider_test

#endif
