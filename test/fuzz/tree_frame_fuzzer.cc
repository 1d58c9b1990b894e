// tree_frame_fuzzer.cc: libFuzzer target for the SSA tree's data channel
// (common/tree/frame.cc): the FrameReader that splits what a peer sends
// into frames, and the payload decoders (HELLO, WELCOME, REFUSE,
// XFER_BEGIN, ACK, NEED_FULL, QUERY). A parent reads children and tools, a
// child reads its parent: either may be anything that can reach the port.
// Built with clang by test/fuzz/local.mk and run by
// test/fuzz/run-fuzzers.sh. Seeds: test/fuzz/corpus/tree_frame/, written by
// gen_tree_frame_seeds.py.
//
// The input is one byte stream:
//   1. fed to a FrameReader whole, one byte at a time, and in chunks of
//      pseudo-random sizes (seeded by the input), as the daemons do (Feed,
//      then Next until it has no frame): every way must yield the same
//      frames and stop with the same error (or none, then with as many
//      bytes buffered); the frames, encoded again, are the stream's first bytes;
//   2. each frame's payload goes to the decoder of its type and, to reach
//      every decoder with every input, to all the others too. What decodes
//      must hold the documented limits; re-encoded it is a frame that reads
//      back to the same value, and the very frame it came from when its
//      type is the decoder's.
// ASan/UBSan catch memory and arithmetic errors; FUZZ_CHECK catches broken
// invariants.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/tree/frame.h"
#include "test/fuzz/fuzz_check.h"

using namespace ssa::tree;

namespace {

struct Reading {
  std::vector<Frame> frames;
  ssa::Status error;
  size_t buffered = 0;
};

// Feeds `data` in pieces whose sizes `next_size` picks, taking frames as
// the daemons do; with `direct`, a large payload's bytes as the data
// client reads them (FrameReader::Direct).
template <class NextSize>
Reading Read(const uint8_t* data, size_t size, NextSize next_size, bool direct = false) {
  Reading r;
  FrameReader reader;
  size_t off = 0;
  while (off < size) {
    size_t n = std::min(size - off, next_size());
    size_t room = 0;
    uint8_t* d = direct ? reader.Direct(&room) : nullptr;
    ssa::Status st;
    if (d) {
      n = std::min(n, room);
      memcpy(d, data + off, n);
      reader.Commit(n);
    } else {
      st = reader.Feed(data + off, n);
    }
    off += n;
    Frame f;
    while (st.ok() && reader.Next(&f)) r.frames.push_back(f);
    if (!st.ok())
      FUZZ_CHECK(st.code() == reader.error().code() && st.message() == reader.error().message());
    if (!reader.error().ok()) break;
  }
  r.error = reader.error();
  r.buffered = reader.buffered();
  // A stopped reader stays stopped.
  if (!r.error.ok()) {
    Frame f;
    FUZZ_CHECK(!reader.Next(&f));
    FUZZ_CHECK(!reader.Feed(data, 0).ok());
  }
  return r;
}

bool SameFrames(const Reading& a, const Reading& b) {
  if (a.frames.size() != b.frames.size()) return false;
  for (size_t i = 0; i < a.frames.size(); ++i)
    if (a.frames[i].type != b.frames[i].type || a.frames[i].payload != b.frames[i].payload)
      return false;
  return true;
}

// `frame` (one whole frame) reads back as exactly one frame of `type`.
std::string ReadOne(const std::string& frame, FrameType type) {
  FrameReader reader;
  FUZZ_CHECK(reader.Feed(reinterpret_cast<const uint8_t*>(frame.data()), frame.size()).ok());
  Frame f;
  FUZZ_CHECK(reader.Next(&f));
  FUZZ_CHECK(f.type == type && reader.buffered() == 0 && reader.error().ok());
  FUZZ_CHECK(!reader.Next(&f));
  return f.payload;
}

// Re-encoding: `encoded` is the frame the encoder made of what decoded from
// `f`'s payload, as a frame of `type`.
void CheckReencoded(const Frame& f, FrameType type, const std::string& encoded) {
  if (f.type == type) FUZZ_CHECK(encoded == EncodeFrame(f.type, f.payload));
}

// The documented limits of what decodes (none for the other payloads).
template <class T>
void CheckLimits(const T&) {}
void CheckLimits(const Hello& h) {
  FUZZ_CHECK(h.protocol == kProtocolVersion && h.guid != 0);
  FUZZ_CHECK(h.kind == DbKind::kSmdb || h.kind == DbKind::kPrdb || h.kind == DbKind::kAddr ||
             h.kind == DbKind::kRouteSl);
  (void)DbKindName(h.kind);
  (void)RolesName(h.roles);
}
void CheckLimits(const Refuse& r) { (void)RefuseReasonName(r.reason); }
void CheckLimits(const XferBegin& b) {
  FUZZ_CHECK(b.kind == 1 || b.kind == 2);
  FUZZ_CHECK((b.kind == 1) == (b.from == 0) && b.to != 0 && (b.kind == 1 || b.to > b.from));
  FUZZ_CHECK(b.total <= (uint64_t{4} << 30));
}

// Whether a payload decoded back is the value encoded.
template <class T>
bool Same(const T& a, const T& b) {
  return a == b;
}
bool Same(const Hello& a, const Hello& b) {
  return a.protocol == b.protocol && a.roles == b.roles && a.kind == b.kind && a.guid == b.guid &&
         a.token == b.token && a.epoch == b.epoch && a.digest == b.digest && a.nonce == b.nonce;
}
bool Same(const Welcome& a, const Welcome& b) {
  return a.parent_guid == b.parent_guid && a.epoch == b.epoch && a.nonce == b.nonce &&
         a.tag == b.tag;
}
bool Same(const Refuse& a, const Refuse& b) { return a.reason == b.reason && a.text == b.text; }
bool Same(const XferBegin& a, const XferBegin& b) {
  return a.kind == b.kind && a.from == b.from && a.to == b.to && a.total == b.total &&
         a.digest == b.digest;
}
bool Same(const Ack& a, const Ack& b) { return a.epoch == b.epoch && a.digest == b.digest; }

// Hello and Welcome: what decoded back gives the very payload bytes that
// came (HelloPayload, WelcomePayload); nothing more for the others.
template <class T>
void CheckPayloadBytes(const T&, const std::string&) {}
void CheckPayloadBytes(const Hello& h, const std::string& p) { FUZZ_CHECK(HelloPayload(h) == p); }
void CheckPayloadBytes(const Welcome& w, const std::string& p) {
  FUZZ_CHECK(WelcomePayload(w) == p);
}

// One payload decoder on `f`'s payload: what decodes holds its limits and,
// re-encoded, is `f` again when f is a frame of `type` and reads back as
// one frame of `type` that decodes to the same value.
template <class T, class Encode>
void FuzzOne(const Frame& f, FrameType type, ssa::Status (*decode)(const std::string&, T*),
             Encode encode) {
  T v{};
  if (!decode(f.payload, &v).ok()) return;
  CheckLimits(v);
  std::string e = encode(v);
  CheckReencoded(f, type, e);
  T back{};
  FUZZ_CHECK(decode(ReadOne(e, type), &back).ok());
  FUZZ_CHECK(Same(back, v));
  CheckPayloadBytes(back, f.payload);
}

void FuzzPayload(const Frame& f) {
  FuzzOne(f, FrameType::kHello, DecodeHello, EncodeHello);
  FuzzOne(f, FrameType::kWelcome, DecodeWelcome, EncodeWelcome);
  FuzzOne(f, FrameType::kProof, DecodeProof, EncodeProof);
  FuzzOne(f, FrameType::kRefuse, DecodeRefuse, EncodeRefuse);
  FuzzOne(f, FrameType::kXferBegin, DecodeXferBegin, EncodeXferBegin);
  FuzzOne(f, FrameType::kAck, DecodeAck, EncodeAck);
  FuzzOne(f, FrameType::kNeedFull, DecodeNeedFull, EncodeNeedFull);
  FuzzOne(f, FrameType::kQuery, DecodeQuery, EncodeQuery);
  // The rest carry raw bytes (XFER_DATA, QUERY_REPLY) or nothing (XFER_END,
  // KEEPALIVE, which their readers check): the frame itself round-trips.
  FUZZ_CHECK(ReadOne(EncodeFrame(f.type, f.payload), f.type) == f.payload);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reading whole = Read(data, size, [size] { return size; });
  Reading bytes = Read(data, size, [] { return size_t{1}; });
  uint32_t x = static_cast<uint32_t>(size) * 2654435761u + 1;
  for (size_t i = 0; i < size && i < 64; ++i) x = (x ^ data[i]) * 16777619u;
  Reading chunks = Read(data, size, [&x] {
    x = x * 1103515245u + 12345u;
    // Mostly short pieces (across header and payload edges), some long.
    return (x >> 28) == 0 ? size_t{1} + (x >> 8) % 4096 : size_t{1} + (x >> 16) % 40;
  });
  x = static_cast<uint32_t>(size) + 7;
  Reading direct = Read(
      data, size,
      [&x] {
        x = x * 1103515245u + 12345u;
        return size_t{1} + (x >> 12) % 70000;
      },
      true);
  for (const Reading* r : {&bytes, &chunks, &direct}) {
    FUZZ_CHECK(SameFrames(whole, *r));
    FUZZ_CHECK(whole.error.code() == r->error.code() &&
               whole.error.message() == r->error.message());
    // A stopped reader is fed no more, so only a clean one has it all.
    if (whole.error.ok()) FUZZ_CHECK(whole.buffered == r->buffered);
  }
  if (!whole.error.ok()) FUZZ_CHECK(!whole.error.message().empty());

  // The frames are the stream's first bytes, as the encoder writes them.
  std::string again;
  for (const Frame& f : whole.frames) {
    FUZZ_CHECK(f.payload.size() <= kMaxFramePayload);
    FUZZ_CHECK(static_cast<uint8_t>(f.type) >= 1 && static_cast<uint8_t>(f.type) <= 12);
    FUZZ_CHECK(std::string(FrameTypeName(f.type)) != "?");
    again += EncodeFrame(f.type, f.payload);
  }
  FUZZ_CHECK(again.size() <= size &&
             again.compare(0, again.size(), reinterpret_cast<const char*>(data), again.size()) ==
                 0);
  if (whole.error.ok()) FUZZ_CHECK(whole.buffered == size - again.size());

  for (const Frame& f : whole.frames) FuzzPayload(f);
  // The whole input as one payload, for the decoders' sake (a stream that
  // frames rarely also decodes).
  Frame raw;
  raw.type = FrameType::kQueryReply;
  raw.payload.assign(reinterpret_cast<const char*>(data), std::min(size, size_t{kMaxFramePayload}));
  FuzzPayload(raw);
  return 0;
}
