// ssa_options.h: the ssa provider's own options, in the [ssa] section of
// acm_opts.cfg next to the sa options its embedded sa provider reads
// (man ibacm_ssa(7)):
//
//   fallback        sa | none: what answers a destination the PRDB does not
//                   hold (or every destination before the first PRDB):
//                   the SA through the embedded sa provider (default), or
//                   nobody (ACM_STATUS_ENODATA at once)
//   transport       tcp | rsocket: the tree's data channel (default tcp;
//                   rsocket needs an HCA)
//   mad_timeout_ms  one SSA control MAD's timeout (default 1000)
//   mad_retries     its retries before the join starts over (default 3)
//   stale_after_s   how long a port's PRDB may go without the core
//                   confirming it is current (every renewal does) before
//                   it stops answering while an SM runs: its requests then
//                   go to the SA, or get ACM_STATUS_ENOTCONN with fallback
//                   = none, until the core confirms again (default 25; 0:
//                   never stop; with no SM at all it answers on)
//   fallback_jitter_s   a port stops answering from an unconfirmed PRDB
//                   at a moment it draws within this many seconds before
//                   stale_after_s (default 15; 0: at the bound), so that
//                   the nodes a hung core leaves do not all fall back in
//                   the same second; the bound stays the longest
//   fallback_sa_rate    SA path queries a second this node sends for
//                   requests the PRDB does not answer (default 2; 0: no
//                   bound), after a first fallback_sa_burst (default 10)
//   fallback_wait_ms    longest a request waits for its query's turn
//                   before it is answered ACM_STATUS_ETIMEDOUT (default
//                   5000); at most rate x wait queries wait, beyond that
//                   a request is answered ETIMEDOUT at once
// (the reasoning behind the defaults: ibacm_ssa(7), doc/ssa-tree.md)
//
// The embedded sa provider reads the section once, with these bound next
// to its own (SaProvider::set_section), and reports what neither reads.
#ifndef IBACM_SSA_PROVIDERS_SSA_SSA_OPTIONS_H
#define IBACM_SSA_PROVIDERS_SSA_SSA_OPTIONS_H

#include <string>

namespace ssa {

class OptionSet;

namespace ssa_provider {

struct SsaOptions {
  bool fallback_sa = true;
  std::string transport = "tcp";
  int mad_timeout_ms = 1000;
  int mad_retries = 3;
  int stale_after_s = 25;
  int fallback_jitter_s = 15;
  int fallback_sa_rate = 2;
  int fallback_sa_burst = 10;
  int fallback_wait_ms = 5000;

  // Binds the keys above to these members.
  void Bind(OptionSet* set);
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
