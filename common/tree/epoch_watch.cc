// epoch_watch.cc: see epoch_watch.h.
#include "common/tree/epoch_watch.h"

#include <cinttypes>
#include <cstdio>

namespace ssa {
namespace tree {

bool EpochWatch::Check(const char* what, uint64_t guid, uint64_t theirs, const uint32_t* digest,
                       const Held& ours, uint64_t* ahead, std::vector<std::string>* notes) {
  bool other = theirs > ours.epoch ||
               (theirs == ours.epoch && theirs != 0 && digest && *digest != ours.digest);
  // Reported already (every member of the old core joins with the same).
  if (!other || theirs < *ahead || (theirs == *ahead && *ahead != 0)) return false;
  char line[256];
  if (theirs - ours.epoch > kMaxEpochJump) {
    snprintf(line, sizeof(line),
             "member 0x%016" PRIx64 " claims %s epoch %" PRIu64
             ", implausibly far above ours (%" PRIu64 "); ignored",
             guid, what, theirs, ours.epoch);
    notes->push_back(line);
    return false;
  }
  snprintf(line, sizeof(line),
           "member 0x%016" PRIx64 " holds %s epoch %" PRIu64 " of another core (ours: %" PRIu64
           "%s; an SM failover?): epochs continue after it",
           guid, what, theirs, ours.epoch, theirs == ours.epoch ? ", another digest" : "");
  notes->push_back(line);
  *ahead = theirs;
  return true;
}

bool EpochWatch::Consider(const JoinRequest& r, uint64_t* smdb, uint64_t* addr,
                          std::vector<std::string>* notes) {
  bool holds_smdb = r.roles != kRoleConsumer;
  bool raise = Check("SMDB", r.port_guid, r.epoch, holds_smdb ? &r.digest : nullptr, smdb_,
                     &smdb_ahead_, notes);
  raise |= Check("address", r.port_guid, r.addr_epoch, &r.addr_digest, addr_, &addr_ahead_, notes);
  *smdb = smdb_ahead_;
  *addr = addr_ahead_;
  return raise;
}

}  // namespace tree
}  // namespace ssa
