/* path_tables.h: the library's mapping of a daemon's published tables
 * (common/shm_prdb/shm_prdb_format.h) and how it follows them.
 *
 * Readers bracket each lookup with tables_enter/tables_leave, which mark
 * the reader present in the current generation, on a counter of its own
 * (one of TABLES_SLOTS cache lines, picked by thread): no lock and no
 * cache line shared between threads, so lookups scale with threads. At
 * most every check_ms one reader (whoever gets the refresh mutex without
 * waiting) looks at the published name: a new object is mapped and
 * validated, put in the other generation's place, the generation switched,
 * and the old object unmapped once the old generation's counters are all
 * zero (readers are short: the wait is a few lookups). A reader that
 * marked itself in a generation that was just switched away steps back
 * and tries the new one. The same look checks that the publisher still
 * runs (PID and start time): the tables of a daemon that stopped are not
 * used. The directory is world-writable: an object is trusted only when
 * root or the socket's owner owns it and nobody else may write it. */
#ifndef IBACM_SSA_LIBIBSSA_PATH_PATH_TABLES_H
#define IBACM_SSA_LIBIBSSA_PATH_PATH_TABLES_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum tables_state {
	TABLES_NONE = 0, /* nothing published, or the object was rejected */
	TABLES_LIVE = 1,
	TABLES_STALE = 2, /* published by a daemon that stopped */
};

#define TABLES_SLOTS 64

/* What readers of one generation see. */
struct tables_view {
	const void *map; /* NULL unless state is TABLES_LIVE */
	int state;
};

/* Readers present per generation, and the answers they gave from the
 * tables, one cache line per slot: a lookup writes only its own. */
struct tables_slot {
	uint64_t readers[2]; /* atomic */
	uint64_t answers;    /* atomic */
	char pad[40];
} __attribute__((aligned(64)));

struct path_tables {
	struct tables_slot slots[TABLES_SLOTS];
	struct tables_view views[2]; /* views[gen & 1] is current */
	uint64_t gen;		     /* atomic */
	char name[4200];
	char socket[4200]; /* the daemon's: its owner vouches for the tables */
	int check_ms;
	pthread_mutex_t refresh; /* one refresher at a time; guards what follows */
	const void *map;	 /* the refresher's: mapped, maybe not live */
	size_t len;
	dev_t dev;
	ino_t ino;
	int state;
	/* The last object rejected: not validated again until it changes. */
	dev_t bad_dev;
	ino_t bad_ino;
	uint64_t next_check_ns;	     /* atomic */
	uint64_t bad_tables, remaps; /* atomic counters */
};

int tables_init(struct path_tables *t, const char *socket_path, int check_ms);
void tables_destroy(struct path_tables *t);
/* Looks for new tables if check_ms passed (`force`: now). Returns the
 * state after the look (a busy refresher: the state as it is). */
int tables_refresh(struct path_tables *t, int force);
/* The reader is present on return (tables_leave with *ticket always
 * follows): the live mapping, or NULL (then *state says why). */
const void *tables_enter(struct path_tables *t, int *state, uint64_t **ticket);
void tables_leave(uint64_t *ticket);
/* Counts an answer from the tables on the slot of an entered `ticket`. */
void tables_count_answer(struct path_tables *t, uint64_t *ticket);
uint64_t tables_answers(const struct path_tables *t);

#endif
