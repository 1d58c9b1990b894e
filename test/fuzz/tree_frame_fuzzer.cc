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

void FuzzPayload(const Frame& f) {
  const std::string& p = f.payload;
  Hello h;
  if (DecodeHello(p, &h).ok()) {
    FUZZ_CHECK(h.protocol == kProtocolVersion && h.guid != 0);
    FUZZ_CHECK(h.kind == DbKind::kSmdb || h.kind == DbKind::kPrdb || h.kind == DbKind::kAddr ||
               h.kind == DbKind::kRouteSl);
    (void)DbKindName(h.kind);
    (void)RolesName(h.roles);
    std::string e = EncodeHello(h);
    CheckReencoded(f, FrameType::kHello, e);
    Hello back;
    FUZZ_CHECK(DecodeHello(ReadOne(e, FrameType::kHello), &back).ok());
    FUZZ_CHECK(back.protocol == h.protocol && back.roles == h.roles && back.kind == h.kind &&
               back.guid == h.guid && back.token == h.token && back.epoch == h.epoch &&
               back.digest == h.digest && back.nonce == h.nonce);
    FUZZ_CHECK(HelloPayload(back) == p);
  }
  Welcome w;
  if (DecodeWelcome(p, &w).ok()) {
    std::string e = EncodeWelcome(w);
    CheckReencoded(f, FrameType::kWelcome, e);
    Welcome back;
    FUZZ_CHECK(DecodeWelcome(ReadOne(e, FrameType::kWelcome), &back).ok());
    FUZZ_CHECK(back.parent_guid == w.parent_guid && back.epoch == w.epoch &&
               back.nonce == w.nonce && back.tag == w.tag);
    FUZZ_CHECK(WelcomePayload(back) == p);
  }
  AuthTag tag;
  if (DecodeProof(p, &tag).ok()) {
    std::string e = EncodeProof(tag);
    CheckReencoded(f, FrameType::kProof, e);
    AuthTag back;
    FUZZ_CHECK(DecodeProof(ReadOne(e, FrameType::kProof), &back).ok() && back == tag);
  }
  Refuse r;
  if (DecodeRefuse(p, &r).ok()) {
    (void)RefuseReasonName(r.reason);
    std::string e = EncodeRefuse(r);
    CheckReencoded(f, FrameType::kRefuse, e);
    Refuse back;
    FUZZ_CHECK(DecodeRefuse(ReadOne(e, FrameType::kRefuse), &back).ok());
    FUZZ_CHECK(back.reason == r.reason && back.text == r.text);
  }
  XferBegin b;
  if (DecodeXferBegin(p, &b).ok()) {
    FUZZ_CHECK(b.kind == 1 || b.kind == 2);
    FUZZ_CHECK((b.kind == 1) == (b.from == 0) && b.to != 0 && (b.kind == 1 || b.to > b.from));
    FUZZ_CHECK(b.total <= (uint64_t{4} << 30));
    std::string e = EncodeXferBegin(b);
    CheckReencoded(f, FrameType::kXferBegin, e);
    XferBegin back;
    FUZZ_CHECK(DecodeXferBegin(ReadOne(e, FrameType::kXferBegin), &back).ok());
    FUZZ_CHECK(back.kind == b.kind && back.from == b.from && back.to == b.to &&
               back.total == b.total && back.digest == b.digest);
  }
  Ack a;
  if (DecodeAck(p, &a).ok()) {
    std::string e = EncodeAck(a);
    CheckReencoded(f, FrameType::kAck, e);
    Ack back;
    FUZZ_CHECK(DecodeAck(ReadOne(e, FrameType::kAck), &back).ok());
    FUZZ_CHECK(back.epoch == a.epoch && back.digest == a.digest);
  }
  uint8_t reason = 0;
  if (DecodeNeedFull(p, &reason).ok()) {
    std::string e = EncodeNeedFull(reason);
    CheckReencoded(f, FrameType::kNeedFull, e);
    uint8_t back = 0;
    FUZZ_CHECK(DecodeNeedFull(ReadOne(e, FrameType::kNeedFull), &back).ok());
    FUZZ_CHECK(back == reason);
  }
  std::string name;
  if (DecodeQuery(p, &name).ok()) {
    std::string e = EncodeQuery(name);
    CheckReencoded(f, FrameType::kQuery, e);
    std::string back;
    FUZZ_CHECK(DecodeQuery(ReadOne(e, FrameType::kQuery), &back).ok());
    FUZZ_CHECK(back == name);
  }
  // The rest carry raw bytes (XFER_DATA, QUERY_REPLY) or nothing (XFER_END,
  // KEEPALIVE, which their readers check): the frame itself round-trips.
  FUZZ_CHECK(ReadOne(EncodeFrame(f.type, p), f.type) == p);
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
