/* path_private.h: what libibssa_path's own tests reach that its API
 * (ibacm_ssa/path.h) does not; not exported (libibssa_path.map). */
#ifndef IBACM_SSA_LIBIBSSA_PATH_PATH_PRIVATE_H
#define IBACM_SSA_LIBIBSSA_PATH_PATH_PRIVATE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ibssa_path;

/* Sets the handle's SL draws' state (answer_rule.h), which ibssa_path_open
 * seeds at random: a test draws the same sequence as the provider. */
void path_seed_draws(struct ibssa_path *h, uint64_t state);

#ifdef __cplusplus
}
#endif

#endif
