// sm_lid_probe.h: asks the local port itself, by a directed-route SMP with
// no hops (SubnGet(PortInfo) to ourselves), which LID the master SM has now.
//
// Why: a member of the SSA tree sends every control MAD to the SM's LID.
// When the master SM dies and a standby takes over, the kernel's cached
// port attributes (sysfs, umad_get_port) follow on hardware, but only after
// the SM-change event, and on the simulated fabric never (umad2sim reads
// them once at process start: doc/simulated-fabric.md). The port's own
// PortInfo.MasterSMLID is what the new SM programmed; one SMP reads it.
//
// The SMP layout (IBA 14.2.1.2, directed route): the common MAD header
// with class 0x81 and class version 1, bytes 4-5 the D bit (bit 15) and
// status, byte 6 hop pointer, byte 7 hop count (0 here), then M_Key
// (24..31), DrSLID and DrDLID (32..35, both 0xFFFF: permissive), 28
// reserved bytes, the 64-byte attribute at 64, initial and return paths at
// 128 and 192. PortInfo: MasterSMLID at attribute bytes 18..19, MasterSMSL
// in the low 4 bits of byte 36.
//
// Loop thread only; borrows the reactor and the log.
#ifndef IBACM_SSA_COMMON_MAD_SM_LID_PROBE_H
#define IBACM_SSA_COMMON_MAD_SM_LID_PROBE_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/base/log.h"
#include "common/base/reactor.h"
#include "common/base/status.h"
#include "common/mad/mad_transport.h"

namespace ssa {

constexpr uint8_t kClassSmiDirected = 0x81;
constexpr uint8_t kSmiClassVersion = 1;
constexpr uint16_t kAttrPortInfo = 0x0015;

// A SubnGet(PortInfo) of local port `port_num`, directed route, hop count 0.
void EncodeLocalPortInfoGet(uint32_t tid, int port_num, uint8_t mad[256]);
// From its GetResp: the master SM's LID and SL. EBADMSG for anything that
// is not a directed-route PortInfo GetResp, or carries a non-zero status.
Status DecodePortInfoSm(const uint8_t* mad, size_t len, uint16_t* sm_lid, uint8_t* sm_sl);

class SmLidProbe {
 public:
  using DoneFn = std::function<void(Status st, uint16_t sm_lid, uint8_t sm_sl)>;

  // `transport` unopened; Start() opens it for the SMI directed-route class.
  SmLidProbe(Reactor* reactor, std::unique_ptr<MadTransport> transport, Logger* log, int port_num,
             int timeout_ms = 500, int retries = 2);
  ~SmLidProbe();
  SmLidProbe(const SmLidProbe&) = delete;
  SmLidProbe& operator=(const SmLidProbe&) = delete;

  // A started probe on a umad port (ca_name "" = the default CA).
  static Status Open(Reactor* reactor, const std::string& ca_name, int port_num, Logger* log,
                     std::unique_ptr<SmLidProbe>* out);

  // Opens the transport (e.g. EACCES without access to QP0).
  Status Start();
  void Stop();

  // Asks once; every caller waiting when the answer (or the last timeout)
  // comes gets it. `done` runs on the loop, never inside Ask().
  void Ask(DoneFn done);
  // The same for MemberControlOptions::probe_sm_lid: the LID, 0 if unknown.
  void AskLid(std::function<void(uint16_t)> done) {
    Ask([done](Status st, uint16_t lid, uint8_t) { done(st.ok() ? lid : 0); });
  }

  uint64_t asked() const { return asked_; }

 private:
  void Transmit();
  void OnReadable();
  void Finish(Status st, uint16_t lid, uint8_t sl);

  Reactor* reactor_;
  std::unique_ptr<MadTransport> transport_;
  Logger* log_;
  int port_num_;
  int timeout_ms_;
  int retries_;
  bool started_ = false;
  std::vector<DoneFn> waiting_;
  uint32_t tid_ = 0;
  int tries_ = 0;
  Reactor::TimerId timer_ = 0;
  uint64_t asked_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace ssa

#endif
