/* path_tables.c: see path_tables.h. */
#include "libibssa_path/path_tables.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/shm_prdb/shm_prdb_format.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	/* The coarse clock costs no system call (vDSO) on the lookup path. */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int tables_init(struct path_tables *t, const char *socket_path, int check_ms)
{
	memset(t, 0, sizeof(*t));
	int rc = ibssa_shm_object_name(socket_path, t->name, sizeof(t->name));
	if (rc)
		return rc;
	if (strlen(socket_path) >= sizeof(t->socket))
		return -ENAMETOOLONG;
	strcpy(t->socket, socket_path);
	t->check_ms = check_ms > 0 ? check_ms : 100;
	return pthread_mutex_init(&t->refresh, NULL) ? -ENOMEM : 0;
}

void tables_destroy(struct path_tables *t)
{
	if (t->map)
		munmap((void *)t->map, t->len);
	pthread_mutex_destroy(&t->refresh);
}

/* True while the process that published `object` runs. */
static int publisher_alive(const void *object)
{
	const struct ibssa_shm_header *h = object;
	if (h->daemon_pid <= 0)
		return 0;
	if (h->daemon_start) {
		uint64_t start = ibssa_shm_process_start(h->daemon_pid);
		/* /proc unreadable (hidepid): the signal test below decides. */
		if (start)
			return start == h->daemon_start;
	}
	return kill(h->daemon_pid, 0) == 0 || errno == EPERM;
}

/* True when the object's owner may speak for the daemon: root or the
 * owner of its socket, and nobody else may write it. */
static int trusted(const struct path_tables *t, const struct stat *st)
{
	struct stat so;
	if (!S_ISREG(st->st_mode) || (st->st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	if (st->st_uid == 0)
		return 1;
	return stat(t->socket, &so) == 0 && so.st_uid == st->st_uid;
}

/* Maps and validates the object open on `fd`; NULL if it is not one. */
static const void *map_object(struct path_tables *t, int fd, const struct stat *st)
{
	if (st->st_size <= 0 || (uint64_t)st->st_size > SIZE_MAX || !trusted(t, st)) {
		__atomic_add_fetch(&t->bad_tables, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	void *m = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	char why[160];
	if (ibssa_shm_validate(m, (size_t)st->st_size, why, sizeof(why))) {
		munmap(m, (size_t)st->st_size);
		__atomic_add_fetch(&t->bad_tables, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	return m;
}

/* Puts `map` (may be NULL) in place with `state` as the next generation,
 * waits until no reader is left in the current one, then unmaps what it
 * replaced. Called with the refresh mutex held. */
static void install(struct path_tables *t, const void *map, size_t len, const struct stat *st,
		    int state)
{
	if (map == t->map && state == t->state) {
		t->dev = st ? st->st_dev : 0;
		t->ino = st ? st->st_ino : 0;
		return; /* readers see it already */
	}
	uint64_t g = __atomic_load_n(&t->gen, __ATOMIC_RELAXED); /* only we write it */
	struct tables_view *next = &t->views[(g + 1) & 1];
	next->map = state == TABLES_LIVE ? map : NULL;
	next->state = state;
	__atomic_store_n(&t->gen, g + 1, __ATOMIC_SEQ_CST);
	for (;;) {
		uint64_t present = 0;
		for (int i = 0; i < TABLES_SLOTS; ++i)
			present += __atomic_load_n(&t->slots[i].readers[g & 1], __ATOMIC_SEQ_CST);
		if (!present)
			break;
		sched_yield(); /* a lookup takes well under a microsecond */
	}
	const void *old = t->map;
	size_t old_len = t->len;
	t->map = map;
	t->len = len;
	t->dev = st ? st->st_dev : 0;
	t->ino = st ? st->st_ino : 0;
	t->state = state;
	if (old && old != map)
		munmap((void *)old, old_len);
}

static int look(struct path_tables *t)
{
	struct stat st;
	int fd = open(t->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		install(t, NULL, 0, NULL, TABLES_NONE);
		return TABLES_NONE;
	}
	/* map, dev, ino and state are the refresher's (we hold its mutex). */
	if (t->map && st.st_dev == t->dev && st.st_ino == t->ino) {
		close(fd);
		int state = publisher_alive(t->map) ? TABLES_LIVE : TABLES_STALE;
		if (state != t->state)
			install(t, t->map, t->len, &st, state);
		return state;
	}
	if (st.st_dev == t->bad_dev && st.st_ino == t->bad_ino) {
		close(fd);
		install(t, NULL, 0, NULL, TABLES_NONE);
		return TABLES_NONE;
	}
	const void *m = map_object(t, fd, &st);
	close(fd);
	if (!m) {
		t->bad_dev = st.st_dev;
		t->bad_ino = st.st_ino;
		install(t, NULL, 0, NULL, TABLES_NONE);
		return TABLES_NONE;
	}
	__atomic_add_fetch(&t->remaps, 1, __ATOMIC_RELAXED);
	int state = publisher_alive(m) ? TABLES_LIVE : TABLES_STALE;
	install(t, m, (size_t)st.st_size, &st, state);
	return state;
}

int tables_refresh(struct path_tables *t, int force)
{
	uint64_t now = now_ns();
	if (!force && now < __atomic_load_n(&t->next_check_ns, __ATOMIC_RELAXED))
		return -1;
	if (force) {
		pthread_mutex_lock(&t->refresh);
	} else if (pthread_mutex_trylock(&t->refresh)) {
		return -1; /* another thread looks right now */
	}
	int state = look(t);
	__atomic_store_n(&t->next_check_ns, now_ns() + (uint64_t)t->check_ms * 1000000u,
			 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&t->refresh);
	return state;
}

/* The reader's slot: threads spread over the slots by their TCB address. */
static unsigned slot_of_thread(void)
{
	uint64_t x = (uint64_t)(uintptr_t)pthread_self();
	return (unsigned)((x * 0x9e3779b97f4a7c15ull) >> 58) % TABLES_SLOTS;
}

const void *tables_enter(struct path_tables *t, int *state, uint64_t **ticket)
{
	tables_refresh(t, 0);
	struct tables_slot *slot = &t->slots[slot_of_thread()];
	for (;;) {
		uint64_t g = __atomic_load_n(&t->gen, __ATOMIC_SEQ_CST);
		uint64_t *c = &slot->readers[g & 1];
		__atomic_add_fetch(c, 1, __ATOMIC_SEQ_CST);
		/* Either the refresher sees us before it unmaps generation g, or
		 * we see that it switched: then step back and take the new one. */
		if (__atomic_load_n(&t->gen, __ATOMIC_SEQ_CST) == g) {
			*ticket = c;
			*state = t->views[g & 1].state;
			return t->views[g & 1].map;
		}
		__atomic_sub_fetch(c, 1, __ATOMIC_RELEASE);
	}
}

void tables_leave(uint64_t *ticket)
{
	__atomic_sub_fetch(ticket, 1, __ATOMIC_RELEASE);
}

void tables_count_answer(struct path_tables *t, uint64_t *ticket)
{
	/* A ticket points into its slot's readers[]. */
	size_t i = (size_t)((const char *)ticket - (const char *)t->slots) / sizeof(t->slots[0]);
	__atomic_add_fetch(&t->slots[i].answers, 1, __ATOMIC_RELAXED);
}

uint64_t tables_answers(const struct path_tables *t)
{
	uint64_t n = 0;
	for (int i = 0; i < TABLES_SLOTS; ++i)
		n += __atomic_load_n(&t->slots[i].answers, __ATOMIC_RELAXED);
	return n;
}
