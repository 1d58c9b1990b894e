// core_confirmation.cc: see core_confirmation.h.
#include "common/tree/core_confirmation.h"

namespace ssa {
namespace tree {

void CoreConfirmation::OnCoreAnswer(Time at, uint64_t core_epoch, uint64_t held, uint16_t sm_lid) {
  if (core_epoch == 0) return;  // a core with no SMDB yet vouches for nothing
  if (held != 0 && held == core_epoch) {
    confirmed_ = true;
    confirmed_at_ = at;
    confirmed_sm_lid_ = sm_lid;
    pending_ = false;
  } else if (held < core_epoch) {
    // Catching up: confirmed as of `at` once the PRDB of that epoch comes.
    pending_ = true;
    pending_at_ = at;
    pending_epoch_ = core_epoch;
    pending_sm_lid_ = sm_lid;
  } else {
    // The core is behind what we hold: another lineage, which it
    // renumbers above ours; an older promise of the old lineage is void.
    pending_ = false;
  }
}

void CoreConfirmation::OnHeld(uint64_t held) {
  if (!pending_ || held < pending_epoch_) return;
  confirmed_ = true;
  confirmed_at_ = pending_at_;
  confirmed_sm_lid_ = pending_sm_lid_;
  pending_ = false;
}

double CoreConfirmation::AgeSeconds(Time now) const {
  if (!confirmed_) return 1e9;
  return std::chrono::duration<double>(now - confirmed_at_).count();
}

}  // namespace tree
}  // namespace ssa
