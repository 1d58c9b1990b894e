// sim_slots.h: the attach-slot accounting shared by SimFabric::Spawn and
// `simfab node`.
//
// ibsim accepts 10 attached processes (OpenSM included); the 11th dies with
// "sim_init: connect failed" and nothing else tells you why. So every node
// process first claims one of 10 slot files (run dir slots/0..9) by taking an
// exclusive flock on it and hands that open file to the process it starts
// (the descriptor survives exec). The slot stays taken exactly as long as the
// node process (or a child it passed the descriptor to) lives, whichever way
// it ends, and across processes: the C++ harness and shell scripts using
// `simfab node` share the same 10 slots.
//
// Every node process takes a slot while it runs, whether or not it ever opens
// umad (only processes that do count for ibsim); that is the safe side.
//
// A slot file holds one line, "<pid> <node> <command>", of its latest holder.
// A free slot that still names a pid may hide a stale ibsim client (a process
// killed by a signal keeps its ibsim slot until `X <n>`). Claim counts the
// slots held plus those possibly stale; when that could exceed ibsim's 10 it
// sets reap_advised() and the caller runs IbsimConsole::ReleaseDeadClients
// before starting its process. So the console round trip is paid only when
// the fabric is nearly full.
//
// AttachSlots is a small value (a directory path); SlotClaim owns a
// descriptor. Use each from one thread.
#ifndef IBACM_SSA_TEST_SIM_SIM_SLOTS_H
#define IBACM_SSA_TEST_SIM_SIM_SLOTS_H

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {
namespace test {

// Owns an O_CLOEXEC descriptor holding the slot's flock. Pass fd() in
// LaunchSpec::keep_fds, record the holder, then let this go out of scope: the
// child's copy keeps the slot.
class SlotClaim {
 public:
  SlotClaim() = default;
  ~SlotClaim();
  SlotClaim(SlotClaim&& other) noexcept { *this = std::move(other); }
  SlotClaim& operator=(SlotClaim&& other) noexcept;
  SlotClaim(const SlotClaim&) = delete;
  SlotClaim& operator=(const SlotClaim&) = delete;

  int index() const { return index_; }
  int fd() const { return fd_; }
  // The pid recorded by the slot's previous holder, 0 if none.
  pid_t previous_pid() const { return previous_pid_; }
  // Held slots + possibly stale ones exceed ibsim's limit: free the ibsim
  // clients of dead processes before attaching.
  bool reap_advised() const { return reap_advised_; }
  // Writes "<pid> <node> <command>" into the slot file.
  Status SetHolder(pid_t pid, const std::string& node, const std::string& command);
  // Gives up ownership of the descriptor without closing it (simfab node
  // keeps it open across its exec).
  int Release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  friend class AttachSlots;
  int index_ = -1;
  int fd_ = -1;
  pid_t previous_pid_ = 0;
  bool reap_advised_ = false;
};

struct SlotHolder {
  int index = -1;
  pid_t pid = 0;  // 0 while the claimer has not written it yet
  std::string node;
  std::string command;
};

class AttachSlots {
 public:
  static constexpr int kCount = 10;  // ibsim's IBSIM_MAX_CLIENTS

  explicit AttachSlots(std::string dir) : dir_(std::move(dir)) {}

  // Creates the directory and the slot files.
  Status Create();
  // Takes a free slot, or fails with EBUSY and a message naming the holders:
  // "the simulated fabric allows 10 attached processes (OpenSM included);
  // 10 are in use: ...".
  Status Claim(SlotClaim* claim);
  // The slots held right now.
  std::vector<SlotHolder> Holders() const;
  static std::string DescribeHolders(const std::vector<SlotHolder>& holders);

 private:
  std::string SlotPath(int index) const { return dir_ + "/" + std::to_string(index); }
  bool TryClaim(int index, SlotClaim* claim);
  // How many ibsim clients may exist once `claim` attaches (see above).
  int PotentialClients(const SlotClaim& claim) const;

  std::string dir_;
};

}  // namespace test
}  // namespace ssa

#endif
