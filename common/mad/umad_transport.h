// umad_transport.h: MadTransport over libibumad, for real HCAs and for the
// ibsim simulated fabric (umad2sim).
//
// Two ways to wait for MADs, picked in Open():
//  - direct: on real hardware the umad fd is a kernel character device;
//    it is made non-blocking and handed to the event loop as fd().
//  - bridged: under umad2sim (LD_PRELOAD) the umad "fd" is a fake number
//    (>= 1024) that only umad2sim's intercepted poll()/read() understand;
//    epoll cannot watch it. One receiver thread per transport then blocks in
//    umad_recv() and hands each MAD over through a mutex-guarded queue and
//    an eventfd, which is fd(). Sends stay on the caller's thread. This is
//    still one receiver per umad fd, which is what umad2sim needs (several
//    receiving threads on one fd misroute replies).
// Whichever mode, the owner (one object on the loop thread) calls every
// method from that thread. UmadInitOnce() must have run on the main thread
// before the first Open() (umad2sim's first use is not thread-safe).
#ifndef IBACM_SSA_COMMON_MAD_UMAD_TRANSPORT_H
#define IBACM_SSA_COMMON_MAD_UMAD_TRANSPORT_H

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/base/log.h"
#include "common/base/mutex.h"
#include "common/mad/mad_transport.h"

namespace ssa {

class UmadTransport : public MadTransport {
 public:
  // `ca_name` empty = libibumad's default CA. `logger` must outlive this.
  UmadTransport(std::string ca_name, int port_num, Logger* logger);
  ~UmadTransport() override;
  UmadTransport(const UmadTransport&) = delete;
  UmadTransport& operator=(const UmadTransport&) = delete;

  Status Open(uint8_t mgmt_class, uint8_t class_version) override;
  void Close() override;
  int fd() const override;
  Status Send(const uint8_t* mad, size_t len, const MadAddress& to,
              int response_timeout_ms) override;
  Status Receive(ReceivedMad* out) override;

  // MADs the receiver thread dropped because the queue was full.
  uint64_t bridge_drops() const { return bridge_drops_.load(); }

  // True when libumad2sim.so is preloaded into this process.
  static bool UnderUmad2sim();

 private:
  void ReceiverThread();
  Status ReceiveDirect(ReceivedMad* out);
  Status ReceiveBridged(ReceivedMad* out);

  const std::string ca_name_;
  const int port_num_;
  Logger* const logger_;
  int portid_ = -1;
  int agent_ = -1;
  bool bridged_ = false;
  std::vector<uint8_t> send_buf_;  // umad_size() + 256, loop thread only
  std::vector<uint8_t> recv_buf_;  // direct mode, loop thread only

  // Bridged mode.
  int event_fd_ = -1;
  std::thread receiver_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> bridge_drops_{0};
  Mutex inbox_mutex_;  // also guards the eventfd's counter
  std::deque<ReceivedMad> inbox_ GUARDED_BY(inbox_mutex_);
};

}  // namespace ssa

#endif
