// netlink_msg.h: bounds-checked reading and writing of netlink messages
// (struct nlmsghdr, then a payload) and their attributes (struct nlattr /
// struct rtattr, which share one layout), as <linux/netlink.h> lays them
// out: host byte order, each message and attribute padded to 4 bytes.
//
// The readers never read outside the buffer they are given and say why
// they stop; the kernel is trusted for nothing here. Pure functions and
// small value types, any thread.
#ifndef IBACM_SSA_CORE_NETLINK_NETLINK_MSG_H
#define IBACM_SSA_CORE_NETLINK_NETLINK_MSG_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ssa {

constexpr size_t kNlHeaderSize = 16;  // sizeof(struct nlmsghdr)
constexpr size_t kNlAttrHeaderSize = 4;
constexpr size_t NlAlign(size_t n) { return (n + 3) & ~size_t(3); }

struct NlMessage {
  uint32_t len = 0;  // nlmsg_len: header and payload
  uint16_t type = 0;
  uint16_t flags = 0;
  uint32_t seq = 0;
  uint32_t pid = 0;
  const uint8_t* payload = nullptr;  // borrowed from the datagram
  size_t payload_len = 0;
};

// Splits one datagram into its messages.
class NlMessageReader {
 public:
  NlMessageReader(const uint8_t* data, size_t len) : data_(data), left_(len) {}
  // The next message; false at the end of the datagram (error() empty) or
  // on a malformed header (error() says what; the rest is not read).
  bool Next(NlMessage* out);
  const std::string& error() const { return error_; }

 private:
  const uint8_t* data_;
  size_t left_;
  std::string error_;
};

struct NlAttr {
  uint16_t type = 0;  // as sent, flag bits included
  const uint8_t* data = nullptr;
  size_t len = 0;  // payload only
};

// Walks the attributes in [data, data + len).
class NlAttrReader {
 public:
  NlAttrReader(const uint8_t* data, size_t len) : data_(data), left_(len) {}
  bool Next(NlAttr* out);
  const std::string& error() const { return error_; }

 private:
  const uint8_t* data_;
  size_t left_;
  std::string error_;
};

// Builds one message: header, then payload and attributes, each padded.
class NlMessageWriter {
 public:
  NlMessageWriter(uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid);
  void Append(const void* data, size_t len);  // padded to 4 bytes
  void AppendAttr(uint16_t type, const void* data, size_t len);
  // The message with nlmsg_len filled in.
  std::vector<uint8_t> Finish();

 private:
  std::vector<uint8_t> buf_;
};

}  // namespace ssa

#endif
