// core_exports.cc: the functions upstream's acm_prov.h says the daemon
// provides, exported by the bridge module (upstream.map) for the library it
// loads. Pure helpers compute here; everything that reaches the core goes
// through the active bridge, which queues it for the core's loop when the
// caller is one of the library's own threads.
#include "providers/upstream/core_exports.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <ibacm_ssa/provider.h>
#include "common/base/big_endian.h"
#include "common/base/mutex.h"
#include "common/mad/mad_wire.h"
#include "providers/upstream/acm_prov_abi.h"
#include "providers/upstream/upstream_bridge.h"

namespace ssa {
namespace upstream {
namespace {

Mutex g_mu;
UpstreamBridge* g_active GUARDED_BY(g_mu) = nullptr;  // the bridge the exports serve
// Upstream reads the file name once; it must stay valid after fini.
char g_opts_file[64] GUARDED_BY(g_mu) = "/dev/null";

// Runs fn(bridge) under the registry lock if a bridge is active; false if
// none is (a call from the library after the bridge's fini).
template <typename Fn>
bool WithBridge(Fn fn) {
  MutexLock lock(&g_mu);
  if (!g_active) return false;
  fn(g_active);
  return true;
}

// The answer in an upstream response message: its status and the first
// path-record entry within the message's length.
InboxItem AnswerFrom(uint64_t id, const acm_msg* msg) {
  InboxItem item;
  item.kind = InboxItem::Kind::kAnswer;
  item.id = id;
  item.status = msg->hdr.status;
  size_t len = msg->hdr.length;
  size_t entries = len > ACM_MSG_HDR_LENGTH ? (len - ACM_MSG_HDR_LENGTH) / ACM_MSG_EP_LENGTH : 0;
  if (entries > ACM_MSG_DATA_LENGTH / ACM_MSG_EP_LENGTH)
    entries = ACM_MSG_DATA_LENGTH / ACM_MSG_EP_LENGTH;
  // resolve_data is a zero-length array over data[]: index data[] itself.
  const auto* ep = reinterpret_cast<const acm_ep_addr_data*>(msg->data);
  for (size_t i = 0; i < entries; i++) {
    if (ep[i].type == ACM_EP_INFO_PATH) {
      item.path = ep[i].info.path;
      item.has_path = true;
      break;
    }
  }
  return item;
}

int PostAnswer(uint64_t id, const acm_msg* msg) {
  if (!msg) return -EINVAL;
  InboxItem item = AnswerFrom(id, msg);
  int rc = -ENOTCONN;
  WithBridge([&](UpstreamBridge* b) { rc = b->Post(std::move(item)) ? 0 : -ENOBUFS; });
  return rc;
}

}  // namespace

bool ActivateBridge(UpstreamBridge* bridge) {
  MutexLock lock(&g_mu);
  if (g_active && g_active != bridge) return false;
  g_active = bridge;
  snprintf(g_opts_file, sizeof(g_opts_file), "%s", bridge->opts_file().c_str());
  return true;
}

void DeactivateBridge(UpstreamBridge* bridge) {
  MutexLock lock(&g_mu);
  if (g_active == bridge) g_active = nullptr;
}

}  // namespace upstream
}  // namespace ssa

using ssa::upstream::UpstreamBridge;
using ssa::upstream::WithBridge;

extern "C" {

void acm_write(int level, const char* format, ...) {
  char buf[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(buf, sizeof(buf), format, args);
  va_end(args);
  WithBridge([&](UpstreamBridge* b) { b->UpstreamLog(level, buf); });
}

void acm_format_name(int level, char* name, size_t name_size, uint8_t addr_type,
                     const uint8_t* addr, size_t addr_size) {
  (void)level;  // the bridge always formats; the core's log level filters
  if (!name || name_size == 0) return;
  name[0] = '\0';
  if (!addr) return;
  switch (addr_type) {
    case ACM_EP_INFO_NAME: {
      size_t n = addr_size < name_size - 1 ? addr_size : name_size - 1;
      memcpy(name, addr, n);
      name[n] = '\0';
      break;
    }
    case ACM_EP_INFO_ADDRESS_IP: inet_ntop(AF_INET, addr, name, name_size); break;
    case ACM_EP_INFO_ADDRESS_IP6:
    case SSA_ADDR_GID:  // upstream's ACM_ADDRESS_GID
      inet_ntop(AF_INET6, addr, name, name_size);
      break;
    case ACM_EP_INFO_PATH: {
      ibv_path_record path;
      memcpy(&path, addr, sizeof(path));
      if (path.dlid)
        snprintf(name, name_size, "SLID(%u) DLID(%u)", ssa::FromBe16(path.slid),
                 ssa::FromBe16(path.dlid));
      else
        inet_ntop(AF_INET6, path.dgid.raw, name, name_size);
      break;
    }
    case SSA_ADDR_LID: {  // ACM_ADDRESS_LID
      uint16_t lid;
      memcpy(&lid, addr, sizeof(lid));
      snprintf(name, name_size, "LID(%u)", ssa::FromBe16(lid));
      break;
    }
    default: snprintf(name, name_size, "Unknown"); break;
  }
}

int ib_any_gid(union ibv_gid* gid) {
  return gid->global.subnet_prefix == 0 && gid->global.interface_id == 0;
}

uint8_t acm_gid_index(struct acm_port* port, union ibv_gid* gid) {
  uint8_t index = 0;
  WithBridge([&](UpstreamBridge* b) { index = b->GidIndex(port, gid); });
  return index;
}

int acm_get_gid(struct acm_port* port, int index, union ibv_gid* gid) {
  bool found = false;
  WithBridge([&](UpstreamBridge* b) { found = b->GetGid(port, index, gid); });
  return found ? 0 : -1;
}

__be64 acm_path_comp_mask(struct ibv_path_record* path) {
  ssa::mad::PathRecord rec;
  ssa::mad::FromIbvPathRecord(*path, &rec);
  return ssa::ToBe64(ssa::mad::PathRecordCompMask(rec));
}

int acm_resolve_response(uint64_t id, struct acm_msg* msg) {
  return ssa::upstream::PostAnswer(id, msg);
}

int acm_query_response(uint64_t id, struct acm_msg* msg) {
  return ssa::upstream::PostAnswer(id, msg);
}

// Link width (1x, 4x, 8x, 12x as PortInfo encodes them: 1, 2, 4, 8) times
// lane speed (PortInfo LinkSpeedActive, extended speeds above 4: FDR10 and
// QDR both 10 Gb/s a lane, FDR 14, EDR 25).
enum ibv_rate acm_get_rate(uint8_t width, uint8_t speed) {
  static const enum ibv_rate table[4][5] = {
      // SDR               DDR               QDR/FDR10          FDR                EDR
      {IBV_RATE_2_5_GBPS, IBV_RATE_5_GBPS, IBV_RATE_10_GBPS, IBV_RATE_14_GBPS, IBV_RATE_25_GBPS},
      {IBV_RATE_10_GBPS, IBV_RATE_20_GBPS, IBV_RATE_40_GBPS, IBV_RATE_56_GBPS, IBV_RATE_100_GBPS},
      {IBV_RATE_20_GBPS, IBV_RATE_40_GBPS, IBV_RATE_80_GBPS, IBV_RATE_112_GBPS, IBV_RATE_200_GBPS},
      {IBV_RATE_30_GBPS, IBV_RATE_60_GBPS, IBV_RATE_120_GBPS, IBV_RATE_168_GBPS, IBV_RATE_300_GBPS},
  };
  int w, s;
  switch (width) {
    case 1: w = 0; break;
    case 2: w = 1; break;
    case 4: w = 2; break;
    case 8: w = 3; break;
    default: return IBV_RATE_MAX;
  }
  switch (speed) {
    case 1: s = 0; break;
    case 2: s = 1; break;
    case 4:
    case 8: s = 2; break;
    case 16: s = 3; break;
    case 32: s = 4; break;
    default: return IBV_RATE_MAX;
  }
  return table[w][s];
}

// Upstream's option values: bytes, defaulting to 2048 when unknown.
enum ibv_mtu acm_convert_mtu(int mtu) {
  for (int m = IBV_MTU_256; m <= IBV_MTU_4096; m++)
    if (mtu == (128 << m)) return static_cast<enum ibv_mtu>(m);
  return IBV_MTU_2048;
}

// Upstream's option values: Gb/s ("2" for 2.5), defaulting to 10 Gb/s.
enum ibv_rate acm_convert_rate(int rate) {
  static const struct {
    int gbps;
    enum ibv_rate rate;
  } rates[] = {
      {2, IBV_RATE_2_5_GBPS},   {5, IBV_RATE_5_GBPS},     {10, IBV_RATE_10_GBPS},
      {14, IBV_RATE_14_GBPS},   {20, IBV_RATE_20_GBPS},   {25, IBV_RATE_25_GBPS},
      {30, IBV_RATE_30_GBPS},   {40, IBV_RATE_40_GBPS},   {56, IBV_RATE_56_GBPS},
      {60, IBV_RATE_60_GBPS},   {80, IBV_RATE_80_GBPS},   {100, IBV_RATE_100_GBPS},
      {112, IBV_RATE_112_GBPS}, {120, IBV_RATE_120_GBPS}, {168, IBV_RATE_168_GBPS},
      {200, IBV_RATE_200_GBPS}, {300, IBV_RATE_300_GBPS},
  };
  for (const auto& r : rates)
    if (r.gbps == rate) return r.rate;
  return IBV_RATE_10_GBPS;
}

struct acm_sa_mad* acm_alloc_sa_mad(const struct acm_endpoint* endpoint, void* context,
                                    void (*handler)(struct acm_sa_mad*)) {
  if (!endpoint || !handler) return nullptr;
  auto* box = static_cast<ssa::upstream::SaMadBox*>(calloc(1, sizeof(ssa::upstream::SaMadBox)));
  if (!box) return nullptr;
  box->mad.context = context;
  box->handler = handler;
  box->ep = reinterpret_cast<const ssa::upstream::EndpointBox*>(endpoint)->owner;
  return &box->mad;
}

void acm_free_sa_mad(struct acm_sa_mad* mad) { free(mad); }  // the box starts with it

int acm_send_sa_mad(struct acm_sa_mad* mad) {
  if (!mad) return -EINVAL;
  ssa::upstream::InboxItem item;
  item.kind = ssa::upstream::InboxItem::Kind::kSaSend;
  item.mad = mad;
  int rc = -ENOTCONN;
  WithBridge([&](UpstreamBridge* b) { rc = b->Post(std::move(item)) ? 0 : -ENOBUFS; });
  return rc;
}

const char* acm_get_opts_file(void) {
  ssa::MutexLock lock(&ssa::upstream::g_mu);
  return ssa::upstream::g_opts_file;
}

void acm_increment_counter(int type) {
  if (type < 0 || type >= ACM_MAX_COUNTER) return;
  ssa::upstream::InboxItem item;
  item.kind = ssa::upstream::InboxItem::Kind::kCounter;
  item.counter = type;
  WithBridge([&](UpstreamBridge* b) { b->Post(std::move(item)); });
}

// An IPoIB interface's hardware address is 20 bytes: the QPN (4) and the
// port GID (16), as sysfs prints it ("80:00:00:48:fe:80:...").
int acm_if_get_sgid(char* ifname, union ibv_gid* sgid) {
  char path[256], line[128];
  snprintf(path, sizeof(path), "/sys/class/net/%s/address", ifname);
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  bool ok = fgets(line, sizeof(line), f) != nullptr;
  fclose(f);
  if (!ok) return -1;
  unsigned int bytes[20];
  const char* p = line;
  for (int i = 0; i < 20; i++) {
    int used = 0;
    if (sscanf(p, i ? ":%2x%n" : "%2x%n", &bytes[i], &used) != 1) return -1;
    p += used;
  }
  for (int i = 0; i < 16; i++) sgid->raw[i] = static_cast<uint8_t>(bytes[4 + i]);
  return 0;
}

}  // extern "C"
