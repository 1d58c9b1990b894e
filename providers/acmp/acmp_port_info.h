// acmp_port_info.h: what acmp needs to know about its port beyond what the
// provider ABI hands over (LID, GID, rate in Gb/s): the active MTU, the
// rate as an IBA code, and PortInfo:SubnetTimeOut. libibumad reports none
// of them, so acmp asks the SA for its own PortInfoRecord (SubnAdmGet,
// attribute 0x0012, by LID) through the core's SA service; this works on
// real fabrics and on the simulated one alike.
//
// PortInfoRecord (IBA 15.2.5.3): EndportLID (2), PortNum (1), Options (1),
// then PortInfo (IBA 14.2.5.6) from byte 4. The PortInfo bytes used:
//   31 LinkWidthActive            36 NeighborMTU:4 | MasterSMSL:4
//   35 LinkSpeedActive:4 | LinkSpeedEnabled:4
//   51 ClientReregister:1 | McastPkeyTrapSuppr:2 | SubnetTimeOut:5
//   62 LinkSpeedExtActive:4 | LinkSpeedExtSupported:4
//
// Also the IBA MTU and rate codes and their conversions (option values are
// in bytes and Gb/s, as upstream ibacm's min_mtu and min_rate).
//
// Pure functions; any thread.
#ifndef IBACM_SSA_PROVIDERS_ACMP_ACMP_PORT_INFO_H
#define IBACM_SSA_PROVIDERS_ACMP_ACMP_PORT_INFO_H

#include <cstddef>
#include <cstdint>

#include "common/base/status.h"

namespace ssa {
namespace acmp {

constexpr uint16_t kAttrPortInfoRecord = 0x0012;
// OpenSM's default subnet_timeout, used when the port reports an
// implausible value (ibsim's ports read 31: 2.4 hours).
constexpr uint8_t kDefaultSubnetTimeout = 18;
constexpr uint8_t kMaxPlausibleSubnetTimeout = 20;  // 4.3 s

// MTU codes: 1=256 2=512 3=1024 4=2048 5=4096; 0 for anything else.
uint8_t MtuCodeFromBytes(long bytes);
int MtuBytes(uint8_t code);
// Rate codes (enum ibv_rate): 2 = 2.5, 5 = 5, 3 = 10, 6 = 20, 4 = 30, 7 =
// 40, 8 = 60, 9 = 80, 10 = 120, 11 = 14, 12 = 56, 13 = 112, 14 = 168,
// 15 = 25, 16 = 100, 17 = 200, 18 = 300, 19 = 28, 20 = 50, 21 = 400,
// 22 = 600 Gb/s. 0 when no code has that rate.
uint8_t RateCodeFromGbps(double gbps);
// Mb/s of a rate code, for comparing (the codes are not ordered); 0 if
// unknown.
uint32_t RateMbps(uint8_t code);
// The rate of a link from PortInfo's width and speed fields (0 if unknown).
uint8_t RateCodeForLink(uint8_t width_active, uint8_t speed_active, uint8_t ext_speed_active);

struct PortAttributes {
  uint8_t mtu = 0;             // code
  uint8_t rate = 0;            // code
  uint8_t subnet_timeout = 0;  // PortInfo code, as reported
};

// A whole 256-byte SubnAdmGet(PortInfoRecord) for the port with base LID
// `lid`.
void BuildPortInfoRecordGet(uint16_t lid, uint8_t* mad);
// Checks the answer and takes the attributes out of it.
Status DecodePortInfoRecordResponse(const uint8_t* mad, size_t len, PortAttributes* out);

// What acmp adds to each try's timeout, as upstream: 2^(code - 8) ms for
// code >= 8 (4.096 us * 2^code rounded down to a power-of-two ms), else 0.
uint32_t SubnetTimeoutMs(uint8_t code);

}  // namespace acmp
}  // namespace ssa

#endif
