// tree_pieces.h: bench_tree --pieces: fixed CPU-bound workloads on the
// cached SMDB pair, each a function of its own (callgrind --toggle-collect):
// the SMDB delta a member applies, the index, the route diff, full PRDB
// builds, the incremental update of 100 consumers, their swaps and the
// table export, and the data channel's frame codec.
#ifndef IBACM_SSA_TEST_BENCH_TREE_PIECES_H
#define IBACM_SSA_TEST_BENCH_TREE_PIECES_H

#include "test/bench/smdb_pair_cache.h"

namespace ssa {
namespace bench {

// Runs every piece once on `pair`, one line each; 0 when all ran.
// `route_table_mb`: the whole-PRDB engine's route-suffix table bound
// (bench_tree --route-table-mb).
int RunPieces(const SmdbPair& pair, int route_table_mb);

}  // namespace bench
}  // namespace ssa

#endif
