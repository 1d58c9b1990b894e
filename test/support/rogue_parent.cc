// rogue_parent.cc: see rogue_parent.h.
#include "test/support/rogue_parent.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/base/big_endian.h"
#include "common/tree/db_version.h"
#include "common/tree/link_auth.h"

namespace ssa {
namespace test {

Status RogueParent::Start(const RogueOptions& options, std::unique_ptr<RogueParent>* out) {
  std::unique_ptr<RogueParent> r(new RogueParent());
  r->options_ = options;
  r->listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (r->listener_ < 0) return Status::FromErrno("socket");
  int one = 1;
  setsockopt(r->listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = ToBe32(INADDR_LOOPBACK);
  a.sin_port = ToBe16(static_cast<uint16_t>(options.port));
  if (bind(r->listener_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      listen(r->listener_, 16) != 0) {
    Status st = Status::FromErrno("bind 127.0.0.1:" + std::to_string(options.port));
    close(r->listener_);
    r->listener_ = -1;
    return st;
  }
  socklen_t len = sizeof(a);
  getsockname(r->listener_, reinterpret_cast<sockaddr*>(&a), &len);
  r->port_ = FromBe16(a.sin_port);
  RogueParent* self = r.get();
  r->thread_ = std::thread([self] { self->Run(); });
  *out = std::move(r);
  return Status::Ok();
}

RogueParent::~RogueParent() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (listener_ >= 0) close(listener_);
}

void RogueParent::Run() {
  while (!stop_) {
    pollfd p{listener_, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    ++accepted_;
    Serve(fd);
    close(fd);
  }
}

void RogueParent::Serve(int fd) {
  tree::FrameReader r;
  tree::Frame hello;
  while (!stop_ && !r.Next(&hello)) {
    pollfd q{fd, POLLIN, 0};
    if (poll(&q, 1, 50) <= 0) continue;
    uint8_t buf[512];
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0 || !r.Feed(buf, static_cast<size_t>(n)).ok()) return;
  }
  tree::Hello h;
  if (stop_ || hello.type != tree::FrameType::kHello || !tree::DecodeHello(hello.payload, &h).ok())
    return;
  tree::Welcome w;
  w.parent_guid = options_.guid;
  w.epoch = options_.epoch;
  w.tag = tree::WelcomeTag(options_.key, hello.payload, tree::WelcomeFields(w));
  std::string out = tree::EncodeWelcome(w);
  const bool forge = h.kind == options_.kind;
  if (forge) {
    tree::XferBegin b;
    b.kind = 1;
    b.to = options_.epoch;
    b.total = options_.bytes.size();
    b.digest = tree::DigestOf(options_.bytes);
    out += tree::EncodeXferBegin(b);
    for (size_t off = 0; off < options_.bytes.size(); off += tree::kXferChunk)
      out += tree::EncodeFrame(tree::FrameType::kXferData,
                               options_.bytes.substr(off, tree::kXferChunk));
    out += tree::EncodeFrame(tree::FrameType::kXferEnd, "");
  }
  size_t off = 0;
  while (off < out.size() && !stop_) {
    ssize_t n = send(fd, out.data() + off, out.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
  if (forge && off == out.size()) ++served_;
  // Held open until the child hangs up (or a bound): the child, not the
  // rogue, must end it.
  for (int i = 0; i < 40 && !stop_; ++i) {
    pollfd q{fd, POLLIN, 0};
    if (poll(&q, 1, 50) <= 0) continue;
    uint8_t buf[512];
    if (read(fd, buf, sizeof(buf)) <= 0) return;
  }
}

}  // namespace test
}  // namespace ssa
