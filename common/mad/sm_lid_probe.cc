// sm_lid_probe.cc: see sm_lid_probe.h.
#include "common/mad/sm_lid_probe.h"

#include <sys/epoll.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "common/base/big_endian.h"
#include "common/base/text_util.h"
#include "common/mad/mad_wire.h"
#include "common/mad/umad_transport.h"

namespace ssa {
namespace {

constexpr uint16_t kPermissiveLid = 0xFFFF;
constexpr size_t kSmpDataOffset = 64;
constexpr uint16_t kDirectionBit = 0x8000;  // in bytes 4-5: set in responses

}  // namespace

void EncodeLocalPortInfoGet(uint32_t tid, int port_num, uint8_t mad[256]) {
  memset(mad, 0, mad::kMadSize);
  mad::MadHeader h;
  h.mgmt_class = kClassSmiDirected;
  h.class_version = kSmiClassVersion;
  h.method = mad::kMethodGet;
  h.tid = tid;
  h.attr_id = kAttrPortInfo;
  h.attr_mod = static_cast<uint32_t>(port_num);
  mad::EncodeMadHeader(h, mad);
  // Bytes 4-5 (D bit and status) 0, hop pointer and hop count 0: the SMP
  // goes nowhere but this port. M_Key 0: PortInfo Get is allowed without
  // it unless the SM set protect bits 2 or 3.
  mad[32] = mad[34] = static_cast<uint8_t>(kPermissiveLid >> 8);
  mad[33] = mad[35] = static_cast<uint8_t>(kPermissiveLid & 0xff);
}

Status DecodePortInfoSm(const uint8_t* mad, size_t len, uint16_t* sm_lid, uint8_t* sm_sl) {
  if (len < kSmpDataOffset + 64) return Status::Error(EBADMSG, "SMP shorter than 128 bytes");
  mad::MadHeader h;
  Status st = mad::DecodeMadHeader(mad, len, &h);
  if (!st.ok()) return st;
  if (h.mgmt_class != kClassSmiDirected || h.method != mad::kMethodGetResp ||
      h.attr_id != kAttrPortInfo)
    return Status::Error(EBADMSG, "not a directed-route PortInfo GetResp");
  uint16_t status = GetBe16(mad + 4);
  if (!(status & kDirectionBit)) return Status::Error(EBADMSG, "response without the D bit");
  if (status & 0x7fff)
    return Status::Error(EBADMSG, "PortInfo answered with status " + HexText(status & 0x7fff));
  const uint8_t* pi = mad + kSmpDataOffset;
  *sm_lid = GetBe16(pi + 18);
  *sm_sl = pi[36] & 0x0f;
  return Status::Ok();
}

SmLidProbe::SmLidProbe(Reactor* reactor, std::unique_ptr<MadTransport> transport, Logger* log,
                       int port_num, int timeout_ms, int retries)
    : reactor_(reactor),
      transport_(std::move(transport)),
      log_(log),
      port_num_(port_num),
      timeout_ms_(timeout_ms),
      retries_(retries) {
  std::random_device rd;
  tid_ = rd();
}

Status SmLidProbe::Open(Reactor* reactor, const std::string& ca_name, int port_num, Logger* log,
                        std::unique_ptr<SmLidProbe>* out) {
  auto probe = std::make_unique<SmLidProbe>(
      reactor, std::make_unique<UmadTransport>(ca_name, port_num, log), log, port_num);
  Status st = probe->Start();
  if (!st.ok()) return st;
  *out = std::move(probe);
  return Status::Ok();
}

SmLidProbe::~SmLidProbe() {
  *alive_ = false;
  Stop();
}

Status SmLidProbe::Start() {
  Status st = transport_->Open(kClassSmiDirected, kSmiClassVersion);
  if (!st.ok()) return st.WithContext("SMI class for the SM LID probe");
  st = reactor_->WatchFd(transport_->fd(), EPOLLIN, [this](uint32_t) { OnReadable(); });
  if (!st.ok()) {
    transport_->Close();
    return st;
  }
  started_ = true;
  return Status::Ok();
}

void SmLidProbe::Stop() {
  if (!started_) return;
  started_ = false;
  if (timer_) reactor_->CancelTimer(timer_);
  timer_ = 0;
  reactor_->UnwatchFd(transport_->fd());
  transport_->Close();
  waiting_.clear();
}

void SmLidProbe::Ask(DoneFn done) {
  if (!started_) {
    // Still asynchronous, as promised.
    std::weak_ptr<bool> alive = alive_;
    reactor_->AddTimer(std::chrono::milliseconds(0), [alive, done] {
      if (alive.lock()) done(Status::Error(ENOTCONN, "SM LID probe not started"), 0, 0);
    });
    return;
  }
  waiting_.push_back(std::move(done));
  if (waiting_.size() > 1) return;  // one SMP answers them all
  ++asked_;
  tries_ = 0;
  ++tid_;
  Transmit();
}

void SmLidProbe::Transmit() {
  ++tries_;
  uint8_t mad[mad::kMadSize];
  EncodeLocalPortInfoGet(tid_, port_num_, mad);
  MadAddress to;
  to.dlid = 0xFFFF;
  to.qpn = 0;
  to.qkey = 0;
  Status st = transport_->Send(mad, sizeof(mad), to, timeout_ms_);
  if (!st.ok()) {
    timer_ = reactor_->AddTimer(std::chrono::milliseconds(0), [this, st] {
      timer_ = 0;
      Finish(st, 0, 0);
    });
    return;
  }
  timer_ = reactor_->AddTimer(std::chrono::milliseconds(timeout_ms_), [this] {
    timer_ = 0;
    if (tries_ <= retries_) return Transmit();
    Finish(Status::Error(ETIMEDOUT, "the port did not answer PortInfo"), 0, 0);
  });
}

void SmLidProbe::OnReadable() {
  ReceivedMad in;
  for (int i = 0; i < 16; ++i) {
    Status st = transport_->Receive(&in);
    if (!st.ok()) return;  // -EAGAIN or an error: the timer covers us
    if (in.transport_status != 0 || waiting_.empty()) continue;
    // umad2sim rewrites the TID's high half: match the low 32 bits.
    if (static_cast<uint32_t>(mad::MadTid(in.data)) != tid_) continue;
    uint16_t lid = 0;
    uint8_t sl = 0;
    st = DecodePortInfoSm(in.data, in.len, &lid, &sl);
    if (timer_) reactor_->CancelTimer(timer_);
    timer_ = 0;
    Finish(st, lid, sl);
  }
}

void SmLidProbe::Finish(Status st, uint16_t lid, uint8_t sl) {
  if (!st.ok()) log_->Log(LogLevel::kDebug, "SM LID probe: %s", st.ToString().c_str());
  std::vector<DoneFn> done;
  done.swap(waiting_);
  for (DoneFn& d : done) d(st, lid, sl);
}

}  // namespace ssa
