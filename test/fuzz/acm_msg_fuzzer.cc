// acm_msg_fuzzer.cc: libFuzzer target for the ibacm client protocol codec
// (common/acm_wire*). Built with clang by test/fuzz/local.mk and run by
// test/fuzz/run-fuzzers.sh; not part of any daemon.
//
// The input is treated three ways, as the daemon and the client meet it:
//   1. a byte stream from a client: framed with PeekFrame, each frame decoded
//      with DecodeRequest and answered (error or success reply), and every
//      reply checked to frame as itself and to decode with our client side;
//   2. one recv()'d message of arbitrary length (DecodeRequest's close paths);
//   3. a reply from a daemon, fed to each client-side decoder.
// ASan/UBSan catch memory and arithmetic errors; FUZZ_CHECK catches broken
// invariants of the codec itself.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/acm/acm_wire.h"
#include "test/fuzz/fuzz_check.h"

namespace acm = ssa::acm;

namespace {

void CheckFramesAsItself(const std::vector<uint8_t>& reply) {
  size_t frame_len = 0;
  std::string error;
  FUZZ_CHECK(acm::PeekFrame(reply.data(), reply.size(), &frame_len, &error) ==
             acm::FrameStatus::kComplete);
  FUZZ_CHECK(frame_len == reply.size());
}

// What the client reads back from a text field the server was given.
std::string AsSent(const std::string& text, size_t field) {
  std::string s = text.substr(0, field - 1);
  return s.substr(0, s.find('\0'));
}

void AnswerResolve(const acm::Request& req) {
  const acm::ResolveRequest& rr = req.resolve;
  for (const acm::EpAddr& e : rr.entries) (void)e.ToString();
  // Any 64 bytes will do as "the path found": the request's own.
  ibv_path_record path;
  const acm::EpAddr* source = nullptr;
  if (rr.is_path) {
    FUZZ_CHECK(!rr.entries.empty() && rr.dest_entry == -1);
    path = rr.entries[0].path();
  } else {
    FUZZ_CHECK(rr.dest_entry >= 0 && static_cast<size_t>(rr.dest_entry) < rr.entries.size());
    FUZZ_CHECK(rr.source_entry < static_cast<int>(rr.entries.size()));
    const acm::EpAddr& dest = rr.entries[static_cast<size_t>(rr.dest_entry)];
    std::memcpy(&path, dest.info.data(), sizeof(path));
    if (rr.source_entry < 0) source = &dest;  // "the server selected a source"
  }
  (void)acm::FormatPathRecord(path);
  std::vector<uint8_t> reply = acm::EncodeResolveResponse(req.hdr, path, source);
  CheckFramesAsItself(reply);
  acm::ResolveResponse back;
  ssa::Status st = acm::DecodeResolveResponse(reply.data(), reply.size(), &back);
  // The client only takes a name or an IP address as the selected source.
  bool client_accepts = !source || source->type == acm::kAddrName || source->type == acm::kAddrIp ||
                        source->type == acm::kAddrIp6;
  FUZZ_CHECK(st.ok() == client_accepts);
  if (!st.ok()) return;
  FUZZ_CHECK(back.hdr.tid == req.hdr.tid);
  FUZZ_CHECK(back.paths.size() == 1);
  FUZZ_CHECK(back.paths[0].flags == acm::kResolvedPathFlags);
  FUZZ_CHECK(std::memcmp(&back.paths[0].path, &path, sizeof(path)) == 0);
  FUZZ_CHECK(back.has_source == (source != nullptr));
  if (source) FUZZ_CHECK(back.source.type == source->type && back.source.info == source->info);
}

void AnswerPerf(const acm::Request& req, size_t size) {
  if (req.perf.scope == acm::PerfQueryRequest::Scope::kEndpointAddress)
    (void)req.perf.address.ToString();
  std::vector<uint64_t> counters(size % 90);  // up to past kMaxCounters
  for (size_t i = 0; i < counters.size(); ++i) counters[i] = (uint64_t{i} << 40) ^ size;
  std::vector<uint8_t> reply = acm::EncodePerfResponse(req.hdr, counters);
  CheckFramesAsItself(reply);
  acm::PerfResponse back;
  FUZZ_CHECK(acm::DecodePerfResponse(reply.data(), reply.size(), &back).ok());
  size_t sent = counters.size() < acm::kMaxCounters ? counters.size() : acm::kMaxCounters;
  FUZZ_CHECK(back.counters.size() == sent);
  for (size_t i = 0; i < sent; ++i) FUZZ_CHECK(back.counters[i] == counters[i]);
}

void AnswerEpQuery(const acm::Request& req, const uint8_t* data, size_t size) {
  acm::EpConfig config;
  config.dev_guid = size * 0x9e3779b97f4a7c15ull;
  config.port_num = req.ep_query.port_filter;
  config.pkey = static_cast<uint16_t>(size);
  // Text straight from the input: NULs, control bytes, overlong strings.
  std::string text(reinterpret_cast<const char*>(data), size);
  config.prov_name = text;
  for (size_t i = 0; i < size % 10; ++i)
    config.addrs.push_back(text.substr(i * 7 < size ? i * 7 : size));
  std::vector<uint8_t> reply = acm::EncodeEpQueryResponse(req.hdr, config);
  CheckFramesAsItself(reply);
  acm::EpQueryResponse back;
  FUZZ_CHECK(acm::DecodeEpQueryResponse(reply.data(), reply.size(), &back).ok());
  FUZZ_CHECK(back.config.dev_guid == config.dev_guid && back.config.pkey == config.pkey);
  FUZZ_CHECK(back.config.prov_name == AsSent(config.prov_name, acm::kMaxProvName));
  size_t sent =
      config.addrs.size() < acm::kMaxEpQueryAddrs ? config.addrs.size() : acm::kMaxEpQueryAddrs;
  FUZZ_CHECK(back.config.addrs.size() == sent);
  for (size_t i = 0; i < sent; ++i)
    FUZZ_CHECK(back.config.addrs[i] == AsSent(config.addrs[i], acm::kMaxAddress));
}

void ServeStream(const uint8_t* data, size_t size) {
  size_t off = 0;
  while (off < size) {
    size_t frame_len = 0;
    std::string error;
    acm::FrameStatus fs = acm::PeekFrame(data + off, size - off, &frame_len, &error);
    if (fs == acm::FrameStatus::kInvalid) {
      FUZZ_CHECK(!error.empty());
      return;
    }
    FUZZ_CHECK(frame_len >= acm::kHeaderLength && frame_len <= acm::kMaxMsgLength);
    if (fs == acm::FrameStatus::kNeedMore) {
      FUZZ_CHECK(frame_len > size - off || size - off < acm::kHeaderLength);
      return;
    }
    FUZZ_CHECK(frame_len <= size - off);
    acm::Request req;
    acm::DecodeResult r = acm::DecodeRequest(data + off, frame_len, &req);
    // PeekFrame vouched for the framing, so the connection survives.
    FUZZ_CHECK(r.action != acm::DecodeAction::kClose);
    if (r.action == acm::DecodeAction::kReplyError) {
      FUZZ_CHECK(r.status != acm::kStatusSuccess && !r.reason.empty());
      (void)acm::AcmStatusName(r.status);
      std::vector<uint8_t> reply = acm::EncodeErrorResponse(req.hdr, r.status);
      CheckFramesAsItself(reply);
    } else if (req.hdr.opcode == acm::kOpResolve) {
      AnswerResolve(req);
    } else if (req.hdr.opcode == acm::kOpPerfQuery) {
      AnswerPerf(req, frame_len);
    } else {
      FUZZ_CHECK(req.hdr.opcode == acm::kOpEpQuery && req.ep_query.endpoint_index >= 1);
      AnswerEpQuery(req, data + off, frame_len);
    }
    off += frame_len;
  }
}

void ReadAsReplies(const uint8_t* data, size_t size) {
  acm::ResolveResponse rr;
  if (acm::DecodeResolveResponse(data, size, &rr).ok()) {
    for (const acm::PathData& p : rr.paths) (void)acm::FormatPathRecord(p.path);
    if (rr.has_source) (void)rr.source.ToString();
  }
  acm::PerfResponse pr;
  if (acm::DecodePerfResponse(data, size, &pr).ok())
    for (size_t i = 0; i < pr.counters.size(); ++i) (void)acm::CounterName(static_cast<int>(i));
  acm::EpQueryResponse er;
  if (acm::DecodeEpQueryResponse(data, size, &er).ok())
    FUZZ_CHECK(er.config.addrs.size() <= acm::kMaxEpQueryAddrs);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ServeStream(data, size);
  acm::Request req;
  (void)acm::DecodeRequest(data, size, &req);
  ReadAsReplies(data, size);
  return 0;
}
