/* path_tables.h: the library's mapping of a daemon's published tables
 * (common/shm_prdb/shm_prdb_format.h) and how it follows them.
 *
 * Readers bracket each lookup with tables_enter/tables_leave, which mark
 * the reader present on the current mapping's counter set, on a counter of
 * its own (one of TABLES_SLOTS cache lines, picked by thread): no lock and
 * no cache line shared between threads, so lookups scale with threads.
 * Each mapping a reader may use has its own set (TABLES_SETS of them); the
 * word `cur` names the current one with its generation. At most every
 * check_ms one reader (whoever gets the refresh mutex without waiting)
 * looks at the published name: a new object is mapped and validated, put
 * on a free set and `cur` switched to it; a replaced mapping is unmapped
 * at a later look once its set's counters are all zero. The refresher
 * never waits on a reader without a bound: a reader that never leaves (a
 * thread killed or jumped out of a lookup) costs one set and its mapping,
 * never a hang; with no free set the refresher waits up to about 50 ms
 * once (readers preempted inside a lookup leave by then), then the tables
 * are off until a set drains, looked at again every 2 ms.
 *
 * Nothing another user can place makes a reader block or trust it: the
 * tables live in a directory only the daemon's user may write (the owner
 * of the daemon's socket vouches for both), every open is non-blocking and
 * checks type, owner and mode before anything is read. A reader checks
 * the object's retired mark before every lookup, so it stops using one the
 * daemon replaced before the daemon truncates it. fork() in another
 * thread, and thread cancellation, leave the handle usable (path_tables.c
 * says how). */
#ifndef IBACM_SSA_LIBIBSSA_PATH_PATH_TABLES_H
#define IBACM_SSA_LIBIBSSA_PATH_PATH_TABLES_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" { /* for the tests */
#endif

enum tables_state {
	TABLES_NONE = 0,    /* nothing published (or no daemon socket) */
	TABLES_LIVE = 1,    /* in use */
	TABLES_STALE = 2,   /* published by a daemon that stopped */
	TABLES_REFUSED = 3, /* a place or object the reader may not use (why) */
};

#define TABLES_SLOTS 64
#define TABLES_SETS 4

/* Readers present per counter set, and the answers they gave from the
 * tables, one cache line per slot: a lookup writes only its own. */
struct tables_slot {
	uint64_t readers[TABLES_SETS]; /* atomic */
	uint64_t answers;	       /* atomic */
	char pad[24];
} __attribute__((aligned(64)));

struct path_tables {
	struct tables_slot slots[TABLES_SLOTS];
	/* The mapping of each set (NULL: free). Readers read views[set] of
	 * the set `cur` names; the refresher writes a set only while it is
	 * free of readers and not current. */
	const void *views[TABLES_SETS];
	uint64_t cur; /* atomic: generation << 4 | state << 2 | set */
	char name[64];
	char socket[4200]; /* the daemon's: its owner vouches for the tables */
	int check_ms;
	pthread_mutex_t refresh; /* one refresher at a time; guards what follows */
	size_t lens[TABLES_SETS];
	/* The object last examined, installed or refused: not examined again
	 * until the name points to another one. Held open (known_fd) so that
	 * its inode number is not reused while we compare with it. */
	dev_t dev;
	ino_t ino;
	int known;
	int known_fd;
	int err; /* the last look's result as ibssa_path_refresh returns it */
	char why[320];
	uint64_t next_check_ns;			    /* atomic */
	uint64_t bad_tables, remaps, stuck_readers; /* atomic counters */
	struct path_tables *next_open;		    /* the fork registry's list */
};

int tables_init(struct path_tables *t, const char *socket_path, int check_ms);
void tables_destroy(struct path_tables *t);
/* Looks for new tables if check_ms passed (`force`: now, waiting for a
 * look in progress). Returns the state after the look, -1 when it did not
 * look. */
int tables_refresh(struct path_tables *t, int force);
/* The live mapping with the reader present (tables_leave(*ticket)
 * follows), or NULL with *state saying why (tables_leave(*ticket) is then
 * a no-op, and may be called). */
const void *tables_enter(struct path_tables *t, int *state, uint64_t **ticket);
void tables_leave(uint64_t *ticket);
/* Counts an answer from the tables on the slot of an entered `ticket`. */
void tables_count_answer(struct path_tables *t, uint64_t *ticket);
uint64_t tables_answers(const struct path_tables *t);
/* The last look's result (0, -ENOENT, -ESRCH, -EPERM, -EBADMSG, ...) and
 * what it found, in words, in `why` (may be NULL). */
int tables_status(struct path_tables *t, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
