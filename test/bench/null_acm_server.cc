// null_acm_server.cc: canned answers on the real ClientServer.
#include "test/bench/null_acm_server.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <time.h>

#include "common/acm/acm_wire.h"
#include "common/base/big_endian.h"

namespace ssa {
namespace bench {

Status NullAcmServer::Start(const std::string& socket_path) {
  log_.set_level(LogLevel::kWarn);
  Status st = loop_.Init();
  if (!st.ok()) return st;
  server_ = std::make_unique<ClientServer>(&loop_, &log_, this);
  st = server_->ListenUnix(socket_path, "");
  if (!st.ok()) return st;
  thread_ = std::thread([this] { loop_.Run(); });
  cpu_clock_known_ = pthread_getcpuclockid(thread_.native_handle(), &cpu_clock_) == 0;
  return Status::Ok();
}

void NullAcmServer::Stop() {
  if (!thread_.joinable()) return;
  loop_.Stop();
  thread_.join();
  server_.reset();
}

double NullAcmServer::ThreadCpuSeconds() const {
  timespec ts;
  if (!cpu_clock_known_ || clock_gettime(cpu_clock_, &ts) != 0) return -1;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void NullAcmServer::OnMessage(ClientServer::ClientId client, const uint8_t* msg, size_t len) {
  acm::Request req;
  acm::DecodeResult r = acm::DecodeRequest(msg, len, &req);
  std::vector<uint8_t> reply;
  const acm::ResolveRequest& res = req.resolve;
  if (r.ok() && req.hdr.op() == acm::kOpResolve && path_fn_ && res.dest_entry >= 0 &&
      res.entries[static_cast<size_t>(res.dest_entry)].type == acm::kAddrLid) {
    ibv_path_record path;
    if (path_fn_(res.entries[static_cast<size_t>(res.dest_entry)].lid(), &path))
      reply = acm::EncodeResolveResponse(req.hdr, path, nullptr);
    else
      reply = acm::EncodeErrorResponse(req.hdr, acm::kStatusENoData);
  } else if (r.ok() && req.hdr.op() == acm::kOpResolve) {
    ibv_path_record path = {};
    path.dlid = ToBe16(1);
    path.slid = ToBe16(2);
    path.pkey = ToBe16(0xffff);
    path.reversible_numpath = 0x81;
    reply = acm::EncodeResolveResponse(req.hdr, path, nullptr);
  } else {
    reply = acm::EncodeErrorResponse(req.hdr, acm::kStatusEInval);
  }
  server_->Send(client, reply.data(), reply.size());
}

}  // namespace bench
}  // namespace ssa
