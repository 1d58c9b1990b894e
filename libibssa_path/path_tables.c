/* path_tables.c: see path_tables.h. */
#include "libibssa_path/path_tables.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/shm_prdb/shm_prdb_format.h"

#define CUR_STATE(c) ((int)(((c) >> 2) & 3))
#define CUR_SET(c) ((unsigned)((c)&3))

static uint64_t now_ns(void)
{
	struct timespec ts;
	/* The coarse clock costs no system call (vDSO) on the lookup path. */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void say(struct path_tables *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct path_tables *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
}

/* fork(): the child has one thread, but copies of every counter of the
 * parent's other threads, and of the refresh mutex as any thread held it.
 * Each open handle is kept on a list; around fork() every handle's mutex
 * is taken (no look is half done in the child) and, in the child, the
 * counters are zeroed: no reader of the child is inside a lookup, since
 * its one thread is the one that called fork(). */
static pthread_mutex_t open_mu = PTHREAD_MUTEX_INITIALIZER;
static struct path_tables *open_list;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void before_fork(void)
{
	pthread_mutex_lock(&open_mu);
	for (struct path_tables *t = open_list; t; t = t->next_open)
		pthread_mutex_lock(&t->refresh);
}

static void after_fork_parent(void)
{
	for (struct path_tables *t = open_list; t; t = t->next_open)
		pthread_mutex_unlock(&t->refresh);
	pthread_mutex_unlock(&open_mu);
}

static void after_fork_child(void)
{
	for (struct path_tables *t = open_list; t; t = t->next_open) {
		for (int i = 0; i < TABLES_SLOTS; ++i)
			memset(t->slots[i].readers, 0, sizeof(t->slots[i].readers));
		pthread_mutex_unlock(&t->refresh);
	}
	pthread_mutex_unlock(&open_mu);
}

static void register_atfork(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
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
	t->err = -ENOENT;
	t->known_fd = -1;
	if (pthread_mutex_init(&t->refresh, NULL))
		return -ENOMEM;
	pthread_once(&atfork_once, register_atfork);
	pthread_mutex_lock(&open_mu);
	t->next_open = open_list;
	open_list = t;
	pthread_mutex_unlock(&open_mu);
	return 0;
}

void tables_destroy(struct path_tables *t)
{
	pthread_mutex_lock(&open_mu);
	for (struct path_tables **p = &open_list; *p; p = &(*p)->next_open)
		if (*p == t) {
			*p = t->next_open;
			break;
		}
	pthread_mutex_unlock(&open_mu);
	for (int s = 0; s < TABLES_SETS; ++s)
		if (t->views[s])
			munmap((void *)t->views[s], t->lens[s]);
	if (t->known_fd >= 0)
		close(t->known_fd);
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

static uint64_t readers_of(const struct path_tables *t, unsigned set)
{
	uint64_t n = 0;
	for (int i = 0; i < TABLES_SLOTS; ++i)
		n += __atomic_load_n(&t->slots[i].readers[set], __ATOMIC_SEQ_CST);
	return n;
}

/* Unmaps every mapping but the current one that no reader uses any more.
 * A reader that marks itself on such a set after the sum was taken sees
 * that `cur` moved on and steps back without reading the mapping. */
static void sweep(struct path_tables *t)
{
	uint64_t c = __atomic_load_n(&t->cur, __ATOMIC_SEQ_CST);
	for (unsigned s = 0; s < TABLES_SETS; ++s) {
		if (!t->views[s] || (CUR_STATE(c) == TABLES_LIVE && CUR_SET(c) == s))
			continue;
		if (readers_of(t, s))
			continue;
		munmap((void *)t->views[s], t->lens[s]);
		__atomic_store_n(&t->views[s], NULL, __ATOMIC_RELAXED);
		t->lens[s] = 0;
	}
}

/* Makes `map` (NULL unless `state` is LIVE) what readers see. Called with
 * the refresh mutex held. Returns the state installed: NONE when no set is
 * free for a new mapping (readers that never left hold the others). */
static int install(struct path_tables *t, const void *map, size_t len, int state)
{
	uint64_t c = __atomic_load_n(&t->cur, __ATOMIC_RELAXED); /* only we write it */
	unsigned set = 0;
	sweep(t);
	if (state == TABLES_LIVE) {
		/* A set may hold a reader for a moment (one that saw the old
		 * `cur` and is stepping back): a few yields tell those from
		 * readers that never leave. */
		/* Readers merely preempted inside a lookup (a loaded machine)
		 * leave within a time slice or two: the first time every set is
		 * held, wait for that (up to about 50 ms). Once the tables went
		 * off for it, later looks only yield: readers that never leave
		 * must not cost every refresh 50 ms. */
		const int patient = t->err != -EBUSY;
		for (int tries = 0; tries < 64 + (patient ? 50 : 0); ++tries) {
			for (set = 0; set < TABLES_SETS; ++set)
				if (!t->views[set] && !readers_of(t, set))
					break;
			if (set < TABLES_SETS)
				break;
			if (tries < 64) {
				sched_yield();
			} else {
				struct timespec ms = {0, 1000000};
				nanosleep(&ms, NULL);
			}
			sweep(t);
		}
		if (set == TABLES_SETS) {
			munmap((void *)map, len);
			__atomic_add_fetch(&t->stuck_readers, 1, __ATOMIC_RELAXED);
			say(t, "every mapping is held by readers that never left a lookup (a "
			       "thread killed or jumped out of one): the tables are off until "
			       "one is released");
			t->err = -EBUSY;
			state = TABLES_NONE;
			set = 0; /* no set: readers of a NONE view read no mapping */
		} else {
			__atomic_store_n(&t->views[set], map, __ATOMIC_RELAXED);
			t->lens[set] = len;
		}
	}
	uint64_t next = (((c >> 4) + 1) << 4) | ((uint64_t)state << 2) | set;
	__atomic_store_n(&t->cur, next, __ATOMIC_SEQ_CST);
	sweep(t);
	return state;
}

/* Pins the object just examined (open on `fd`, `st` its stat) as the
 * known one, in state `known`: while we hold it open its inode cannot be
 * freed, so the same device and inode at the name is the same object, not
 * a new one that reused the number (ext4 reuses them at once). */
static void remember(struct path_tables *t, int fd, const struct stat *st, int known)
{
	if (t->known_fd >= 0)
		close(t->known_fd);
	t->known_fd = fd;
	t->dev = st->st_dev;
	t->ino = st->st_ino;
	t->known = known;
}

static void forget(struct path_tables *t)
{
	if (t->known_fd >= 0)
		close(t->known_fd);
	t->known_fd = -1;
	t->known = 0;
}

/* Refuses what the last look found, with `err`; `why` is set. An object
 * (`fd` >= 0) is counted once and remembered; `fd` is taken. */
static int refuse(struct path_tables *t, int fd, const struct stat *st, int err)
{
	if (fd >= 0) {
		remember(t, fd, st, TABLES_REFUSED);
		__atomic_add_fetch(&t->bad_tables, 1, __ATOMIC_RELAXED);
	} else {
		forget(t);
	}
	t->err = err;
	return install(t, NULL, 0, TABLES_REFUSED);
}

/* Nothing to use, for a reason already said. */
static int nothing(struct path_tables *t, int err)
{
	forget(t);
	t->err = err;
	return install(t, NULL, 0, TABLES_NONE);
}

/* The state of the object already examined (same inode). */
static int known_object(struct path_tables *t)
{
	uint64_t c = __atomic_load_n(&t->cur, __ATOMIC_RELAXED);
	if (t->known != TABLES_LIVE || CUR_STATE(c) != TABLES_LIVE)
		return CUR_STATE(c);
	if (publisher_alive(t->views[CUR_SET(c)]))
		return TABLES_LIVE;
	say(t, "the daemon that published them stopped");
	t->known = TABLES_STALE;
	t->err = -ESRCH;
	return install(t, NULL, 0, TABLES_STALE);
}

/* Opens, checks and maps the object at dir/name of `uid`; one attempt. */
static int look_once(struct path_tables *t, const char *dir, uid_t uid, int *again)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, t->name);
	/* Non-blocking opens: a FIFO or device opens at once, and the type
	 * check below refuses it before anything is read. */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (dfd < 0) {
		int e = errno;
		say(t, "%s: %s", dir, strerror(e));
		return e == ENOENT ? nothing(t, -ENOENT) : refuse(t, -1, NULL, -EPERM);
	}
	if (ibssa_shm_check_dir(dfd, dir, uid, t->why, sizeof(t->why))) {
		close(dfd);
		return refuse(t, -1, NULL, -EPERM);
	}
	int fd = openat(dfd, t->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0) {
		int e = errno;
		say(t, "%s: %s", path, strerror(e));
		return e == ENOENT ? nothing(t, -ENOENT) : refuse(t, -1, NULL, -EPERM);
	}
	struct stat st;
	if (fstat(fd, &st)) {
		say(t, "%s: %s", path, strerror(errno));
		close(fd);
		return refuse(t, -1, NULL, -EPERM);
	}
	if (t->known && st.st_dev == t->dev && st.st_ino == t->ino) {
		close(fd);
		return known_object(t);
	}
	if (ibssa_shm_check_object(fd, path, uid, t->why, sizeof(t->why)))
		return refuse(t, fd, &st, -EPERM);
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		int e = errno;
		say(t, "%s: cannot map: %s", path, strerror(e));
		close(fd);
		return refuse(t, -1, NULL, -e);
	}
	char why[200];
	int rc = ibssa_shm_validate(m, (size_t)st.st_size, why, sizeof(why));
	if (rc) {
		munmap(m, (size_t)st.st_size);
		say(t, "%s: not valid tables: %s", path, why);
		return refuse(t, fd, &st, -EBADMSG);
	}
	const struct ibssa_shm_header *h = m;
	if (__atomic_load_n(&h->retired, __ATOMIC_ACQUIRE)) {
		/* Replaced between our open and now: the name has a newer one. */
		munmap(m, (size_t)st.st_size);
		close(fd);
		*again = 1;
		return TABLES_NONE;
	}
	__atomic_add_fetch(&t->remaps, 1, __ATOMIC_RELAXED);
	if (!publisher_alive(m)) {
		munmap(m, (size_t)st.st_size);
		say(t, "%s: the daemon that published them stopped", path);
		remember(t, fd, &st, TABLES_STALE);
		t->err = -ESRCH;
		return install(t, NULL, 0, TABLES_STALE);
	}
	say(t, "in use: %s", path);
	t->err = 0;
	int state = install(t, m, (size_t)st.st_size, TABLES_LIVE);
	/* Not installed (no free set): examined again at the next look. */
	remember(t, fd, &st, state == TABLES_LIVE ? TABLES_LIVE : 0);
	return state;
}

static int look(struct path_tables *t)
{
	sweep(t); /* mappings replaced earlier whose readers have left */
	/* The socket's owner runs the daemon and owns its tables. */
	struct stat so;
	if (stat(t->socket, &so)) {
		say(t, "no daemon socket at %s: %s", t->socket, strerror(errno));
		return nothing(t, -ENOENT);
	}
	char dir[128];
	if (ibssa_shm_dir(so.st_uid, dir, sizeof(dir))) {
		say(t, "no directory name for uid %lu", (unsigned long)so.st_uid);
		return nothing(t, -ENAMETOOLONG);
	}
	int state = TABLES_NONE;
	for (int i = 0; i < 8; ++i) {
		int again = 0;
		state = look_once(t, dir, so.st_uid, &again);
		if (!again)
			return state;
	}
	say(t, "the daemon replaced its tables faster than they could be read");
	return nothing(t, -EAGAIN);
}

int tables_refresh(struct path_tables *t, int force)
{
	uint64_t now = now_ns();
	if (!force && now < __atomic_load_n(&t->next_check_ns, __ATOMIC_RELAXED))
		return -1;
	/* open() is a cancellation point: a thread cancelled inside a look
	 * would leave the mutex held and the handle never refreshed again. */
	int cancel;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	int state = -1;
	if (force) {
		pthread_mutex_lock(&t->refresh);
	} else if (pthread_mutex_trylock(&t->refresh)) {
		pthread_setcancelstate(cancel, NULL);
		return -1; /* another thread looks right now */
	}
	state = look(t);
	/* What may pass by itself (readers in every set, tables replaced
	 * while we read) is looked at again soon, not after check_ms. */
	uint64_t wait_ms = (uint64_t)t->check_ms;
	if ((t->err == -EBUSY || t->err == -EAGAIN) && wait_ms > 2)
		wait_ms = 2;
	__atomic_store_n(&t->next_check_ns, now_ns() + wait_ms * 1000000u, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&t->refresh);
	pthread_setcancelstate(cancel, NULL);
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
	*ticket = NULL;
	for (int retired = 0;;) {
		uint64_t c = __atomic_load_n(&t->cur, __ATOMIC_SEQ_CST);
		*state = CUR_STATE(c);
		if (*state != TABLES_LIVE)
			return NULL;
		uint64_t *n = &slot->readers[CUR_SET(c)];
		__atomic_add_fetch(n, 1, __ATOMIC_SEQ_CST);
		/* Either the refresher sees us before it unmaps this set, or we
		 * see that `cur` moved on: then step back and take the new one. */
		if (__atomic_load_n(&t->cur, __ATOMIC_SEQ_CST) != c) {
			__atomic_sub_fetch(n, 1, __ATOMIC_RELEASE);
			continue;
		}
		const struct ibssa_shm_header *h =
			__atomic_load_n(&t->views[CUR_SET(c)], __ATOMIC_RELAXED);
		if (!__atomic_load_n(&h->retired, __ATOMIC_ACQUIRE)) {
			*ticket = n;
			return h;
		}
		/* The daemon replaced or withdrew it and will truncate it: look
		 * now rather than read it again. */
		__atomic_sub_fetch(n, 1, __ATOMIC_RELEASE);
		if (++retired > 8) {
			*state = TABLES_NONE;
			return NULL;
		}
		tables_refresh(t, 1);
	}
}

void tables_leave(uint64_t *ticket)
{
	if (ticket)
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

int tables_status(struct path_tables *t, char *why, size_t why_len)
{
	int cancel;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	pthread_mutex_lock(&t->refresh);
	int err = t->err;
	if (why && why_len)
		snprintf(why, why_len, "%s", t->why);
	pthread_mutex_unlock(&t->refresh);
	pthread_setcancelstate(cancel, NULL);
	return err;
}
