// upstream_bridge.h: the "upstream" provider, a bridge that loads a
// provider library written for upstream ibacm's interface (rdma-core's
// <infiniband/acm_prov.h>: libibacmp.so, third-party providers) unchanged
// and serves our core through it (man/ibacm_upstream.7).
//
// Loading (Init, on the core's loop): the options of the [upstream] section
// pick the library: upstream_provider = PATH, or NAME for upstream's naming,
// <upstream_provider_dir>/libNAME.so. The bridge first makes its own
// exported acm_* functions (core_exports.cc) global, then dlopens the
// library with RTLD_NOW, so a symbol the library needs and the bridge lacks
// fails the load, naming it. provider_query() must succeed and report
// version 1 with a table of upstream's size. The library's other options
// (all but the bridge's own) are handed to it as its options file, which it
// reads through acm_get_opts_file() from its constructor. The library is
// never unloaded: its threads live until the process ends.
//
// Mapping: each of our device/port/endpoint/address contexts wraps the
// upstream struct handed to the library (acm_device with a verbs context
// the bridge opens, acm_port, acm_endpoint, acm_address); resolve and query
// requests become upstream acm_msg requests with our request id as
// upstream's id; port events become handle_event calls.
//
// Threads: the library calls back from its own threads; everything it asks
// of the core goes through the bridge's inbox, a bounded Mailbox
// (common/base/mailbox.h), to the loop thread. The port
// GID tables, which acm_get_gid reads from any thread, are guarded by
// gids_mu_. Everything else runs on the loop thread.
//
// Ownership: the bridge owns its contexts (the core closes children
// first); the library owns what it allocated, SA MADs included.
#ifndef IBACM_SSA_PROVIDERS_UPSTREAM_UPSTREAM_BRIDGE_H
#define IBACM_SSA_PROVIDERS_UPSTREAM_UPSTREAM_BRIDGE_H

#include <infiniband/verbs.h>
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/mailbox.h"
#include "common/base/mutex.h"
#include "providers/shared/core_log.h"
#include "providers/upstream/acm_prov_abi.h"
#include "providers/upstream/bridge_options.h"

namespace ssa {
namespace upstream {

class UpstreamBridge;

// What the library's threads ask of the core (the exported acm_* functions,
// core_exports.cc), queued for the loop thread.
struct InboxItem {
  enum class Kind { kLog, kAnswer, kCounter, kSaSend };
  Kind kind = Kind::kLog;
  int level = 0;              // kLog: upstream's level (0 .. 2)
  std::string text;           // kLog
  uint64_t id = 0;            // kAnswer: the request id
  uint8_t status = 0;         // kAnswer: ACM_STATUS_*
  bool has_path = false;      // kAnswer
  ibv_path_record path{};     // kAnswer
  int counter = 0;            // kCounter: ACM_CNTR_*
  acm_sa_mad* mad = nullptr;  // kSaSend
};

struct UpDevice {
  UpstreamBridge* prov = nullptr;
  std::string name;
  acm_device dev{};  // handed to the library; dev.verbs is ours
  void* up_ctx = nullptr;
};

struct UpPort;
// What the library sees of a port, with the way back to ours.
struct PortBox {
  acm_port port;  // first: the library's pointer is this box's
  UpPort* owner;
};

struct UpPort {
  UpDevice* dev = nullptr;
  PortBox box{};
  ssa_core_port_t* core_port = nullptr;
  std::vector<ibv_gid> gids;  // guarded by the bridge's gids_mu_
  void* up_ctx = nullptr;
};

struct UpEndpoint;
struct EndpointBox {
  acm_endpoint ep;  // first
  UpEndpoint* owner;
};

struct UpEndpoint {
  UpPort* port = nullptr;
  EndpointBox box{};
  void* up_ctx = nullptr;
};

struct UpAddress {
  UpEndpoint* ep = nullptr;
  acm_address addr{};
  char id_string[ACM_MAX_ADDRESS + 1] = {};  // addr.id_string points here
  void* up_ctx = nullptr;
};

// An SA MAD the library allocated through acm_alloc_sa_mad.
struct SaMadBox {
  acm_sa_mad mad;  // first
  void (*handler)(acm_sa_mad*);
  UpEndpoint* ep;
};

class UpstreamBridge : public provider_shared::CoreClient {
 public:
  UpstreamBridge(const ssa_core_ops* ops, ssa_core_t* core) : CoreClient(ops, core) {}
  ~UpstreamBridge();
  UpstreamBridge(const UpstreamBridge&) = delete;
  UpstreamBridge& operator=(const UpstreamBridge&) = delete;

  int Init();

  int OpenDevice(const ssa_device_info* info, UpDevice** out);
  void CloseDevice(UpDevice* d);
  int OpenPort(UpDevice* d, const ssa_port_info* info, ssa_core_port_t* core_port, UpPort** out);
  void ClosePort(UpPort* p);
  void PortChanged(UpPort* p, const ssa_port_info* info);
  void PortEvent(UpPort* p, int event);
  int OpenEndpoint(UpPort* p, const ssa_endpoint_info* info, UpEndpoint** out);
  void CloseEndpoint(UpEndpoint* e);
  int AddAddress(UpEndpoint* e, const ssa_address* addr, UpAddress** out);
  void RemoveAddress(UpAddress* a);
  int Resolve(UpAddress* a, const ssa_resolve_request* req, uint64_t req_id);
  int Query(UpAddress* a, const ssa_resolve_request* req, uint64_t req_id);
  int QueryPerf(UpEndpoint* e, uint64_t* values, uint8_t* count);

  // --- for the exported acm_* functions (core_exports.cc), any thread ---
  // Logs a line of the library (upstream level 0..2).
  void UpstreamLog(int level, const char* text);
  // Queues an item for the loop; false (counted) if the queue is full.
  bool Post(InboxItem item);
  bool GetGid(const acm_port* port, int index, ibv_gid* gid);
  uint8_t GidIndex(const acm_port* port, const ibv_gid* gid);
  const std::string& opts_file() const { return opts_path_; }

 private:
  // The [upstream] section: BridgeOptions, problems through config_warn.
  void ReadOptions();
  int LoadLibrary(const std::string& path);
  int WriteOptsFile();
  int Forward(UpAddress* a, const ssa_resolve_request* req, uint64_t req_id, bool is_query);
  void EmitLog(int level, const std::string& text);
  void OnInbox();
  void Handle(InboxItem& item);
  void SendSa(acm_sa_mad* mad);
  static void OnSaDone(void* arg, int status, const uint8_t* mad, size_t len);
  void SetGids(UpPort* p, const ssa_port_info* info);
  bool OnLoopThread() const;

  BridgeOptions opts_;
  std::string lib_path_;
  acm_provider* up_ = nullptr;  // the library's table, once loaded
  bool active_ = false;         // this bridge is the process's one (core_exports)
  // At most this many items queued: a library flooding the loop has the
  // rest refused (dropped and counted).
  static constexpr size_t kInboxBound = 1 << 16;
  Mailbox<InboxItem> inbox_{kInboxBound};
  bool watching_ = false;
  int opts_fd_ = -1;
  std::string opts_path_;
  pthread_t loop_thread_{};                     // the core's loop
  std::unordered_map<uint64_t, bool> pending_;  // request id -> is a query
  std::atomic<uint64_t> dropped_{0};            // inbox overflows (any thread)
  Mutex gids_mu_;  // guards every UpPort::gids (not GUARDED_BY: another object's)
};

}  // namespace upstream
}  // namespace ssa

#endif
