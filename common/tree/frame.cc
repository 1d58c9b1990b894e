// frame.cc: see frame.h.
#include "common/tree/frame.h"

#include <algorithm>
#include <cstring>

#include "common/base/big_endian.h"
#include "common/smdb/smdb_format.h"

namespace ssa {
namespace tree {
namespace {

void Put8(std::string* s, uint8_t v) { s->push_back(static_cast<char>(v)); }
void Put16(std::string* s, uint16_t v) {
  uint8_t b[2];
  PutBe16(b, v);
  s->append(reinterpret_cast<char*>(b), 2);
}
void Put32(std::string* s, uint32_t v) {
  uint8_t b[4];
  PutBe32(b, v);
  s->append(reinterpret_cast<char*>(b), 4);
}
void Put64(std::string* s, uint64_t v) {
  uint8_t b[8];
  PutBe64(b, v);
  s->append(reinterpret_cast<char*>(b), 8);
}

// A bounds-checked reader over one payload.
class In {
 public:
  In(const std::string& p, const char* what)
      : p_(reinterpret_cast<const uint8_t*>(p.data())), n_(p.size()), what_(what) {}
  bool Need(size_t k) {
    if (i_ + k <= n_) return true;
    ok_ = false;
    return false;
  }
  uint8_t U8() { return Need(1) ? p_[i_++] : 0; }
  uint16_t U16() {
    if (!Need(2)) return 0;
    i_ += 2;
    return GetBe16(p_ + i_ - 2);
  }
  uint32_t U32() {
    if (!Need(4)) return 0;
    i_ += 4;
    return GetBe32(p_ + i_ - 4);
  }
  uint64_t U64() {
    if (!Need(8)) return 0;
    i_ += 8;
    return GetBe64(p_ + i_ - 8);
  }
  void Bytes(uint8_t* out, size_t k) {
    if (Need(k)) memcpy(out, p_ + i_, k);
    i_ += ok_ ? k : 0;
  }
  std::string Text() {
    uint8_t k = U8();
    if (!Need(k)) return "";
    std::string s(reinterpret_cast<const char*>(p_ + i_), k);
    i_ += k;
    return s;
  }
  Status End() {
    if (!ok_) return Status::Error(EBADMSG, std::string(what_) + ": payload too short");
    if (i_ != n_)
      return Status::Error(EBADMSG,
                           std::string(what_) + ": " + std::to_string(n_ - i_) + " extra bytes");
    return Status::Ok();
  }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t i_ = 0;
  bool ok_ = true;
  const char* what_;
};

}  // namespace

const char* FrameTypeName(FrameType t) {
  switch (t) {
    case FrameType::kHello: return "HELLO";
    case FrameType::kWelcome: return "WELCOME";
    case FrameType::kRefuse: return "REFUSE";
    case FrameType::kXferBegin: return "XFER_BEGIN";
    case FrameType::kXferData: return "XFER_DATA";
    case FrameType::kXferEnd: return "XFER_END";
    case FrameType::kAck: return "ACK";
    case FrameType::kNeedFull: return "NEED_FULL";
    case FrameType::kKeepalive: return "KEEPALIVE";
    case FrameType::kQuery: return "QUERY";
    case FrameType::kQueryReply: return "QUERY_REPLY";
    case FrameType::kProof: return "PROOF";
  }
  return "?";
}

const char* DbKindName(DbKind k) {
  switch (k) {
    case DbKind::kSmdb: return "SMDB";
    case DbKind::kPrdb: return "PRDB";
    case DbKind::kAddr: return "address DB";
    case DbKind::kRouteSl: return "route-SL slice";
  }
  return "?";
}

const char* RefuseReasonName(uint16_t r) {
  switch (r) {
    case kRefuseBadHello: return "bad hello";
    case kRefuseBadToken: return "token not valid for this parent";
    case kRefuseNotYourParent: return "not your parent";
    case kRefuseTooMany: return "too many children";
    case kRefuseUnavailable: return "nothing of that kind to serve";
    case kRefuseCoreUnreachable: return "core unreachable to check the token";
    case kRefuseBadProof: return "the child did not prove its link key";
  }
  return "unknown reason";
}

// The header check (frame.h): the CRC32 of the header without its own two bytes, low half.
static uint16_t HeaderCheck(const uint8_t* h) {
  uint32_t crc = smdb::Crc32(h, 6);
  crc = smdb::Crc32(h + 8, kFrameHeaderSize - 8, crc);
  return static_cast<uint16_t>(crc & 0xffff);
}

std::string EncodeFrameHeader(FrameType type, uint32_t length, uint32_t crc) {
  std::string f;
  f.reserve(kFrameHeaderSize);
  Put32(&f, kFrameMagic);
  Put8(&f, kFrameVersion);
  Put8(&f, static_cast<uint8_t>(type));
  Put16(&f, 0);  // hcheck, below
  Put32(&f, length);
  Put32(&f, crc);
  uint16_t check = HeaderCheck(reinterpret_cast<const uint8_t*>(f.data()));
  f[6] = static_cast<char>(check >> 8);
  f[7] = static_cast<char>(check & 0xff);
  return f;
}

std::string EncodeFrame(FrameType type, const std::string& payload) {
  std::string f = EncodeFrameHeader(
      type, static_cast<uint32_t>(payload.size()),
      smdb::Crc32(reinterpret_cast<const uint8_t*>(payload.data()), payload.size()));
  f += payload;
  return f;
}

std::string EncodeHello(const Hello& h) { return EncodeFrame(FrameType::kHello, HelloPayload(h)); }

std::string HelloPayload(const Hello& h) {
  std::string p;
  Put16(&p, h.protocol);
  Put8(&p, h.roles);
  Put8(&p, static_cast<uint8_t>(h.kind));
  Put64(&p, h.guid);
  p.append(reinterpret_cast<const char*>(h.token.data()), h.token.size());
  Put64(&p, h.epoch);
  Put32(&p, h.digest);
  p.append(reinterpret_cast<const char*>(h.nonce.data()), h.nonce.size());
  return p;
}

Status DecodeHello(const std::string& p, Hello* h) {
  In in(p, "HELLO");
  h->protocol = in.U16();
  h->roles = in.U8();
  uint8_t kind = in.U8();
  h->guid = in.U64();
  in.Bytes(h->token.data(), h->token.size());
  h->epoch = in.U64();
  h->digest = in.U32();
  in.Bytes(h->nonce.data(), h->nonce.size());
  Status st = in.End();
  if (!st.ok()) return st;
  if (kind < 1 || kind > 4) return Status::Error(EBADMSG, "HELLO: kind " + std::to_string(kind));
  h->kind = static_cast<DbKind>(kind);
  if (h->protocol != kProtocolVersion)
    return Status::Error(EPROTONOSUPPORT, "HELLO: protocol " + std::to_string(h->protocol));
  if (h->guid == 0) return Status::Error(EBADMSG, "HELLO: GUID 0");
  return Status::Ok();
}

std::string WelcomeFields(const Welcome& w) {
  std::string p;
  Put64(&p, w.parent_guid);
  Put64(&p, w.epoch);
  p.append(reinterpret_cast<const char*>(w.nonce.data()), w.nonce.size());
  return p;
}

std::string WelcomePayload(const Welcome& w) {
  std::string p = WelcomeFields(w);
  p.append(reinterpret_cast<const char*>(w.tag.data()), w.tag.size());
  return p;
}

std::string EncodeWelcome(const Welcome& w) {
  return EncodeFrame(FrameType::kWelcome, WelcomePayload(w));
}

Status DecodeWelcome(const std::string& p, Welcome* w) {
  In in(p, "WELCOME");
  w->parent_guid = in.U64();
  w->epoch = in.U64();
  in.Bytes(w->nonce.data(), w->nonce.size());
  in.Bytes(w->tag.data(), w->tag.size());
  return in.End();
}

std::string EncodeProof(const AuthTag& tag) {
  return EncodeFrame(FrameType::kProof,
                     std::string(reinterpret_cast<const char*>(tag.data()), tag.size()));
}

Status DecodeProof(const std::string& p, AuthTag* tag) {
  In in(p, "PROOF");
  in.Bytes(tag->data(), tag->size());
  return in.End();
}

std::string EncodeRefuse(const Refuse& r) {
  std::string p;
  Put16(&p, r.reason);
  std::string t = r.text.substr(0, kMaxRefuseText);
  Put8(&p, static_cast<uint8_t>(t.size()));
  p += t;
  return EncodeFrame(FrameType::kRefuse, p);
}

Status DecodeRefuse(const std::string& p, Refuse* r) {
  In in(p, "REFUSE");
  r->reason = in.U16();
  r->text = in.Text();
  Status st = in.End();
  if (!st.ok()) return st;
  if (r->text.size() > kMaxRefuseText)
    return Status::Error(EBADMSG, "REFUSE: text of " + std::to_string(r->text.size()) +
                                      " bytes (limit " + std::to_string(kMaxRefuseText) + ")");
  return Status::Ok();
}

std::string EncodeXferBegin(const XferBegin& b) {
  std::string p;
  Put8(&p, b.kind);
  Put64(&p, b.from);
  Put64(&p, b.to);
  Put64(&p, b.total);
  Put32(&p, b.digest);
  return EncodeFrame(FrameType::kXferBegin, p);
}

Status DecodeXferBegin(const std::string& p, XferBegin* b) {
  In in(p, "XFER_BEGIN");
  b->kind = in.U8();
  b->from = in.U64();
  b->to = in.U64();
  b->total = in.U64();
  b->digest = in.U32();
  Status st = in.End();
  if (!st.ok()) return st;
  if (b->kind != 1 && b->kind != 2)
    return Status::Error(EBADMSG, "XFER_BEGIN: kind " + std::to_string(b->kind));
  if ((b->kind == 1) != (b->from == 0))
    return Status::Error(EBADMSG, "XFER_BEGIN: from epoch and kind disagree");
  if (b->to == 0 || (b->kind == 2 && b->to <= b->from))
    return Status::Error(EBADMSG, "XFER_BEGIN: epochs");
  if (b->total > (uint64_t{4} << 30)) return Status::Error(EBADMSG, "XFER_BEGIN: more than 4 GiB");
  return Status::Ok();
}

std::string EncodeAck(const Ack& a) {
  std::string p;
  Put64(&p, a.epoch);
  Put32(&p, a.digest);
  return EncodeFrame(FrameType::kAck, p);
}

Status DecodeAck(const std::string& p, Ack* a) {
  In in(p, "ACK");
  a->epoch = in.U64();
  a->digest = in.U32();
  return in.End();
}

std::string EncodeNeedFull(uint8_t reason) {
  std::string p;
  Put8(&p, reason);
  return EncodeFrame(FrameType::kNeedFull, p);
}

Status DecodeNeedFull(const std::string& p, uint8_t* reason) {
  In in(p, "NEED_FULL");
  *reason = in.U8();
  return in.End();
}

std::string EncodeQuery(const std::string& name) {
  std::string p;
  std::string n = name.substr(0, kMaxQueryName);
  Put8(&p, static_cast<uint8_t>(n.size()));
  p += n;
  return EncodeFrame(FrameType::kQuery, p);
}

Status DecodeQuery(const std::string& p, std::string* name) {
  In in(p, "QUERY");
  *name = in.Text();
  Status st = in.End();
  if (!st.ok()) return st;
  if (name->size() > kMaxQueryName)
    return Status::Error(EBADMSG, "QUERY: name of " + std::to_string(name->size()) +
                                      " bytes (limit " + std::to_string(kMaxQueryName) + ")");
  return Status::Ok();
}

Status FrameReader::CheckHeader(const uint8_t* h) {
  if (GetBe32(h) != kFrameMagic) return Status::Error(EBADMSG, "not an SSA data frame (bad magic)");
  if (h[4] != kFrameVersion)
    return Status::Error(EPROTONOSUPPORT, "frame version " + std::to_string(h[4]));
  if (h[5] < 1 || h[5] > 12) return Status::Error(EBADMSG, "frame type " + std::to_string(h[5]));
  if (GetBe16(h + 6) != HeaderCheck(h))
    return Status::Error(EBADMSG, "frame header check mismatch");
  if (GetBe32(h + 8) > kMaxFramePayload)
    return Status::Error(
        EBADMSG, "frame payload of " + std::to_string(GetBe32(h + 8)) + " bytes (limit 4 MiB)");
  return Status::Ok();
}

namespace {
Status CrcMismatch(uint8_t type) {
  return Status::Error(
      EBADMSG, std::string(FrameTypeName(static_cast<FrameType>(type))) + " frame CRC mismatch");
}
}  // namespace

Status FrameReader::Feed(const uint8_t* data, size_t len) {
  if (!error_.ok()) return error_;
  if (in_big_) {
    size_t take = std::min(len, big_.size() - big_have_);
    if (take) memcpy(&big_[big_have_], data, take);
    big_have_ += take;
    data += take;
    len -= take;
    if (len == 0) return error_;
  }
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  buf_.append(reinterpret_cast<const char*>(data), len);
  // Check the next header as soon as it is complete, before its payload
  // is buffered.
  if (buf_.size() - pos_ >= kFrameHeaderSize) {
    const uint8_t* h = reinterpret_cast<const uint8_t*>(buf_.data()) + pos_;
    error_ = CheckHeader(h);
    const size_t payload = GetBe32(h + 8);
    if (error_.ok() && !in_big_ && payload > kKeptCapacity &&
        buf_.size() - pos_ < kFrameHeaderSize + payload) {
      StartBig();
      return error_;
    }
    // Room for the whole frame at once: a large payload arriving in 64 KB
    // reads would otherwise be copied again each time the buffer doubles.
    size_t frame_end = pos_ + kFrameHeaderSize + payload;
    if (error_.ok() && buf_.capacity() < frame_end) buf_.reserve(frame_end);
  }
  return error_;
}

void FrameReader::StartBig() {
  const uint8_t* h = reinterpret_cast<const uint8_t*>(buf_.data()) + pos_;
  memcpy(big_header_, h, kFrameHeaderSize);
  // Only the payload's start is buffered (the caller checked): all of
  // buf_ from here on.
  const size_t have = buf_.size() - pos_ - kFrameHeaderSize;
  big_.clear();
  big_.resize(GetBe32(h + 8));
  memcpy(&big_[0], h + kFrameHeaderSize, have);
  big_have_ = have;
  in_big_ = true;
  if (buf_.capacity() > kKeptCapacity)
    std::string().swap(buf_);
  else
    buf_.clear();
  pos_ = 0;
}

uint8_t* FrameReader::Direct(size_t* room) {
  if (!error_.ok() || !in_big_ || big_have_ == big_.size()) return nullptr;
  *room = big_.size() - big_have_;
  return reinterpret_cast<uint8_t*>(&big_[big_have_]);
}

bool FrameReader::Next(Frame* out) {
  if (!error_.ok()) return false;
  if (in_big_) {
    if (big_have_ < big_.size()) return false;
    const uint32_t crc = smdb::Crc32(reinterpret_cast<const uint8_t*>(big_.data()), big_.size());
    if (crc != GetBe32(big_header_ + 12)) {
      error_ = CrcMismatch(big_header_[5]);
      return false;
    }
    out->type = static_cast<FrameType>(big_header_[5]);
    out->crc = crc;
    out->payload.swap(big_);
    std::string().swap(big_);
    in_big_ = false;
    big_have_ = 0;
    if (buf_.size() - pos_ >= kFrameHeaderSize)
      error_ = CheckHeader(reinterpret_cast<const uint8_t*>(buf_.data()) + pos_);
    return true;
  }
  if (buf_.size() - pos_ < kFrameHeaderSize) return false;
  const uint8_t* h = reinterpret_cast<const uint8_t*>(buf_.data()) + pos_;
  error_ = CheckHeader(h);
  if (!error_.ok()) return false;
  uint32_t len = GetBe32(h + 8);
  if (buf_.size() - pos_ < kFrameHeaderSize + len) return false;
  uint32_t crc = smdb::Crc32(h + kFrameHeaderSize, len);
  if (crc != GetBe32(h + 12)) {
    error_ = CrcMismatch(h[5]);
    return false;
  }
  out->type = static_cast<FrameType>(h[5]);
  out->crc = crc;
  if (pos_ == 0 && buf_.size() == kFrameHeaderSize + len && len > kKeptCapacity) {
    // The buffer holds this large frame alone: it becomes the payload (the
    // header shifted out in place) instead of being copied to new memory.
    out->payload.swap(buf_);
    out->payload.erase(0, kFrameHeaderSize);
    std::string().swap(buf_);
    return true;
  }
  out->payload.assign(reinterpret_cast<const char*>(h + kFrameHeaderSize), len);
  pos_ += kFrameHeaderSize + len;
  // A large frame's room is not kept once it is read: a consumer holds its
  // data channel open for good, and thousands of them share a host in
  // tests (and an access node holds one per child).
  if (pos_ == buf_.size() && buf_.capacity() > kKeptCapacity) {
    std::string().swap(buf_);
    pos_ = 0;
    return true;
  }
  // Compact now and then so the buffer does not grow with the stream.
  if (pos_ > (1u << 20) && pos_ * 2 > buf_.size()) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  if (buf_.size() - pos_ >= kFrameHeaderSize)
    error_ = CheckHeader(reinterpret_cast<const uint8_t*>(buf_.data()) + pos_);
  return true;
}

}  // namespace tree
}  // namespace ssa
