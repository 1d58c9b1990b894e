// mad_wire.h: byte layouts of the MADs ibacm-ssa exchanges with the SA: the
// common MAD header, the SA header and the PathRecord attribute, with
// explicit big-endian encode/decode and the constants that go with them.
//
// This file is the one place where these layouts are written down. Every
// offset below is a byte offset from the start of the 256-byte MAD (or, for
// PathRecord fields, from the start of the 64-byte record), as in the IBA
// spec volume 1, sections 13.4.3 (MAD header), 15.2.1.1 (SA header) and
// 15.2.5.16 (PathRecord).
//
//   MAD header (24 bytes)                 SA MAD = MAD header + RMPP + SA header
//    0 BaseVersion (1)                     24 RMPP header (12 bytes; zero: no RMPP)
//    1 MgmtClass   (0x03 = SA)             36 SM_Key          (8)
//    2 ClassVersion (2 for the SA)         44 AttributeOffset (2, in 8-byte words)
//    3 Method      (bit 7 = response)      46 reserved        (2)
//    4 Status      (2, see below)          48 ComponentMask   (8)
//    6 ClassSpecific (2)                   56 attribute data (200 bytes)
//    8 TransactionID (8)
//   16 AttributeID (2)
//   18 reserved (2)
//   20 AttributeModifier (4)
//
// Pure functions on caller-owned buffers: no state, any thread.
#ifndef IBACM_SSA_COMMON_MAD_MAD_WIRE_H
#define IBACM_SSA_COMMON_MAD_MAD_WIRE_H

#include <infiniband/umad_sa.h>
#include <infiniband/umad_types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/base/status.h"

struct ibv_path_record;

namespace ssa {
namespace mad {

constexpr size_t kMadSize = 256;  // every MAD on QP1 without RMPP
constexpr size_t kMadHeaderSize = 24;
constexpr size_t kRmppHeaderOffset = 24;
constexpr size_t kSaHeaderOffset = 36;                    // SM_Key
constexpr size_t kSaDataOffset = 56;                      // first attribute byte
constexpr size_t kSaDataSize = kMadSize - kSaDataOffset;  // 200
constexpr size_t kPathRecordSize = 64;

// Where rdma-core's <infiniband/umad_types.h>/<infiniband/umad_sa.h> name a
// value, the constant below is that name; the unit tests pin the numbers.
constexpr uint8_t kBaseVersion = UMAD_BASE_VERSION;
constexpr uint8_t kClassSubnAdm = UMAD_CLASS_SUBN_ADM;      // 0x03
constexpr uint8_t kSaClassVersion = UMAD_SA_CLASS_VERSION;  // 2

// Methods (IBA 13.4.5 and 15.2.2). A response is its request | 0x80, except
// that SubnAdmSet is answered with SubnAdmGetResp.
constexpr uint8_t kMethodGet = UMAD_METHOD_GET;                         // 0x01
constexpr uint8_t kMethodSet = UMAD_METHOD_SET;                         // 0x02
constexpr uint8_t kMethodGetTable = UMAD_SA_METHOD_GET_TABLE;           // 0x12
constexpr uint8_t kMethodGetMulti = UMAD_SA_METHOD_GET_MULTI;           // 0x14
constexpr uint8_t kMethodDelete = UMAD_SA_METHOD_DELETE;                // 0x15
constexpr uint8_t kMethodResponseBit = UMAD_METHOD_RESP_MASK;           // 0x80
constexpr uint8_t kMethodGetResp = UMAD_METHOD_GET_RESP;                // 0x81
constexpr uint8_t kMethodGetTableResp = UMAD_SA_METHOD_GET_TABLE_RESP;  // 0x92
constexpr uint8_t kMethodGetMultiResp = UMAD_SA_METHOD_GET_MULTI_RESP;  // 0x94
constexpr uint8_t kMethodDeleteResp = UMAD_SA_METHOD_DELETE_RESP;       // 0x95
// The response method a request method is answered with (0 if `method` is
// not a request the SA answers).
uint8_t ResponseMethodFor(uint8_t method);

constexpr uint16_t kAttrPathRecord = UMAD_SA_ATTR_PATH_REC;  // 0x0035

// Where SA requests go: QP1 of the SM's port with the well-known GSI Q_Key.
constexpr uint32_t kSaQpn = 1;
constexpr uint32_t kSaQkey = 0x80010000;

// MAD Status field (IBA 13.4.7, table 138):
//   bit 0 busy, bit 1 redirect, bits 2-4 "invalid field" code (common to all
//   classes), bits 8-15 class specific; for the SA (15.2.1.2, table 182)
//   those hold the SA error codes below, e.g. 0x0300 = ERR_NO_RECORDS.
constexpr uint16_t kStatusBusy = UMAD_STATUS_BUSY;                                  // 0x0001
constexpr uint16_t kStatusRedirect = UMAD_STATUS_REDIRECT;                          // 0x0002
constexpr uint16_t kStatusInvalidFieldMask = UMAD_STATUS_INVALID_FIELD_MASK;        // 0x001c
constexpr uint16_t kStatusBadVersion = UMAD_STATUS_BAD_VERSION;                     // 1 << 2
constexpr uint16_t kStatusMethodNotSupported = UMAD_STATUS_METHOD_NOT_SUPPORTED;    // 2 << 2
constexpr uint16_t kStatusMethodAttrNotSupported = UMAD_STATUS_ATTR_NOT_SUPPORTED;  // 3 << 2
constexpr uint16_t kStatusInvalidAttrValue = UMAD_STATUS_INVALID_ATTR_VALUE;        // 7 << 2
constexpr uint16_t kStatusClassMask = UMAD_STATUS_CLASS_MASK;                       // 0xff00
// SA class-specific codes, as they appear in the whole 16-bit Status field
// (umad_sa.h's UMAD_SA_STATUS_* values shifted left by 8).
constexpr uint16_t kSaStatusNoResources = UMAD_SA_STATUS_NO_RESOURCES << 8;            // 0x0100
constexpr uint16_t kSaStatusReqInvalid = UMAD_SA_STATUS_REQ_INVALID << 8;              // 0x0200
constexpr uint16_t kSaStatusNoRecords = UMAD_SA_STATUS_NO_RECORDS << 8;                // 0x0300
constexpr uint16_t kSaStatusTooManyRecords = UMAD_SA_STATUS_TOO_MANY_RECORDS << 8;     // 0x0400
constexpr uint16_t kSaStatusInvalidGid = UMAD_SA_STATUS_INVALID_GID << 8;              // 0x0500
constexpr uint16_t kSaStatusInsufficientComponents = UMAD_SA_STATUS_INSUF_COMPS << 8;  // 0x0600
constexpr uint16_t kSaStatusReqDenied = UMAD_SA_STATUS_REQ_DENIED << 8;                // 0x0700
constexpr uint16_t kSaStatusPriSuggested = UMAD_SA_STATUS_PRI_SUGGESTED << 8;          // 0x0800

// The 16-bit Status of a MAD (0 = success); 0xffff if `len` is too short to
// hold a MAD header.
uint16_t MadStatus(const uint8_t* mad, size_t len);
// "success", "ERR_NO_RECORDS", "busy", "invalid field 7", ... for logs.
std::string DescribeMadStatus(uint16_t status);
// Maps a MAD status to a negative errno for callers that want one:
// 0 -> 0, ERR_NO_RECORDS -> -ENODATA, busy/NO_RESOURCES -> -EBUSY,
// REQ_DENIED -> -EACCES, anything else -> -EINVAL.
int MadStatusToErrno(uint16_t status);

struct MadHeader {
  uint8_t base_version = kBaseVersion;
  uint8_t mgmt_class = 0;
  uint8_t class_version = 0;
  uint8_t method = 0;
  uint16_t status = 0;
  uint16_t class_specific = 0;
  uint64_t tid = 0;
  uint16_t attr_id = 0;
  uint16_t reserved = 0;
  uint32_t attr_mod = 0;
};

// Writes/reads bytes 0..23. Decode fails (with a message) if len < 24.
void EncodeMadHeader(const MadHeader& header, uint8_t* mad);
Status DecodeMadHeader(const uint8_t* mad, size_t len, MadHeader* header);

// Bytes 36..55. (The RMPP header at 24..35 is left zero: no RMPP here.)
struct SaHeader {
  uint64_t sm_key = 0;
  uint16_t attr_offset = 0;  // in 8-byte words
  uint64_t comp_mask = 0;
};
void EncodeSaHeader(const SaHeader& header, uint8_t* mad);
Status DecodeSaHeader(const uint8_t* mad, size_t len, SaHeader* header);

// Starts an SA request in `mad` (kMadSize bytes, zeroed first): the MAD
// header (class 0x03 version 2, `method`, `attr_id`, `tid`) and the SA
// header (`comp_mask`, `sm_key`); the caller writes the attribute at
// mad + kSaDataOffset. The SA client overwrites the TID, so callers may
// pass 0.
void EncodeSaRequest(uint8_t method, uint16_t attr_id, uint64_t tid, uint64_t comp_mask,
                     uint64_t sm_key, uint8_t* mad);

// The transaction ID of a MAD (bytes 8..15), host order. Only the low 32
// bits survive a round trip: the kernel (and umad2sim) own bits 63:32.
uint64_t MadTid(const uint8_t* mad);
void SetMadTid(uint8_t* mad, uint64_t tid);

// PathRecord component mask bits (IBA 15.2.5.16, table 212). ServiceID
// takes two bits (its two 32-bit halves). rdma-core installs no constants
// for these (OpenSM's complib ib_types.h has them as IB_PR_COMPMASK_*, in
// network order and behind complib headers), so they are spelled out here.
constexpr uint64_t kPrCompServiceId = 3ULL << 0;
constexpr uint64_t kPrCompDgid = 1ULL << 2;
constexpr uint64_t kPrCompSgid = 1ULL << 3;
constexpr uint64_t kPrCompDlid = 1ULL << 4;
constexpr uint64_t kPrCompSlid = 1ULL << 5;
constexpr uint64_t kPrCompRawTraffic = 1ULL << 6;
constexpr uint64_t kPrCompFlowLabel = 1ULL << 8;
constexpr uint64_t kPrCompHopLimit = 1ULL << 9;
constexpr uint64_t kPrCompTclass = 1ULL << 10;
constexpr uint64_t kPrCompReversible = 1ULL << 11;
constexpr uint64_t kPrCompNumbPath = 1ULL << 12;
constexpr uint64_t kPrCompPkey = 1ULL << 13;
constexpr uint64_t kPrCompQosClass = 1ULL << 14;
constexpr uint64_t kPrCompSl = 1ULL << 15;
constexpr uint64_t kPrCompMtuSelector = 1ULL << 16;
constexpr uint64_t kPrCompMtu = 1ULL << 17;
constexpr uint64_t kPrCompRateSelector = 1ULL << 18;
constexpr uint64_t kPrCompRate = 1ULL << 19;
constexpr uint64_t kPrCompPacketLifeTimeSelector = 1ULL << 20;
constexpr uint64_t kPrCompPacketLifeTime = 1ULL << 21;
constexpr uint64_t kPrCompPreference = 1ULL << 22;

// PathRecord (64 bytes), the same bytes as struct ibv_path_record in
// <infiniband/sa.h> (mad_wire.cc static_asserts the offsets):
//    0 ServiceID (8)         48 TClass (1)
//    8 DGID (16)             49 Reversible:1 | NumbPath:7
//   24 SGID (16)             50 P_Key (2)
//   40 DLID (2)              52 QoSClass:12 | SL:4
//   42 SLID (2)              54 MTUSelector:2 | MTU:6
//   44 RawTraffic:1 | reserved:3 | FlowLabel:20 | HopLimit:8
//   55 RateSelector:2 | Rate:6       56 PacketLifeTimeSelector:2 | PacketLifeTime:6
//   57 Preference (1)        58 reserved (6)
// Selectors: 0 greater than, 1 less than, 2 exactly, 3 largest (smallest
// for the packet lifetime) available. All fields host order; GIDs are the 16
// wire bytes.
struct PathRecord {
  uint64_t service_id = 0;
  uint8_t dgid[16] = {};
  uint8_t sgid[16] = {};
  uint16_t dlid = 0;
  uint16_t slid = 0;
  bool raw_traffic = false;
  uint32_t flow_label = 0;  // 20 bits
  uint8_t hop_limit = 0;
  uint8_t tclass = 0;
  bool reversible = false;
  uint8_t numb_path = 0;  // 7 bits
  uint16_t pkey = 0;
  uint16_t qos_class = 0;  // 12 bits
  uint8_t sl = 0;          // 4 bits
  uint8_t mtu_selector = 0;
  uint8_t mtu = 0;  // IBA code: 1=256 .. 5=4096
  uint8_t rate_selector = 0;
  uint8_t rate = 0;  // IBA code, e.g. 3 = 10 Gb/s
  uint8_t packet_life_time_selector = 0;
  uint8_t packet_life_time = 0;
  uint8_t preference = 0;
};

// 64 bytes out/in. Values wider than their field are masked on encode.
void EncodePathRecord(const PathRecord& rec, uint8_t* out);
// Fails if len < 64; checks nothing else (see ValidatePathRecord).
Status DecodePathRecord(const uint8_t* in, size_t len, PathRecord* rec);
// Rejects what an SA never answers: a zero DLID or SLID, an MTU code
// outside 1..5.
Status ValidatePathRecord(const PathRecord& rec);

// The same bytes, as rdma-core's struct (for the provider ABI and acm.h).
void ToIbvPathRecord(const PathRecord& rec, struct ibv_path_record* out);
void FromIbvPathRecord(const struct ibv_path_record& in, PathRecord* rec);

// The component mask upstream ibacm derives from a template record: one bit
// per non-zero field (ServiceID, GIDs, LIDs, flow label, hop limit, tclass,
// reversible, P_Key, QoS class, SL, and each selector/value pair).
uint64_t PathRecordCompMask(const PathRecord& rec);

// Writes a complete SubnAdmGet(PathRecord) request into `mad` (kMadSize
// bytes): MAD header (class 0x03 v2, method 0x01, attribute 0x0035, `tid`),
// SA header (`sm_key`, comp_mask) and the record. As upstream ibacm does,
// the record's Reversible and NumbPath are forced to 1 before the mask is
// computed; the mask is PathRecordCompMask(record) | extra_comp_mask.
// The SA client overwrites the TID, so callers may pass 0.
void BuildPathRecordGet(uint64_t tid, const PathRecord& query, uint64_t extra_comp_mask,
                        uint64_t sm_key, uint8_t* mad);

// The same request with `rec` and `comp_mask` exactly as given: nothing
// forced, nothing derived (SM_Key 0).
void EncodePathRecordGet(uint64_t tid, const PathRecord& rec, uint64_t comp_mask, uint8_t* mad);

// Convenience for the common queries: by GIDs (set `dlid` 0) or by LIDs
// (zero GIDs); `pkey` 0 leaves P_Key out of the mask.
void BuildPathRecordGetByGid(uint64_t tid, const uint8_t sgid[16], const uint8_t dgid[16],
                             uint16_t pkey, uint8_t* mad);
void BuildPathRecordGetByLid(uint64_t tid, uint16_t slid, uint16_t dlid, uint16_t pkey,
                             uint8_t* mad);

// Checks that `mad` is a SubnAdmGetResp(PathRecord) with Status 0 and a
// valid record, and decodes the record. Errors (negative errno codes):
// -EBADMSG for a short or malformed MAD (wrong class, method or attribute,
// bad record), the MadStatusToErrno() code for an SA error status, with a
// message that says which.
Status DecodePathRecordResponse(const uint8_t* mad, size_t len, PathRecord* rec);

// "fe80::2:c902:0:1f12" style text of a GID, as saquery prints it.
std::string GidToString(const uint8_t gid[16]);
// The GID of subnet `prefix` and port `guid` (both host order), wire order.
void PutGid(uint64_t prefix, uint64_t guid, uint8_t gid[16]);

}  // namespace mad
}  // namespace ssa

#endif
