// acmp_fake_fabric.cc: the fake core and fake SA of acmp_fake_fabric.h.
#include "test/unit/acmp_fake_fabric.h"

#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <fstream>

#include "common/mad/mad_wire.h"
#include "providers/acmp/mcmember_wire.h"
#include "test/support/check_ok.h"

namespace acmp_test {

namespace mad = ssa::mad;
using Clock = std::chrono::steady_clock;

namespace {

void Put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}

}  // namespace

void FakeNode::Log(int level, const std::string& line) {
  FakeCore::Log(level, line);
  if (level <= SSA_LOG_WARN) warnings.push_back(line);
}

void FakeNode::ConfigWarn(const std::string& text) {
  FakeCore::ConfigWarn(text);
  warnings.push_back(text);
}

int FakeNode::SaSend(ssa_core_port_t*, const uint8_t* mad, size_t len, ssa_sa_done_fn done,
                     void* arg) {
  fabric->SaSend(this, mad, len, done, arg);
  return 0;
}

uint64_t FakeNode::TimerAdd(uint32_t delay_ms, ssa_timer_fn fn, void* arg) {
  return fabric->loop()->AddTimer(std::chrono::milliseconds(delay_ms), [fn, arg] { fn(arg); });
}

int FakeNode::TimerCancel(uint64_t id) { return fabric->loop()->CancelTimer(id) ? 0 : -ENOENT; }

int FakeNode::FdWatch(int fd, uint32_t events, ssa_fd_fn fn, void* arg) {
  ssa::Status st =
      fabric->loop()->WatchFd(fd, events, [fn, arg, fd](uint32_t ev) { fn(arg, fd, ev); });
  return st.ok() ? 0 : st.code();
}

int FakeNode::FdUnwatch(int fd) {
  fabric->loop()->UnwatchFd(fd);
  return 0;
}

std::string FakeNode::AllLogs() const {
  std::string all;
  for (const auto& l : logs) all += l + "\n";
  return all;
}

FakeFabric::FakeFabric() {
  CHECK_OK(loop_.Init());
  handle_ = dlopen(kAcmpProvider.c_str(), RTLD_NOW | RTLD_LOCAL);
  CHECK_TEXT(handle_ != nullptr, dlerror());
  auto entry = reinterpret_cast<ssa_provider_entry_fn>(dlsym(handle_, SSA_PROVIDER_ENTRY_SYMBOL));
  CHECK(entry != nullptr);
  prov_ = entry(SSA_PROV_ABI_MAJOR, SSA_PROV_ABI_MINOR);
  CHECK(prov_ != nullptr);
  CHECK_OK(dir_.status());
}

FakeFabric::~FakeFabric() {
  for (auto& n : nodes_)
    if (n->running()) Stop(n.get());
  if (handle_) dlclose(handle_);
  ssa::Status st = dir_.Remove();
  if (!st.ok()) fprintf(stderr, "%s\n", st.ToString().c_str());
}

FakeNode* FakeFabric::AddNode(int n,
                              const std::vector<std::pair<std::string, std::string>>& extra) {
  auto node = std::make_unique<FakeNode>();
  node->fabric = this;
  node->number = n;
  node->name = "node" + std::to_string(n);
  node->lid = static_cast<uint16_t>(n + 1);
  node->guid = 0x0002c90300001000ULL + static_cast<uint64_t>(n);
  std::vector<std::pair<std::string, std::string>> options = {
      {"sim_dir", dir() + "/dgram"}, {"timeout", "50"}, {"retries", "2"}};
  for (const auto& kv : extra) options.push_back(kv);
  node->options_file = dir() + "/" + node->name + ".cfg";
  node->SetOptions(node->options_file, 2, options);  // line 1 is the section
  std::ofstream f(node->options_file);
  f << "[acmp]\n";
  for (const auto& kv : options) f << kv.first << " = " << kv.second << "\n";
  ssa_port_info& p = node->port;
  p.size = sizeof(p);
  p.ca_name = "ibsim0";
  p.port_num = 1;
  p.state = 4;
  p.lid = node->lid;
  p.sm_lid = 1;
  p.gid_prefix = 0xfe80000000000000ULL;
  p.port_guid = node->guid;
  p.rate_gbps = 10;
  p.pkey_count = 1;
  p.pkeys = node->pkeys;
  for (int i = 0; i < 8; ++i) {
    node->gid[i] = static_cast<uint8_t>(p.gid_prefix >> (56 - 8 * i));
    node->gid[8 + i] = static_cast<uint8_t>(node->guid >> (56 - 8 * i));
  }
  nodes_.push_back(std::move(node));
  return nodes_.back().get();
}

void FakeFabric::Start(FakeNode* n, bool wait_ready) {
  size_t before = n->logs.size();
  LONGS_EQUAL(0, prov_->init(&FakeNode::kOps, n->handle(), &n->prov_ctx));
  ssa_device_info dev = {sizeof(dev), "ibsim0", n->guid, 1};
  LONGS_EQUAL(0, prov_->open_device(n->prov_ctx, &dev, &n->dev_ctx));
  LONGS_EQUAL(0, prov_->open_port(n->dev_ctx, &n->port, reinterpret_cast<ssa_core_port_t*>(n),
                                  &n->port_ctx));
  ssa_endpoint_info ep = {sizeof(ep), 0xffff, 0};
  LONGS_EQUAL(0, prov_->open_endpoint(n->port_ctx, &ep, &n->ep_ctx));
  std::string num = std::to_string(n->number);
  std::vector<ssa_address> addrs = {Name(n->name), Ip("10.0.0." + num), Ip6("fd00::" + num)};
  for (int alias = 1; alias <= n->aliases; ++alias)
    addrs.push_back(Name(n->name + "-alias" + std::to_string(alias)));
  for (const ssa_address& a : addrs) {
    void* ctx = nullptr;
    LONGS_EQUAL(0, prov_->add_address(n->ep_ctx, &a, &ctx));
    n->addr_ctx.push_back(ctx);
  }
  if (!wait_ready) return;
  bool ready = RunUntil(
      [&] {
        for (size_t i = before; i < n->logs.size(); ++i)
          if (n->logs[i].find(" ready (QPN") != std::string::npos) return true;
        return false;
      },
      5000);
  CHECK_TEXT(ready, (n->name + " never became ready:\n" + n->AllLogs()).c_str());
}

void FakeFabric::Stop(FakeNode* n) {
  for (void* a : n->addr_ctx) prov_->remove_address(a);
  n->addr_ctx.clear();
  if (n->ep_ctx) prov_->close_endpoint(n->ep_ctx);
  n->ep_ctx = nullptr;
  // As the core does before close_port: the port's SA operations end now.
  for (auto& p : pending_)
    if (p->node == n && !p->finished) {
      p->finished = true;
      p->done(p->arg, -ECANCELED, nullptr, 0);
    }
  prov_->close_port(n->port_ctx);
  prov_->close_device(n->dev_ctx);
  prov_->fini(n->prov_ctx);
  n->prov_ctx = nullptr;
}

void FakeFabric::SaSend(FakeNode* node, const uint8_t* mad, size_t len, ssa_sa_done_fn done,
                        void* arg) {
  auto p = std::make_shared<Pending>();
  p->node = node;
  p->done = done;
  p->arg = arg;
  p->reply.assign(mad, mad + len);
  node->sa_sent[static_cast<uint16_t>(mad[16] << 8 | mad[17])]++;
  Answer(p->reply.data());
  pending_.push_back(p);
  // Answered from the loop, never inside sa_send.
  loop_.AddTimer(std::chrono::milliseconds(0), [p] {
    if (p->finished) return;
    p->finished = true;
    p->done(p->arg, 0, p->reply.data(), p->reply.size());
  });
}

void FakeFabric::Answer(uint8_t* m) {
  uint16_t attr = static_cast<uint16_t>(m[16] << 8 | m[17]);
  uint8_t* rec = m + mad::kSaDataOffset;
  uint8_t method = m[3];
  m[3] = method == mad::kMethodDelete ? mad::kMethodDeleteResp : mad::kMethodGetResp;
  if (attr == 0x0012) {  // PortInfoRecord: 4x SDR, MTU 2048, SubnetTimeOut 8 (1 ms)
    uint8_t* pi = rec + 4;
    pi[31] = 2;
    pi[35] = 0x11;
    pi[36] = 0x40;
    pi[51] = 8;
  } else if (attr == mad::kAttrMcMemberRecord) {
    if (method == mad::kMethodSet && join_failures_left > 0) {
      --join_failures_left;
      m[4] = 0x02;  // ERR_REQ_INVALID
      return;
    }
    std::string mgid(reinterpret_cast<char*>(rec), 16);
    if (!mlids_.count(mgid)) mlids_[mgid] = static_cast<uint16_t>(0xc001 + mlids_.size());
    Put16(rec + 36, mlids_[mgid]);
    rec[43] = 0x80;  // packet lifetime 0, "exactly"
  } else if (attr == mad::kAttrPathRecord) {
    ++path_queries;
    mad::PathRecord q;
    mad::DecodePathRecord(rec, 64, &q);
    FakeNode* to = q.dlid ? NodeByLid(q.dlid) : NodeByGid(q.dgid);
    FakeNode* from = q.slid ? NodeByLid(q.slid) : NodeByGid(q.sgid);
    if (!to || !from) {
      m[4] = 0x03;  // ERR_NO_RECORDS
      return;
    }
    mad::PathRecord r;
    memcpy(r.dgid, to->gid, 16);
    memcpy(r.sgid, from->gid, 16);
    r.dlid = to->lid;
    r.slid = from->lid;
    r.reversible = true;
    r.pkey = 0xffff;
    r.mtu_selector = r.rate_selector = r.packet_life_time_selector = 2;
    r.mtu = 4;
    r.rate = 3;
    r.packet_life_time = 18;
    mad::EncodePathRecord(r, rec);
  } else {
    m[4] = 0x0c;  // attribute not supported
  }
}

FakeNode* FakeFabric::NodeByLid(uint16_t lid) {
  for (auto& n : nodes_)
    if (n->lid == lid && n->running()) return n.get();
  return nullptr;
}

FakeNode* FakeFabric::NodeByGid(const uint8_t* gid) {
  for (auto& n : nodes_)
    if (!memcmp(n->gid, gid, 16) && n->running()) return n.get();
  return nullptr;
}

uint64_t FakeFabric::Resolve(FakeNode* from, const ssa_address& dst, uint32_t flags) {
  ssa_resolve_request req = {};
  req.size = sizeof(req);
  req.flags = flags;
  req.src = Name(from->name);
  req.dst = dst;
  uint64_t id = from->next_req++;
  LONGS_EQUAL(0, prov_->resolve(from->addr_ctx[0], &req, id));
  return id;
}

uint64_t FakeFabric::QuerySa(FakeNode* from, const ibv_path_record& path) {
  ssa_resolve_request req = {};
  req.size = sizeof(req);
  req.flags = ACM_FLAGS_QUERY_SA;
  req.has_path = 1;
  req.path = path;
  uint64_t id = from->next_req++;
  LONGS_EQUAL(0, prov_->query(from->addr_ctx[0], &req, id));
  return id;
}

const FakeNode::Answer& FakeFabric::Wait(FakeNode* from, uint64_t id, int ms) {
  bool answered = RunUntil([&] { return from->answers.count(id) != 0; }, ms);
  CHECK_TEXT(answered, ("request " + std::to_string(id) + " of " + from->name +
                        " never answered:\n" + from->AllLogs())
                           .c_str());
  LONGS_EQUAL(1, from->answers[id].times);
  return from->answers[id];
}

const FakeNode::Answer& FakeFabric::ResolveNow(FakeNode* from, const ssa_address& dst,
                                               uint32_t flags) {
  return Wait(from, Resolve(from, dst, flags));
}

uint64_t FakeFabric::Counter(FakeNode* node, int counter) {
  uint64_t values[ACM_MAX_COUNTER] = {};
  uint8_t count = ACM_MAX_COUNTER;
  LONGS_EQUAL(0, prov_->query_perf(node->ep_ctx, values, &count));
  return values[counter];
}

bool FakeFabric::RunUntil(const std::function<bool()>& done, int ms) {
  return loop_.RunUntil(done, std::chrono::milliseconds(ms));
}

ssa_address FakeFabric::Name(const std::string& n) {
  ssa_address a = {};
  a.size = sizeof(a);
  a.type = SSA_ADDR_NAME;
  strncpy(reinterpret_cast<char*>(a.data), n.c_str(), sizeof(a.data) - 1);
  return a;
}

namespace {

// An address of `type` holding `text` read as an address of `family`.
ssa_address InetAddress(uint16_t type, int family, const std::string& text) {
  ssa_address a = {};
  a.size = sizeof(a);
  a.type = type;
  inet_pton(family, text.c_str(), a.data);
  return a;
}

}  // namespace

ssa_address FakeFabric::Ip(const std::string& text) {
  return InetAddress(SSA_ADDR_IP, AF_INET, text);
}

ssa_address FakeFabric::Ip6(const std::string& text) {
  return InetAddress(SSA_ADDR_IP6, AF_INET6, text);
}

ssa_address FakeFabric::Lid(uint16_t lid) {
  ssa_address a = {};
  a.size = sizeof(a);
  a.type = SSA_ADDR_LID;
  Put16(a.data, lid);
  return a;
}

}  // namespace acmp_test
