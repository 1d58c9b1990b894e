/* answer_rule.h: what a client is answered from a PRDB record, the one
 * rule both readers of a PRDB apply: the ssa provider answering from its
 * view (providers/ssa/view_answer.h) and libibssa_path answering from the
 * tables the provider publishes (man libibssa_path(3)). Written once so
 * that a record never reaches a client differently by the two ways.
 *
 * The rule (man ibacm_ssa(7), ibssa_path_tables(7)): a record answers an
 * endpoint of its own partition only (a record is the SA's answer to a
 * query with its own P_Key; the SA's P_Key check, SL and QoS level follow
 * the P_Key asked with). The answer carries the endpoint's P_Key, whose
 * membership bit may differ from the record's, as the SA answers with the
 * P_Key asked for. Where the SA draws the SL at random among `span` SLs on
 * every query (a routing engine balancing over virtual layers), each
 * answer draws it uniformly in [SL, SL + span - 1].
 *
 * C, so that libibssa_path stays a C library. No allocation, no lock. */
#ifndef IBACM_SSA_COMMON_ANSWER_ANSWER_RULE_H
#define IBACM_SSA_COMMON_ANSWER_ANSWER_RULE_H

#include <infiniband/sa.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a record of partition `record_pkey` answers an endpoint with
 * `endpoint_pkey`: the same P_Key, the membership bit aside. */
int ibssa_answer_same_partition(uint16_t record_pkey, uint16_t endpoint_pkey);

/* The next number of the sequence kept in *state: splitmix64 over a
 * counter advanced atomically, so threads may share one state without a
 * lock and every draw is uniform over 64 bits. Seed *state at random (each
 * process its own sequence: nodes and processes do not draw in step). */
uint64_t ibssa_answer_draw(uint64_t *state);

/* Turns `path` (the record as stored: network order, its SL the first of
 * `sl_span`) into the answer for an endpoint with `endpoint_pkey`: its
 * P_Key, and an SL drawn from *draws when sl_span > 1. The SL stays in its
 * four bits (a span past SL 15 wraps there rather than reach the QoS
 * class). Returns 1; 0, leaving `path` as it was, when the record is of
 * another partition. */
int ibssa_answer_path(struct ibv_path_record *path, uint16_t record_pkey, unsigned sl_span,
		      uint16_t endpoint_pkey, uint64_t *draws);

#ifdef __cplusplus
}
#endif

#endif
