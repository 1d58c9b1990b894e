// verbs_datagram.cc: UD QP backend of the datagram transport (see
// verbs_datagram.h). Only runs on a host with an HCA.
#include "providers/acmp/verbs_datagram.h"

#include <fcntl.h>
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ssa {
namespace dgram {

namespace {

constexpr size_t kRecvSlot = kGrhSize + kMaxPayload;

Status VerbsError(const std::string& what, int err) {
  return Status::Error(err ? err : EIO, what + " failed");
}

// One scatter/gather entry: `len` bytes at `buf`, registered in `mr`.
ibv_sge Sge(const uint8_t* buf, size_t len, const ibv_mr* mr) {
  ibv_sge sge = {};
  sge.addr = reinterpret_cast<uintptr_t>(buf);
  sge.length = static_cast<uint32_t>(len);
  sge.lkey = mr->lkey;
  return sge;
}

ibv_ah_attr AhAttr(const AddressVector& av, uint8_t port_num) {
  ibv_ah_attr a = {};
  a.dlid = av.dlid;
  a.sl = av.sl;
  a.src_path_bits = av.src_path_bits;
  a.static_rate = av.static_rate;
  a.port_num = port_num;
  a.is_global = av.global ? 1 : 0;
  if (av.global) {
    memcpy(a.grh.dgid.raw, av.dgid.raw, 16);
    a.grh.flow_label = av.flow_label;
    a.grh.sgid_index = 0;  // the port GID the endpoint was opened with
    a.grh.hop_limit = av.hop_limit;
    a.grh.traffic_class = av.traffic_class;
  }
  return a;
}

class VerbsEndpoint : public DatagramEndpoint {
 public:
  explicit VerbsEndpoint(const EndpointParams& params) : params_(params) {}
  ~VerbsEndpoint() override {
    // Children first: QP, then what it used.
    if (qp_) ibv_destroy_qp(qp_);
    for (ibv_ah* ah : send_ah_)
      if (ah) ibv_destroy_ah(ah);
    if (send_cq_) ibv_destroy_cq(send_cq_);
    if (recv_cq_) ibv_destroy_cq(recv_cq_);
    if (channel_) ibv_destroy_comp_channel(channel_);
    if (recv_mr_) ibv_dereg_mr(recv_mr_);
    if (send_mr_) ibv_dereg_mr(send_mr_);
    if (pd_) ibv_dealloc_pd(pd_);
    if (ctx_) ibv_close_device(ctx_);
  }
  VerbsEndpoint(const VerbsEndpoint&) = delete;
  VerbsEndpoint& operator=(const VerbsEndpoint&) = delete;

  Status Open() {
    if (params_.send_depth == 0 || params_.recv_depth == 0)
      return Status::Error(EINVAL, "send_depth and recv_depth must be at least 1");
    Status st = OpenDevice();
    if (!st.ok()) return st;
    pd_ = ibv_alloc_pd(ctx_);
    if (!pd_) return VerbsError("ibv_alloc_pd", errno);
    channel_ = ibv_create_comp_channel(ctx_);
    if (!channel_) return VerbsError("ibv_create_comp_channel", errno);
    int flags = fcntl(channel_->fd, F_GETFL);
    if (flags < 0 || fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK) < 0)
      return Status::FromErrno("fcntl(completion channel, O_NONBLOCK)");
    // Receives and sends complete on CQs of their own, so reaping sends
    // never takes a received datagram off the receive path; both raise
    // events on the channel (the loop's fd): a send completion wakes the
    // caller, which may have sends waiting for a free buffer (EAGAIN).
    recv_cq_ = ibv_create_cq(ctx_, static_cast<int>(params_.recv_depth), this, channel_, 0);
    if (!recv_cq_) return VerbsError("ibv_create_cq(receive)", errno);
    send_cq_ = ibv_create_cq(ctx_, static_cast<int>(params_.send_depth), this, channel_, 0);
    if (!send_cq_) return VerbsError("ibv_create_cq(send)", errno);
    if (int rc = ibv_req_notify_cq(recv_cq_, 0)) return VerbsError("ibv_req_notify_cq", rc);
    if (int rc = ibv_req_notify_cq(send_cq_, 0)) return VerbsError("ibv_req_notify_cq(send)", rc);
    st = CreateQp();
    if (!st.ok()) return st;
    return PostBuffers();
  }

  uint32_t qpn() const override { return qp_->qp_num; }
  const EndpointParams& params() const override { return params_; }
  int fd() const override { return channel_->fd; }

  Status Send(const UnicastTarget& to, const uint8_t* data, size_t len) override {
    return Post(to.av, to.qpn, to.qkey, data, len);
  }

  Status SendToGroup(const Group& group, const uint8_t* data, size_t len) override {
    AddressVector av = group.av;
    av.global = true;
    av.dgid = group.mgid;
    av.dlid = group.mlid;
    return Post(av, kMulticastQpn, params_.qkey, data, len);
  }

  Status Join(const Group& group) override {
    return Multicast(ibv_attach_mcast, "ibv_attach_mcast", group);
  }

  Status Leave(const Group& group) override {
    return Multicast(ibv_detach_mcast, "ibv_detach_mcast", group);
  }

  bool Receive(Datagram* out) override {
    ConsumeEvents();
    ReapSends();
    ibv_wc wc;
    while (ibv_poll_cq(recv_cq_, 1, &wc) > 0) {
      size_t slot = static_cast<size_t>(wc.wr_id);
      RejectReason why = RejectReason::kBadCompletion;
      bool ok = wc.status == IBV_WC_SUCCESS && slot < params_.recv_depth;
      if (ok && !TakeReceive(wc, slot, out)) {
        ok = false;
        why = RejectReason::kBadLength;
      }
      if (slot < params_.recv_depth) PostRecv(slot);
      if (ok) {
        ++stats_.received;
        return true;
      }
      ++stats_.rejected;
      ++stats_.rejected_by[static_cast<int>(why)];
    }
    return false;
  }

  const EndpointStats& stats() const override { return stats_; }

 private:
  // Attaches the QP to the group or detaches it: `op` is
  // ibv_attach_mcast or ibv_detach_mcast, `name` its name for the error.
  Status Multicast(int (*op)(ibv_qp*, const ibv_gid*, uint16_t), const char* name,
                   const Group& group) {
    ibv_gid gid;
    memcpy(gid.raw, group.mgid.raw, 16);
    if (int rc = op(qp_, &gid, group.mlid))
      return VerbsError(std::string(name) + " " + GidText(group.mgid), rc);
    return Status::Ok();
  }

  Status OpenDevice() {
    int n = 0;
    ibv_device** list = ibv_get_device_list(&n);
    if (!list) return Status::Error(ENODEV, "no verbs device '" + params_.ca_name + "'");
    for (int i = 0; i < n && !ctx_; ++i)
      if (params_.ca_name == ibv_get_device_name(list[i])) ctx_ = ibv_open_device(list[i]);
    int err = errno;
    ibv_free_device_list(list);
    if (!ctx_)
      return Status::Error(
          n == 0 ? ENODEV : (err ? err : ENODEV),
          "no verbs device '" + params_.ca_name + "' (" + std::to_string(n) + " devices listed)");
    return Status::Ok();
  }

  Status CreateQp() {
    ibv_qp_init_attr init = {};
    init.send_cq = send_cq_;
    init.recv_cq = recv_cq_;
    init.cap.max_send_wr = params_.send_depth;
    init.cap.max_recv_wr = params_.recv_depth;
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    init.qp_type = IBV_QPT_UD;
    init.sq_sig_all = 1;
    init.qp_context = this;
    qp_ = ibv_create_qp(pd_, &init);
    if (!qp_) return VerbsError("ibv_create_qp(UD)", errno);
    ibv_qp_attr attr = {};
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = params_.pkey_index;
    attr.port_num = params_.port_num;
    attr.qkey = params_.qkey;
    if (int rc =
            ibv_modify_qp(qp_, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
      return VerbsError("ibv_modify_qp(INIT)", rc);
    attr = {};
    attr.qp_state = IBV_QPS_RTR;
    if (int rc = ibv_modify_qp(qp_, &attr, IBV_QP_STATE))
      return VerbsError("ibv_modify_qp(RTR)", rc);
    attr = {};
    attr.qp_state = IBV_QPS_RTS;
    attr.sq_psn = 0;
    if (int rc = ibv_modify_qp(qp_, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN))
      return VerbsError("ibv_modify_qp(RTS)", rc);
    return Status::Ok();
  }

  Status PostBuffers() {
    recv_buf_.assign(params_.recv_depth * kRecvSlot, 0);
    recv_mr_ = ibv_reg_mr(pd_, recv_buf_.data(), recv_buf_.size(), IBV_ACCESS_LOCAL_WRITE);
    if (!recv_mr_) return VerbsError("ibv_reg_mr(receive buffers)", errno);
    send_buf_.assign(params_.send_depth * kMaxPayload, 0);
    send_mr_ = ibv_reg_mr(pd_, send_buf_.data(), send_buf_.size(), 0);
    if (!send_mr_) return VerbsError("ibv_reg_mr(send buffers)", errno);
    send_ah_.assign(params_.send_depth, nullptr);
    for (size_t i = 0; i < params_.send_depth; ++i) free_send_.push_back(i);
    for (size_t i = 0; i < params_.recv_depth; ++i)
      if (!PostRecv(i)) return VerbsError("ibv_post_recv", errno);
    return Status::Ok();
  }

  bool PostRecv(size_t slot) {
    ibv_sge sge = Sge(recv_buf_.data() + slot * kRecvSlot, kRecvSlot, recv_mr_);
    ibv_recv_wr wr = {};
    wr.wr_id = slot;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    return ibv_post_recv(qp_, &wr, &bad) == 0;
  }

  Status Post(const AddressVector& av, uint32_t qpn, uint32_t qkey, const uint8_t* data,
              size_t len) {
    if (len > kMaxPayload) {
      ++stats_.send_errors;
      return Status::Error(EMSGSIZE, std::to_string(len) + "-byte datagram");
    }
    if (free_send_.empty()) ReapSends();
    if (free_send_.empty()) {
      ++stats_.send_errors;
      return Status::Error(
          EAGAIN, "send queue full (send_depth " + std::to_string(params_.send_depth) + ")");
    }
    size_t slot = free_send_.back();
    ibv_ah_attr ah_attr = AhAttr(av, params_.port_num);
    ibv_ah* ah = ibv_create_ah(pd_, &ah_attr);
    if (!ah) {
      ++stats_.send_errors;
      return VerbsError("ibv_create_ah to LID " + std::to_string(av.dlid), errno);
    }
    uint8_t* buf = send_buf_.data() + slot * kMaxPayload;
    memcpy(buf, data, len);
    ibv_sge sge = Sge(buf, len, send_mr_);
    ibv_send_wr wr = {};
    wr.wr_id = slot;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.ud.ah = ah;
    wr.wr.ud.remote_qpn = qpn;
    wr.wr.ud.remote_qkey = qkey;
    ibv_send_wr* bad = nullptr;
    if (int rc = ibv_post_send(qp_, &wr, &bad)) {
      ibv_destroy_ah(ah);
      ++stats_.send_errors;
      return VerbsError("ibv_post_send", rc);
    }
    free_send_.pop_back();
    send_ah_[slot] = ah;
    ++stats_.sent;
    return Status::Ok();
  }

  // Send completions: their buffers and address handles are free again.
  void ReapSends() {
    ibv_wc wc;
    while (ibv_poll_cq(send_cq_, 1, &wc) > 0) {
      size_t slot = static_cast<size_t>(wc.wr_id);
      if (wc.status != IBV_WC_SUCCESS) ++stats_.send_errors;
      if (slot >= send_ah_.size()) continue;
      if (send_ah_[slot]) ibv_destroy_ah(send_ah_[slot]);
      send_ah_[slot] = nullptr;
      free_send_.push_back(slot);
    }
  }

  // Acks each CQ's events and re-arms it before it is polled, so a
  // completion that lands after the poll still raises the next event. The
  // event says only that the CQ has completions: what the caller leaves in
  // the receive CQ raises no new one (datagram_transport.h).
  void ConsumeEvents() {
    ibv_cq* cq = nullptr;
    void* ctx = nullptr;
    unsigned recv_events = 0, send_events = 0;
    while (ibv_get_cq_event(channel_, &cq, &ctx) == 0)
      ++(cq == send_cq_ ? send_events : recv_events);
    if (recv_events) {
      ibv_ack_cq_events(recv_cq_, recv_events);
      ibv_req_notify_cq(recv_cq_, 0);
    }
    if (send_events) {
      ibv_ack_cq_events(send_cq_, send_events);
      ibv_req_notify_cq(send_cq_, 0);
    }
  }

  bool TakeReceive(const ibv_wc& wc, size_t slot, Datagram* out) {
    const uint8_t* buf = recv_buf_.data() + slot * kRecvSlot;
    if (wc.byte_len < kGrhSize || wc.byte_len - kGrhSize > kMaxPayload) return false;
    out->len = wc.byte_len - kGrhSize;
    memcpy(out->data, buf + kGrhSize, out->len);
    out->slid = wc.slid;
    out->src_qpn = wc.src_qp;
    out->sl = wc.sl;
    out->dlid_path_bits = wc.dlid_path_bits;
    out->has_grh = (wc.wc_flags & IBV_WC_GRH) != 0;
    // GRH: SGID at byte 8, DGID at byte 24.
    memcpy(out->sgid.raw, buf + 8, 16);
    memcpy(out->dgid.raw, buf + 24, 16);
    out->multicast = out->has_grh && out->dgid.raw[0] == 0xff;
    return true;
  }

  EndpointParams params_;
  ibv_context* ctx_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_comp_channel* channel_ = nullptr;
  ibv_cq* recv_cq_ = nullptr;
  ibv_cq* send_cq_ = nullptr;
  ibv_qp* qp_ = nullptr;
  ibv_mr* recv_mr_ = nullptr;
  ibv_mr* send_mr_ = nullptr;
  std::vector<uint8_t> recv_buf_;
  std::vector<uint8_t> send_buf_;
  std::vector<ibv_ah*> send_ah_;  // per send slot, while its send is in flight
  std::vector<size_t> free_send_;
  EndpointStats stats_;
};

class VerbsTransport : public DatagramTransport {
 public:
  const char* name() const override { return "verbs"; }
  Status Open(const EndpointParams& params, std::unique_ptr<DatagramEndpoint>* out) override {
    auto ep = std::make_unique<VerbsEndpoint>(params);
    Status st = ep->Open();
    if (!st.ok())
      return st.WithContext("UD endpoint on " + params.ca_name + "/" +
                            std::to_string(params.port_num));
    *out = std::move(ep);
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<DatagramTransport> MakeVerbsDatagramTransport() {
  return std::make_unique<VerbsTransport>();
}

int VerbsDeviceCount() {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (!list) return 0;
  ibv_free_device_list(list);
  return n;
}

}  // namespace dgram
}  // namespace ssa
