// ssa_mad_fuzzer.cc: libFuzzer target for the SSA tree's control MAD codecs
// (common/tree/ssa_mad.cc): what the core (the ibssa_osm plugin) receives
// from any port of the fabric, and what members receive as answers. Built
// with clang by test/fuzz/local.mk and run by test/fuzz/run-fuzzers.sh.
// Seeds: test/fuzz/corpus/ssa_mad/, written by gen_ssa_mad_seeds.py.
//
// The input, padded with zeros or cut to 256 bytes, is one MAD:
//   1. DecodeSsaHeader on the input's own length (only 256 passes) and on
//      the MAD, then the core's and a member's dispatch on it;
//   2. every attribute decoder (Join, Join answer, Leave, TokenCheck and its
//      answer, CoreInfo's answer) whatever the header says. What decodes
//      must hold the documented limits, and re-encoded (with the input's
//      TID and Status) must decode to the same value; bytes 24..223 (every
//      checked byte) must come back as they were, the whole of 0..223 when
//      the input's header is the one the encoder writes, and 224..255 as 0;
//   3. the data addresses that decode print and parse back to themselves;
//      the empty requests and status answers encode to headers that decode.
// ASan/UBSan catch memory and arithmetic errors; FUZZ_CHECK catches broken
// invariants.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/base/big_endian.h"
#include "common/mad/mad_wire.h"
#include "common/tree/ssa_mad.h"
#include "test/fuzz/fuzz_check.h"

using namespace ssa::tree;
namespace mad = ssa::mad;

namespace {

constexpr size_t kAttr = mad::kMadHeaderSize;
constexpr size_t kCheckedEnd = 224;  // receivers ignore bytes 224..255

bool operator==(const mad::MadHeader& a, const mad::MadHeader& b) {
  return a.base_version == b.base_version && a.mgmt_class == b.mgmt_class &&
         a.class_version == b.class_version && a.method == b.method && a.status == b.status &&
         a.class_specific == b.class_specific && a.tid == b.tid && a.attr_id == b.attr_id &&
         a.reserved == b.reserved && a.attr_mod == b.attr_mod;
}

bool Same(const ParentInfo& a, const ParentInfo& b) {
  return a.guid == b.guid && a.lid == b.lid && a.address == b.address && a.key == b.key;
}
bool Same(const JoinRequest& a, const JoinRequest& b) {
  return a.roles == b.roles && a.protocol == b.protocol && a.port_guid == b.port_guid &&
         a.port_gid == b.port_gid && a.epoch == b.epoch && a.token == b.token &&
         a.lost_parent == b.lost_parent && a.data_address == b.data_address &&
         a.software == b.software && a.counters.full_transfers == b.counters.full_transfers &&
         a.counters.delta_transfers == b.counters.delta_transfers &&
         a.counters.bytes_sent == b.counters.bytes_sent &&
         a.counters.refused == b.counters.refused && a.counters.children == b.counters.children &&
         a.counters.reconnects == b.counters.reconnects && a.addr_epoch == b.addr_epoch &&
         a.digest == b.digest && a.addr_digest == b.addr_digest;
}
bool Same(const JoinAnswer& a, const JoinAnswer& b) {
  return Same(a.parent, b.parent) && Same(a.backup, b.backup) && a.token == b.token &&
         a.lease_s == b.lease_s && a.renew_s == b.renew_s && a.core_epoch == b.core_epoch &&
         a.core_key == b.core_key && a.smdb_sha256 == b.smdb_sha256;
}
bool Same(const LeaveRequest& a, const LeaveRequest& b) {
  return a.port_guid == b.port_guid && a.token == b.token;
}
bool Same(const TokenCheckRequest& a, const TokenCheckRequest& b) {
  return a.child_guid == b.child_guid && a.token == b.token && a.parent_guid == b.parent_guid;
}
bool Same(const TokenCheckAnswer& a, const TokenCheckAnswer& b) {
  return a.valid == b.valid && a.roles == b.roles && a.reason == b.reason &&
         a.lease_left_s == b.lease_left_s && a.key == b.key;
}
bool Same(const CoreInfoAnswer& a, const CoreInfoAnswer& b) {
  return a.core_guid == b.core_guid && a.core_lid == b.core_lid &&
         a.data_address == b.data_address && a.epoch == b.epoch && a.members == b.members;
}

// A decoded address prints as what DataAddress::Parse reads back.
void CheckAddress(const DataAddress& a) {
  FUZZ_CHECK(a.family == 0 || a.family == 4 || a.family == 6);
  std::string text = a.ToString();
  if (a.empty()) {
    FUZZ_CHECK(text.empty() && a.port == 0 && a.addr == (std::array<uint8_t, 16>{}));
    return;
  }
  DataAddress back;
  FUZZ_CHECK(DataAddress::Parse(text, &back).ok());
  FUZZ_CHECK(back == a);
}

void CheckParent(const ParentInfo& p) {
  CheckAddress(p.address);
  if (p.guid == 0) FUZZ_CHECK(p.lid == 0 && p.address.empty());
}

// `out` is what the encoder made of the value decoded from `in`: a header
// that decodes to (method, attr, tid, status), and every byte a receiver
// checks as it was in `in`.
void CheckEncoded(const uint8_t* in, const uint8_t* out, uint8_t method, uint16_t attr,
                  uint64_t tid, uint16_t status) {
  mad::MadHeader h;
  FUZZ_CHECK(DecodeSsaHeader(out, mad::kMadSize, &h).ok());
  FUZZ_CHECK(h.method == method && h.attr_id == attr && h.tid == tid && h.status == status);
  FUZZ_CHECK(h.class_specific == 0 && h.reserved == 0 && h.attr_mod == 0);
  FUZZ_CHECK(std::memcmp(in + kAttr, out + kAttr, kCheckedEnd - kAttr) == 0);
  for (size_t i = kCheckedEnd; i < mad::kMadSize; ++i) FUZZ_CHECK(out[i] == 0);
  mad::MadHeader hin;
  FUZZ_CHECK(mad::DecodeMadHeader(in, mad::kMadSize, &hin).ok());
  if (hin == h) FUZZ_CHECK(std::memcmp(in, out, kCheckedEnd) == 0);
}

// The documented limits of what decodes.
void CheckLimits(const JoinRequest& r) {
  constexpr uint8_t kAll = kRoleDistribution | kRoleAccess | kRoleConsumer;
  FUZZ_CHECK(r.roles != 0 && (r.roles & ~kAll) == 0);
  FUZZ_CHECK(!(r.roles & kRoleConsumer) || r.roles == kRoleConsumer);
  FUZZ_CHECK(r.port_guid != 0 && r.software.size() <= 32);
  FUZZ_CHECK(RolesName(r.roles) != "none");
  CheckAddress(r.data_address);
}
void CheckLimits(const JoinAnswer& a) {
  CheckParent(a.parent);
  CheckParent(a.backup);
  if (a.parent.guid) FUZZ_CHECK(a.lease_s > 0 && a.renew_s > 0 && a.renew_s <= a.lease_s);
}
void CheckLimits(const LeaveRequest&) {}
void CheckLimits(const TokenCheckRequest&) {}
void CheckLimits(const TokenCheckAnswer& a) {
  FUZZ_CHECK(a.valid == (a.reason == kCheckOk));
  (void)RolesName(a.roles);
}
void CheckLimits(const CoreInfoAnswer& a) { CheckAddress(a.data_address); }

// One attribute decoder on the MAD `m`: what decodes holds its limits and,
// re-encoded by `encode` (into (method, attr, tid, status)), passes
// CheckEncoded and decodes back to the same value.
template <typename T, typename Encode>
void FuzzAttribute(const uint8_t* m, ssa::Status (*decode)(const uint8_t*, T*), Encode encode,
                   uint8_t method, uint16_t attr, uint64_t tid, uint16_t status) {
  T v;
  if (!decode(m, &v).ok()) return;
  CheckLimits(v);
  uint8_t out[mad::kMadSize];
  encode(v, out);
  CheckEncoded(m, out, method, attr, tid, status);
  T back;
  FUZZ_CHECK(decode(out, &back).ok());
  FUZZ_CHECK(Same(v, back));
}

void FuzzAttributes(const uint8_t* m, uint64_t tid, uint16_t status) {
  auto with_tid = [tid](auto encode) {
    return [tid, encode](const auto& v, uint8_t* out) { encode(v, tid, out); };
  };
  FuzzAttribute(m, DecodeJoin, with_tid(EncodeJoin), mad::kMethodSet, kAttrJoin, tid, 0);
  FuzzAttribute(
      m, DecodeJoinAnswer,
      [tid, status](const JoinAnswer& a, uint8_t* out) { EncodeJoinAnswer(a, tid, status, out); },
      mad::kMethodGetResp, kAttrJoin, tid, status);
  FuzzAttribute(m, DecodeLeave, with_tid(EncodeLeave), mad::kMethodSet, kAttrLeave, tid, 0);
  FuzzAttribute(m, DecodeTokenCheck, with_tid(EncodeTokenCheck), mad::kMethodGet, kAttrTokenCheck,
                tid, 0);
  FuzzAttribute(m, DecodeTokenCheckAnswer, with_tid(EncodeTokenCheckAnswer), mad::kMethodGetResp,
                kAttrTokenCheck, tid, 0);
  FuzzAttribute(m, DecodeCoreInfoAnswer, with_tid(EncodeCoreInfoAnswer), mad::kMethodGetResp,
                kAttrCoreInfo, tid, 0);
}

// The messages with no attribute: CoreInfo and the status-only answers.
void FuzzEmpty(uint64_t tid, uint16_t attr, uint16_t status) {
  uint8_t out[mad::kMadSize];
  mad::MadHeader h;
  EncodeCoreInfo(tid, out);
  FUZZ_CHECK(DecodeSsaHeader(out, sizeof(out), &h).ok());
  FUZZ_CHECK(h.method == mad::kMethodGet && h.attr_id == kAttrCoreInfo && h.tid == tid &&
             h.status == 0);
  for (size_t i = kAttr; i < sizeof(out); ++i) FUZZ_CHECK(out[i] == 0);
  EncodeStatusAnswer(attr, tid, status, out);
  FUZZ_CHECK(DecodeSsaHeader(out, sizeof(out), &h).ok());
  FUZZ_CHECK(h.method == mad::kMethodGetResp && h.attr_id == attr && h.tid == tid &&
             h.status == status);
  for (size_t i = kAttr; i < sizeof(out); ++i) FUZZ_CHECK(out[i] == 0);
  (void)DescribeSsaStatus(status);
}

// Decodes attribute T from a MAD, whatever comes of it.
template <typename T, ssa::Status (*decode)(const uint8_t*, T*)>
void DecodeOnly(const uint8_t* m) {
  T v;
  (void)decode(m, &v);
}

// What the core (requests) or a member (answers) does with a MAD whose
// header passed: exactly one decoder applies, or none.
void Dispatch(const uint8_t* m, const mad::MadHeader& h) {
  FUZZ_CHECK(h.base_version == mad::kBaseVersion && h.mgmt_class == kSsaClass &&
             h.class_version == kSsaClassVersion && h.attr_mod == 0);
  struct Route {
    uint8_t method;
    uint16_t attr;
    bool only_status_0;
    void (*decode)(const uint8_t*);
  };
  static const Route kRoutes[] = {
      {mad::kMethodSet, kAttrJoin, false, DecodeOnly<JoinRequest, DecodeJoin>},
      {mad::kMethodSet, kAttrLeave, false, DecodeOnly<LeaveRequest, DecodeLeave>},
      {mad::kMethodGet, kAttrTokenCheck, false, DecodeOnly<TokenCheckRequest, DecodeTokenCheck>},
      {mad::kMethodGetResp, kAttrJoin, true, DecodeOnly<JoinAnswer, DecodeJoinAnswer>},
      {mad::kMethodGetResp, kAttrTokenCheck, false,
       DecodeOnly<TokenCheckAnswer, DecodeTokenCheckAnswer>},
      {mad::kMethodGetResp, kAttrCoreInfo, false, DecodeOnly<CoreInfoAnswer, DecodeCoreInfoAnswer>},
  };
  for (const Route& r : kRoutes) {
    if (h.method == r.method && h.attr_id == r.attr && (!r.only_status_0 || h.status == 0)) {
      r.decode(m);
      return;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // As received: any length. Only a whole MAD passes.
  mad::MadHeader h;
  ssa::Status st = DecodeSsaHeader(data, size, &h);
  if (size != mad::kMadSize) FUZZ_CHECK(!st.ok());
  if (!st.ok()) FUZZ_CHECK(!st.message().empty());

  uint8_t m[mad::kMadSize] = {};
  std::memcpy(m, data, std::min(size, mad::kMadSize));
  st = DecodeSsaHeader(m, sizeof(m), &h);
  if (st.ok())
    Dispatch(m, h);
  else
    FUZZ_CHECK(!st.message().empty());

  uint64_t tid = ssa::GetBe64(m + 8);
  uint16_t status = ssa::GetBe16(m + 4);
  uint16_t attr = ssa::GetBe16(m + 16);
  FuzzAttributes(m, tid, status);
  FuzzEmpty(tid, attr, status);
  return 0;
}
