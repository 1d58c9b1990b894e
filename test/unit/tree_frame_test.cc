// tree_frame_test.cc: the SSA tree's data-channel codecs (common/tree/
// frame.cc): payloads round-trip, text limits hold both ways (the
// tree_frame fuzzer found REFUSE text and QUERY names the encoders would
// cut decoding whole), and the frame reader takes a stream in any pieces.
#include "common/tree/frame.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "common/smdb/smdb_format.h"
#include "test/support/check_ok.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace ssa::tree;

namespace {

// The payload of the one frame in `frame`.
std::string PayloadOf(const std::string& frame, FrameType type) {
  FrameReader r;
  CHECK_OK(r.Feed(reinterpret_cast<const uint8_t*>(frame.data()), frame.size()));
  Frame f;
  CHECK(r.Next(&f));
  CHECK(f.type == type);
  LONGS_EQUAL(0, r.buffered());
  return f.payload;
}

// A text payload as a peer may write it: `prefix`, u8 n, n bytes.
std::string TextPayload(const std::string& prefix, size_t n) {
  return prefix + std::string(1, static_cast<char>(n)) + std::string(n, 'x');
}

}  // namespace

TEST_GROUP(TreeFrame){};

TEST(TreeFrame, PayloadsRoundTrip) {
  Hello h;
  h.roles = kRoleAccess;
  h.kind = DbKind::kPrdb;
  h.guid = 0x0002c90300001234ULL;
  h.token[0] = 7;
  h.epoch = 42;
  h.digest = 0xdeadbeef;
  Hello h2;
  CHECK_OK(DecodeHello(PayloadOf(EncodeHello(h), FrameType::kHello), &h2));
  CHECK(h2.kind == DbKind::kPrdb && h2.guid == h.guid && h2.token == h.token &&
        h2.digest == h.digest);

  XferBegin b;
  b.kind = 2;
  b.from = 3;
  b.to = 5;
  b.total = 1000;
  XferBegin b2;
  CHECK_OK(DecodeXferBegin(PayloadOf(EncodeXferBegin(b), FrameType::kXferBegin), &b2));
  CHECK(b2.kind == 2 && b2.from == 3 && b2.to == 5 && b2.total == 1000);
}

TEST(TreeFrame, RefuseTextLimit) {
  Refuse r;
  r.reason = kRefuseBadHello;
  r.text = std::string(kMaxRefuseText, 'a');
  Refuse back;
  CHECK_OK(DecodeRefuse(PayloadOf(EncodeRefuse(r), FrameType::kRefuse), &back));
  CHECK(back.text == r.text);
  // Longer text is cut by the encoder...
  r.text += "bc";
  CHECK_OK(DecodeRefuse(PayloadOf(EncodeRefuse(r), FrameType::kRefuse), &back));
  LONGS_EQUAL(kMaxRefuseText, back.text.size());
  // ...and rejected by the decoder, so what decodes re-encodes to itself.
  ssa::Status st = DecodeRefuse(TextPayload(std::string("\0\1", 2), kMaxRefuseText + 1), &back);
  LONGS_EQUAL(-EBADMSG, st.code());
  STRCMP_CONTAINS("REFUSE: text of 201 bytes", st.message().c_str());
  CHECK(DecodeRefuse(TextPayload(std::string("\0\1", 2), 255), &back).code() == -EBADMSG);
  CHECK_OK(DecodeRefuse(TextPayload(std::string("\0\1", 2), kMaxRefuseText), &back));
}

TEST(TreeFrame, QueryNameLimit) {
  std::string name;
  CHECK_OK(DecodeQuery(PayloadOf(EncodeQuery("tree"), FrameType::kQuery), &name));
  STRCMP_EQUAL("tree", name.c_str());
  CHECK_OK(DecodeQuery(PayloadOf(EncodeQuery(std::string(100, 'q')), FrameType::kQuery), &name));
  LONGS_EQUAL(kMaxQueryName, name.size());
  CHECK_OK(DecodeQuery(TextPayload("", kMaxQueryName), &name));
  ssa::Status st = DecodeQuery(TextPayload("", kMaxQueryName + 11), &name);
  LONGS_EQUAL(-EBADMSG, st.code());
  STRCMP_CONTAINS("QUERY: name of 75 bytes", st.message().c_str());
  // Still framed: too short, too long.
  CHECK(DecodeQuery(std::string("\5ab"), &name).code() == -EBADMSG);
  CHECK(DecodeQuery(TextPayload("", 3) + "z", &name).code() == -EBADMSG);
}

TEST(TreeFrame, ReaderTakesAnyPieces) {
  Welcome w;
  w.parent_guid = 9;
  w.epoch = 4;
  std::string stream =
      EncodeWelcome(w) + EncodeFrame(FrameType::kKeepalive, "") + EncodeQuery("tree");
  FrameReader r;
  std::string types;
  for (char c : stream) {
    CHECK_OK(r.Feed(reinterpret_cast<const uint8_t*>(&c), 1));
    Frame f;
    while (r.Next(&f)) types += std::to_string(static_cast<int>(f.type)) + " ";
  }
  STRCMP_EQUAL("2 9 10 ", types.c_str());
  LONGS_EQUAL(0, r.buffered());
  // A bad CRC stops the reader for good.
  std::string bad = EncodeWelcome(w);
  bad.back() ^= 1;
  CHECK_OK(r.Feed(reinterpret_cast<const uint8_t*>(bad.data()), bad.size()));
  Frame f;
  CHECK_FALSE(r.Next(&f));
  STRCMP_CONTAINS("CRC mismatch", r.error().message().c_str());
  CHECK_FALSE(r.Feed(reinterpret_cast<const uint8_t*>(bad.data()), bad.size()).ok());
}

// Large frames (past the room the reader keeps) take the reader's own
// buffer when they fill it alone and are copied out otherwise: either way
// every payload arrives whole and in order, whatever the read sizes, and
// a frame that shares its read with the next one's start leaves that start
// buffered.
TEST(TreeFrame, LargeFramesArriveWholeHoweverTheStreamIsCut) {
  std::string big1(600 * 1024, '\0'), big2(300 * 1024, '\0');
  for (size_t i = 0; i < big1.size(); ++i) big1[i] = static_cast<char>(i * 31 + 7);
  for (size_t i = 0; i < big2.size(); ++i) big2[i] = static_cast<char>(i * 17 + 3);
  const std::string payloads[] = {big1, "small", big2, big2, "", big1};
  std::string stream;
  for (const std::string& p : payloads) stream += EncodeFrame(FrameType::kXferData, p);
  for (size_t cut : {size_t{65536}, size_t{1000}, size_t{614400 + 16}, stream.size()}) {
    FrameReader r;
    Frame f;  // reused, as the data client reuses it
    size_t next = 0;
    for (size_t off = 0; off < stream.size(); off += cut) {
      size_t n = std::min(cut, stream.size() - off);
      CHECK_OK(r.Feed(reinterpret_cast<const uint8_t*>(stream.data()) + off, n));
      while (r.Next(&f)) {
        CHECK(next < 6);
        CHECK(f.type == FrameType::kXferData);
        CHECK_TEXT(f.payload == payloads[next],
                   ("frame " + std::to_string(next) + ", reads of " + std::to_string(cut)).c_str());
        ++next;
      }
    }
    LONGS_EQUAL(6, next);
    LONGS_EQUAL(0, r.buffered());
  }
}

// The data client's way: a large payload is read straight into its frame
// (Direct, Commit), everything else fed. Read sizes from a socket that
// returns at most `cut` bytes: the frames, their CRCs and what stays
// buffered are those of feeding alone. A damaged large payload stops the
// reader as it would fed.
TEST(TreeFrame, LargePayloadsReadStraightIntoTheirFrame) {
  std::string big1(600 * 1024, '\0'), big2(300 * 1024, '\0');
  for (size_t i = 0; i < big1.size(); ++i) big1[i] = static_cast<char>(i * 31 + 7);
  for (size_t i = 0; i < big2.size(); ++i) big2[i] = static_cast<char>(i * 17 + 3);
  const std::string payloads[] = {"a", big1, "small", big2, big2, "", big1, "z"};
  std::string stream;
  for (const std::string& p : payloads) stream += EncodeFrame(FrameType::kXferData, p);
  for (size_t cut : {size_t{65536}, size_t{1000}, size_t{100000}, size_t{7}}) {
    FrameReader r;
    Frame f;
    size_t next = 0, off = 0, direct_bytes = 0;
    uint8_t buf[65536];
    while (off < stream.size()) {
      size_t room = 0;
      uint8_t* d = r.Direct(&room);
      size_t n = std::min({cut, stream.size() - off, d ? room : sizeof(buf)});
      memcpy(d ? d : buf, stream.data() + off, n);
      off += n;
      if (d) {
        r.Commit(n);
        direct_bytes += n;
      } else {
        CHECK_OK(r.Feed(buf, n));
      }
      while (r.Next(&f)) {
        CHECK(next < 8);
        CHECK_TEXT(f.payload == payloads[next],
                   ("frame " + std::to_string(next) + ", reads of " + std::to_string(cut)).c_str());
        CHECK_EQUAL(
            ssa::smdb::Crc32(reinterpret_cast<const uint8_t*>(f.payload.data()), f.payload.size()),
            f.crc);
        ++next;
      }
    }
    LONGS_EQUAL(8, next);
    LONGS_EQUAL(0, r.buffered());
    CHECK(direct_bytes > 2 * big1.size());  // most of the large payloads
    CHECK(r.Direct(&off) == nullptr);
  }
  std::string bad = EncodeFrame(FrameType::kXferData, big1);
  bad[bad.size() / 2] ^= 1;
  FrameReader r;
  CHECK_OK(r.Feed(reinterpret_cast<const uint8_t*>(bad.data()), 65536));
  size_t room = 0;
  uint8_t* d = r.Direct(&room);
  CHECK(d != nullptr);
  LONGS_EQUAL(bad.size() - 65536, room);
  memcpy(d, bad.data() + 65536, room);
  r.Commit(room);
  Frame f;
  CHECK_FALSE(r.Next(&f));
  STRCMP_CONTAINS("CRC mismatch", r.error().message().c_str());
  CHECK(r.Direct(&room) == nullptr);
  CHECK_FALSE(r.Feed(reinterpret_cast<const uint8_t*>(bad.data()), 1).ok());
}
