/* path_tables.h: the library's mapping of a daemon's published tables
 * (common/shm_prdb/shm_prdb_format.h) and how it follows them.
 *
 * Readers bracket each lookup with tables_enter/tables_leave: a shared
 * lock during which the mapping cannot be unmapped. At most every check_ms
 * one reader (whoever gets the refresh mutex without waiting) looks at the
 * published name: a new object is mapped and validated outside the lock,
 * then swapped in under the exclusive lock, and the old one unmapped. The
 * same look checks that the publisher still runs (PID and start time): the
 * tables of a daemon that stopped are not used. */
#ifndef IBACM_SSA_LIBIBSSA_PATH_PATH_TABLES_H
#define IBACM_SSA_LIBIBSSA_PATH_PATH_TABLES_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum tables_state {
	TABLES_NONE = 0,   /* nothing published, or the object was rejected */
	TABLES_LIVE = 1,
	TABLES_STALE = 2,  /* published by a daemon that stopped */
};

struct path_tables {
	char name[4200];
	int check_ms;
	pthread_rwlock_t lock;        /* guards map, len, state, ino, dev */
	pthread_mutex_t refresh;      /* one refresher at a time */
	const void *map;
	size_t len;
	dev_t dev;
	ino_t ino;
	int state;
	/* The last object rejected: not validated again until it changes. */
	dev_t bad_dev;
	ino_t bad_ino;
	uint64_t next_check_ns;       /* atomic */
	uint64_t bad_tables, remaps;  /* atomic counters */
};

int tables_init(struct path_tables *t, const char *socket_path, int check_ms);
void tables_destroy(struct path_tables *t);
/* Looks for new tables if check_ms passed (`force`: now). Returns the
 * state after the look (a busy refresher: the state as it is). */
int tables_refresh(struct path_tables *t, int force);
/* Shared lock held on return: the live mapping, or NULL (then *state says
 * why). tables_leave always follows. */
const void *tables_enter(struct path_tables *t, int *state);
void tables_leave(struct path_tables *t);

#endif
