// acmp_services.cc: the acmp provider's plumbing to the core: logging, SA
// operations in flight and their completions, and lookups by id for
// anything that may outlive what it refers to. The SA completion catches
// std::bad_alloc: no exception crosses the ABI (timers and fd handlers run
// through provider_shared::CoreReactor, which does the same).
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "common/base/rate_limit.h"
#include "providers/acmp/acmp_provider.h"
#include "providers/shared/core_log.h"

namespace ssa {
namespace acmp {

void AcmpProvider::Log(int level, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  provider_shared::CoreLogV(ops_, core_, level, fmt, args);
  va_end(args);
}

uint64_t AcmpProvider::NowMs() const {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

AcmpEndpoint* AcmpProvider::FindEndpoint(uint64_t id) const {
  auto it = endpoints_.find(id);
  return it == endpoints_.end() ? nullptr : it->second.get();
}

AcmpPort* AcmpProvider::FindPort(uint64_t id) const {
  for (const auto& p : ports_)
    if (p->id == id) return p.get();
  return nullptr;
}

AcmpProvider::SaOp* AcmpProvider::NewSaOp(SaOp::Kind kind, AcmpPort* port) {
  auto op = std::make_unique<SaOp>();
  op->kind = kind;
  op->prov = this;
  op->token = next_id_++;
  op->port_id = port->id;
  SaOp* raw = op.get();
  sa_ops_.emplace(raw->token, std::move(op));
  return raw;
}

bool AcmpProvider::SendSa(SaOp* op, const uint8_t* mad) {
  AcmpPort* port = FindPort(op->port_id);
  int rc = port ? ops_->sa_send(core_, port->core_port, mad, 256, OnSaDone, op) : -ENODEV;
  if (rc == 0) return true;
  ++sa_send_failures_;
  if (ShouldLogCount(sa_send_failures_))
    Log(SSA_LOG_WARN, "SA send failed (%s); %llu so far", strerror(-rc),
        static_cast<unsigned long long>(sa_send_failures_));
  // Completed at once, as a failure: the operation's handler cleans up.
  OnSaDone(op, rc, nullptr, 0);
  return false;
}

void AcmpProvider::OnSaDone(void* arg, int status, const uint8_t* mad, size_t len) {
  auto* op = static_cast<SaOp*>(arg);
  AcmpProvider* prov = op->prov;
  auto it = prov->sa_ops_.find(op->token);
  if (it == prov->sa_ops_.end()) return;
  std::unique_ptr<SaOp> owned = std::move(it->second);
  prov->sa_ops_.erase(it);
  try {
    switch (owned->kind) {
      case SaOp::kPortInfo: prov->HandlePortInfo(owned.get(), status, mad, len); break;
      case SaOp::kJoin: prov->HandleJoin(owned.get(), status, mad, len); break;
      case SaOp::kLeave: break;  // nothing to do either way
      case SaOp::kRoute: prov->HandleRoute(owned.get(), status, mad, len); break;
      case SaOp::kQuery: prov->HandleQuery(owned.get(), status, mad, len); break;
    }
  } catch (const std::bad_alloc&) {
    prov->Log(SSA_LOG_ERROR, "out of memory handling an SA answer");
  }
}

}  // namespace acmp
}  // namespace ssa
