// netlink_msg.cc: netlink message and attribute framing (see netlink_msg.h).
#include "core/netlink/netlink_msg.h"

#include <cstring>

namespace ssa {

namespace {
uint32_t Get32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint16_t Get16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
}  // namespace

bool NlMessageReader::Next(NlMessage* out) {
  if (!error_.empty() || left_ == 0) return false;
  if (left_ < kNlHeaderSize) {
    error_ = std::to_string(left_) + " bytes after the last message, too few for a header";
    return false;
  }
  uint32_t len = Get32(data_);
  if (len < kNlHeaderSize || len > left_) {
    error_ = "message length " + std::to_string(len) + " outside 16.." + std::to_string(left_);
    return false;
  }
  out->len = len;
  out->type = Get16(data_ + 4);
  out->flags = Get16(data_ + 6);
  out->seq = Get32(data_ + 8);
  out->pid = Get32(data_ + 12);
  out->payload = data_ + kNlHeaderSize;
  out->payload_len = len - kNlHeaderSize;
  // The last message of a datagram may lack its padding.
  size_t step = NlAlign(len) < left_ ? NlAlign(len) : left_;
  data_ += step;
  left_ -= step;
  return true;
}

bool NlAttrReader::Next(NlAttr* out) {
  if (!error_.empty() || left_ == 0) return false;
  if (left_ < kNlAttrHeaderSize) {
    error_ = std::to_string(left_) + " bytes after the last attribute, too few for one";
    return false;
  }
  uint16_t len = Get16(data_);
  if (len < kNlAttrHeaderSize || len > left_) {
    error_ = "attribute length " + std::to_string(len) + " outside 4.." + std::to_string(left_);
    return false;
  }
  out->type = Get16(data_ + 2);
  out->data = data_ + kNlAttrHeaderSize;
  out->len = len - kNlAttrHeaderSize;
  size_t step = NlAlign(len) < left_ ? NlAlign(len) : left_;
  data_ += step;
  left_ -= step;
  return true;
}

NlMessageWriter::NlMessageWriter(uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid)
    : buf_(kNlHeaderSize, 0) {
  std::memcpy(&buf_[4], &type, 2);
  std::memcpy(&buf_[6], &flags, 2);
  std::memcpy(&buf_[8], &seq, 4);
  std::memcpy(&buf_[12], &pid, 4);
}

void NlMessageWriter::Append(const void* data, size_t len) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  buf_.insert(buf_.end(), p, p + len);
  buf_.resize(NlAlign(buf_.size()), 0);
}

void NlMessageWriter::AppendAttr(uint16_t type, const void* data, size_t len) {
  uint8_t hdr[kNlAttrHeaderSize];
  uint16_t attr_len = static_cast<uint16_t>(kNlAttrHeaderSize + len);
  std::memcpy(hdr, &attr_len, 2);
  std::memcpy(hdr + 2, &type, 2);
  buf_.insert(buf_.end(), hdr, hdr + sizeof(hdr));
  Append(data, len);
}

std::vector<uint8_t> NlMessageWriter::Finish() {
  uint32_t len = static_cast<uint32_t>(buf_.size());
  std::memcpy(&buf_[0], &len, 4);
  return buf_;
}

}  // namespace ssa
