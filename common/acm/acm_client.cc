// acm_client.cc: connect, send, framed receive with poll() deadlines.
#include "common/acm/acm_client.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>

namespace ssa {

Status AcmClient::Connect(const std::string& service, const std::string& port_file) {
  Close();
  if (!service.empty() && service[0] == '/') {
    struct sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    if (service.size() >= sizeof(addr.sun_path))
      return Status::Error(ENAMETOOLONG, "socket path too long: " + service);
    std::memcpy(addr.sun_path, service.c_str(), service.size() + 1);
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return Status::FromErrno("socket");
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) < 0) {
      Status st = Status::FromErrno("cannot connect to " + service);
      Close();
      return st;
    }
    return Status::Ok();
  }
  std::string host = service.empty() ? "localhost" : service;
  std::string port = "6125";
  size_t colon = host.rfind(':');
  if (colon != std::string::npos && host.find(':') == colon) {
    port = host.substr(colon + 1);
    host.resize(colon);
  } else {
    std::ifstream in(port_file);
    std::string p;
    if (in >> p) port = p;
  }
  struct addrinfo hints = {}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0)
    return Status::Error(EHOSTUNREACH, "cannot resolve " + host + ": " + gai_strerror(rc));
  Status st = Status::Error(ECONNREFUSED, "cannot connect to " + host + ":" + port);
  for (struct addrinfo* ai = res; ai; ai = ai->ai_next) {
    fd_ = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd_ < 0) continue;
    if (connect(fd_, ai->ai_addr, ai->ai_addrlen) == 0) {
      st = Status::Ok();
      break;
    }
    st = Status::FromErrno("cannot connect to " + host + ":" + port);
    Close();
  }
  freeaddrinfo(res);
  return st;
}

void AcmClient::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

Status AcmClient::WaitFor(short events) {
  struct pollfd pfd = {fd_, events, 0};
  int rc;
  do {
    rc = poll(&pfd, 1, timeout_ms_);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) return Status::FromErrno("poll");
  if (rc == 0)
    return Status::Error(ETIMEDOUT, "no answer within " + std::to_string(timeout_ms_) + " ms");
  return Status::Ok();
}

Status AcmClient::Transact(const std::vector<uint8_t>& request, std::vector<uint8_t>* reply) {
  if (fd_ < 0) return Status::Error(ENOTCONN, "not connected");
  size_t sent = 0;
  while (sent < request.size()) {
    Status st = WaitFor(POLLOUT);
    if (!st.ok()) return st;
    ssize_t n = send(fd_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::FromErrno("send");
    sent += static_cast<size_t>(n);
  }
  reply->clear();
  size_t want = acm::kHeaderLength;
  uint8_t buf[acm::kMaxMsgLength];
  while (reply->size() < want) {
    Status st = WaitFor(POLLIN);
    if (!st.ok()) return st;
    ssize_t n = recv(fd_, buf, want - reply->size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno("recv");
    if (n == 0) return Status::Error(ECONNRESET, "the server closed the connection");
    reply->insert(reply->end(), buf, buf + n);
    if (reply->size() == acm::kHeaderLength && want == acm::kHeaderLength) {
      size_t frame_len = 0;
      std::string error;
      acm::FrameStatus fs = acm::PeekFrame(reply->data(), reply->size(), &frame_len, &error);
      if (fs == acm::FrameStatus::kInvalid) return Status::Error(EPROTO, "bad reply: " + error);
      want = frame_len;
    }
  }
  return Status::Ok();
}

Status AcmClient::Resolve(const std::vector<acm::EpAddr>& entries, acm::ResolveResponse* out) {
  std::vector<uint8_t> req, reply;
  Status st = acm::EncodeResolveRequest(next_tid_++, entries, &req);
  if (st.ok()) st = Transact(req, &reply);
  if (st.ok()) st = acm::DecodeResolveResponse(reply.data(), reply.size(), out);
  return st;
}

Status AcmClient::PerfQuery(uint8_t endpoint_index, acm::PerfResponse* out) {
  std::vector<uint8_t> reply;
  Status st = Transact(acm::EncodePerfQuery(next_tid_++, endpoint_index), &reply);
  if (st.ok()) st = acm::DecodePerfResponse(reply.data(), reply.size(), out);
  return st;
}

Status AcmClient::PerfQueryByAddress(const acm::EpAddr& source, acm::PerfResponse* out) {
  std::vector<uint8_t> reply;
  Status st = Transact(acm::EncodePerfQueryByAddress(next_tid_++, source), &reply);
  if (st.ok()) st = acm::DecodePerfResponse(reply.data(), reply.size(), out);
  return st;
}

Status AcmClient::EpQuery(uint8_t endpoint_index, uint8_t port_filter, acm::EpQueryResponse* out) {
  std::vector<uint8_t> reply;
  Status st = Transact(acm::EncodeEpQuery(next_tid_++, endpoint_index, port_filter), &reply);
  if (st.ok()) st = acm::DecodeEpQueryResponse(reply.data(), reply.size(), out);
  return st;
}

}  // namespace ssa
