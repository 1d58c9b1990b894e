/*
 * upstream_abi_layout.h: the members of upstream ibacm's provider structs,
 * for upstream_abi_layout_test.cc. upstream_abi_ours.c measures them with
 * the bridge's declarations (providers/upstream/acm_prov_abi.h),
 * upstream_abi_theirs.c with upstream's <infiniband/acm_prov.h>; the test
 * compares the two tables of offsets and sizes.
 */
#ifndef IBACM_SSA_TEST_UNIT_UPSTREAM_ABI_LAYOUT_H
#define IBACM_SSA_TEST_UNIT_UPSTREAM_ABI_LAYOUT_H

#include <stddef.h>

#define UPSTREAM_ABI_MEMBERS(X)   \
  X(acm_device, verbs)            \
  X(acm_device, dev_guid)         \
  X(acm_port, dev)                \
  X(acm_port, port_num)           \
  X(acm_endpoint, port)           \
  X(acm_endpoint, pkey)           \
  X(acm_address, endpoint)        \
  X(acm_address, info)            \
  X(acm_address, id_string)       \
  X(acm_address, type)            \
  X(acm_provider, size)           \
  X(acm_provider, version)        \
  X(acm_provider, name)           \
  X(acm_provider, open_device)    \
  X(acm_provider, close_device)   \
  X(acm_provider, open_port)      \
  X(acm_provider, close_port)     \
  X(acm_provider, open_endpoint)  \
  X(acm_provider, close_endpoint) \
  X(acm_provider, add_address)    \
  X(acm_provider, remove_address) \
  X(acm_provider, resolve)        \
  X(acm_provider, query)          \
  X(acm_provider, handle_event)   \
  X(acm_provider, query_perf)     \
  X(acm_sa_mad, context)          \
  X(acm_sa_mad, umad)             \
  X(acm_sa_mad, sa_mad)

#define UPSTREAM_ABI_STRUCTS(X) \
  X(acm_device) X(acm_port) X(acm_endpoint) X(acm_address) X(acm_provider) X(acm_sa_mad)

/* Offset and size of each member, then each struct's size. */
#define UPSTREAM_ABI_MEMBER_ENTRY(s, m) offsetof(struct s, m), sizeof(((struct s *)0)->m),
#define UPSTREAM_ABI_STRUCT_ENTRY(s) sizeof(struct s),
#define UPSTREAM_ABI_TABLE                          \
  {                                                 \
    UPSTREAM_ABI_MEMBERS(UPSTREAM_ABI_MEMBER_ENTRY) \
    UPSTREAM_ABI_STRUCTS(UPSTREAM_ABI_STRUCT_ENTRY) \
  }

#ifdef __cplusplus
extern "C" {
#endif
/* Each returns its table and sets *count. */
const size_t *upstream_abi_ours(size_t *count);
const size_t *upstream_abi_theirs(size_t *count);
#ifdef __cplusplus
}
#endif

#endif
