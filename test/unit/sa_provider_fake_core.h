// sa_provider_fake_core.h: test fixture for the sa provider's ABI tests
// (sa_provider_abi_test.cc, sa_provider_events_test.cc): loads the built
// provider (providers/sa/.libs/sa.so) with dlopen and drives it through its
// ops table with a fake core that records the SA MADs it is asked to send
// and completes them when a test says so, and records every answer.
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
#include "common/mad/mad_wire.h"
#include "test/support/check_ok.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

namespace sa_provider_test {

namespace mad = ssa::mad;

// TEST_PROVIDER_DIR is <builddir>/test/providers.
inline const std::string kSaProvider = TEST_PROVIDER_DIR "/../../providers/sa/.libs/sa.so";

struct SaFakeCore {
  struct Option {
    std::string key, value, file;
    int line;
  };
  struct Sent {
    std::vector<uint8_t> mad;
    ssa_sa_done_fn done;
    void* arg;
    bool completed = false;
  };
  struct Answer {
    uint8_t status = 0;
    bool has_path = false;
    ibv_path_record path{};
    bool is_query = false;
    int times = 0;
  };
  std::vector<Option> options;
  std::vector<Sent> sent;
  std::map<uint64_t, Answer> answers;
  uint64_t counters[ACM_MAX_COUNTER] = {};
  std::vector<std::string> warnings, logs;
  int sa_send_rc = 0;

  ssa_core_t* handle() { return reinterpret_cast<ssa_core_t*>(this); }
  static SaFakeCore* Of(ssa_core_t* c) { return reinterpret_cast<SaFakeCore*>(c); }
};

inline void FakeLog(ssa_core_t* core, int, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
inline void FakeLog(ssa_core_t* core, int, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  SaFakeCore::Of(core)->logs.push_back(buf);
}

inline int Record(ssa_core_t* core, uint64_t id, uint8_t status, const ibv_path_record* path,
                  bool q) {
  SaFakeCore::Answer& a = SaFakeCore::Of(core)->answers[id];
  a.status = status;
  a.has_path = path != nullptr;
  if (path) a.path = *path;
  a.is_query = q;
  return ++a.times == 1 ? 0 : -EALREADY;
}
inline int FakeResolveDone(ssa_core_t* c, uint64_t id, uint8_t st, const ibv_path_record* p) {
  return Record(c, id, st, p, false);
}
inline int FakeQueryDone(ssa_core_t* c, uint64_t id, uint8_t st, const ibv_path_record* p) {
  return Record(c, id, st, p, true);
}
inline int FakeSaSend(ssa_core_t* core, ssa_core_port_t*, const uint8_t* m, size_t len,
                      ssa_sa_done_fn done, void* arg) {
  SaFakeCore* c = SaFakeCore::Of(core);
  if (c->sa_send_rc) return c->sa_send_rc;
  c->sent.push_back({std::vector<uint8_t>(m, m + len), done, arg});
  return 0;
}
inline uint64_t FakeTimerAdd(ssa_core_t*, uint32_t, ssa_timer_fn, void*) { return 0; }
inline int FakeTimerCancel(ssa_core_t*, uint64_t) { return -ENOENT; }
inline int FakeFdWatch(ssa_core_t*, int, uint32_t, ssa_fd_fn, void*) { return -ENOTSUP; }
inline int FakeFdUnwatch(ssa_core_t*, int) { return -ENOENT; }
inline int FakeConfigForeach(ssa_core_t* core, ssa_config_fn fn, void* arg) {
  for (const auto& o : SaFakeCore::Of(core)->options)
    if (fn(arg, o.key.c_str(), o.value.c_str(), o.file.c_str(), o.line)) break;
  return 0;
}
inline void FakeConfigWarn(ssa_core_t* core, const char* file, int line, const char* msg) {
  SaFakeCore::Of(core)->warnings.push_back(std::string(file) + ":" + std::to_string(line) + ": " +
                                           msg);
}
inline void FakeCounterAdd(ssa_core_t* core, int counter, uint64_t delta) {
  SaFakeCore::Of(core)->counters[counter] += delta;
}

inline const ssa_core_ops kFakeOps = {
    sizeof(ssa_core_ops), SSA_PROV_ABI_MAJOR, SSA_PROV_ABI_MINOR, FakeLog,         FakeResolveDone,
    FakeQueryDone,        FakeSaSend,         FakeTimerAdd,       FakeTimerCancel, FakeFdWatch,
    FakeFdUnwatch,        FakeConfigForeach,  FakeConfigWarn,     FakeCounterAdd,
};

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
  uint16_t be = htons(lid);
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
  std::string dir;
  uint8_t last_reply[mad::kMadSize] = {};

  void setup() override {
    handle = dlopen(kSaProvider.c_str(), RTLD_NOW | RTLD_LOCAL);
    CHECK_TEXT(handle != nullptr, dlerror());
    auto entry = reinterpret_cast<ssa_provider_entry_fn>(dlsym(handle, SSA_PROVIDER_ENTRY_SYMBOL));
    CHECK(entry != nullptr);
    prov = entry(SSA_PROV_ABI_MAJOR, SSA_PROV_ABI_MINOR);
    CHECK(prov != nullptr);
    char tmpl[] = "/tmp/ssa-saprov-XXXXXX";
    CHECK(mkdtemp(tmpl) != nullptr);
    dir = tmpl;
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
    std::string cmd = "rm -rf '" + dir + "'";
    CHECK_EQUAL(0, system(cmd.c_str()));
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  // Options as an INI [sa] section (written out, so the provider can tell
  // the format the way the core does).
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
    r.reversible = true;
    r.pkey = asked.pkey;
    r.mtu_selector = 2;
    r.mtu = mtu;
    r.rate_selector = 2;
    r.rate = 3;
    r.packet_life_time_selector = 2;
    r.packet_life_time = 18;
    uint8_t m[mad::kMadSize] = {};
    mad::MadHeader h;
    h.mgmt_class = mad::kClassSubnAdm;
    h.class_version = mad::kSaClassVersion;
    h.method = mad::kMethodGetResp;
    h.attr_id = mad::kAttrPathRecord;
    h.status = sa_status;
    mad::EncodeMadHeader(h, m);
    mad::SaHeader sa;
    sa.attr_offset = 8;
    mad::EncodeSaHeader(sa, m);
    if (!sa_status) mad::EncodePathRecord(r, m + mad::kSaDataOffset);
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
