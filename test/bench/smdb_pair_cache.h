// smdb_pair_cache.h: the benchmarks' SMDB pair of an N-HCA fat tree,
// made by the simulated fabric (netgen's spread fat tree, ibsim, OpenSM
// with the ibssa_osm plugin): the first version, then the version
// OpenSM's reroute makes after one link goes down. Making it takes
// minutes at 10,000 HCAs, so it is cached under the build tree
// (test/bench/bench_tree.cache/, one pair per size, link, routing engine
// and QoS policy file) and later runs, of any benchmark, read it back.
#ifndef IBACM_SSA_TEST_BENCH_SMDB_PAIR_CACHE_H
#define IBACM_SSA_TEST_BENCH_SMDB_PAIR_CACHE_H

#include <functional>
#include <string>

#include "common/base/status.h"
#include "common/smdb/smdb.h"

namespace ssa {
namespace bench {

struct SmdbPairSpec {
  int hcas = 10000;
  std::string link_down = "L1:19";  // NODE[:PORT] taken down between the two
  std::string routing;              // OpenSM's -R (empty: its default, minhop)
  std::string qos_policy;           // QoS on with this policy file (empty: off)
  bool regen = false;               // make it again even when cached
};

struct SmdbPair {
  smdb::Smdb before, after;
  std::string source;  // "cached in ..." or "generated on the simulated fabric in N s"
};

// Progress lines while the pair is made (to stderr, say).
using ProgressFn = std::function<void(const std::string& line)>;

Status GetSmdbPair(const SmdbPairSpec& spec, const ProgressFn& progress, SmdbPair* out);

// The channel adapters (HCA ports' nodes) in `db`.
int CountCas(const smdb::Smdb& db);

}  // namespace bench
}  // namespace ssa

#endif
