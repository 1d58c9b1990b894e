/* path_tables.c: see path_tables.h. */
#include "libibssa_path/path_tables.h"

#include <errno.h>
#include <fcntl.h>
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
	t->check_ms = check_ms > 0 ? check_ms : 100;
	if (pthread_rwlock_init(&t->lock, NULL))
		return -ENOMEM;
	if (pthread_mutex_init(&t->refresh, NULL)) {
		pthread_rwlock_destroy(&t->lock);
		return -ENOMEM;
	}
	return 0;
}

void tables_destroy(struct path_tables *t)
{
	if (t->map)
		munmap((void *)t->map, t->len);
	pthread_mutex_destroy(&t->refresh);
	pthread_rwlock_destroy(&t->lock);
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

/* Maps and validates the object open on `fd`; NULL if it is not one. */
static const void *map_object(struct path_tables *t, int fd, const struct stat *st)
{
	if (st->st_size <= 0 || (uint64_t)st->st_size > SIZE_MAX)
		return NULL;
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

/* Puts `map` (may be NULL) in place with `state`; unmaps what it replaces
 * once no reader holds it. */
static void install(struct path_tables *t, const void *map, size_t len, const struct stat *st,
		    int state)
{
	pthread_rwlock_wrlock(&t->lock);
	const void *old = t->map;
	size_t old_len = t->len;
	t->map = map;
	t->len = len;
	t->dev = st ? st->st_dev : 0;
	t->ino = st ? st->st_ino : 0;
	t->state = state;
	pthread_rwlock_unlock(&t->lock);
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
	/* Only the refresher writes map/dev/ino: reading them here is safe. */
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
		return -1;  /* another thread looks right now */
	}
	int state = look(t);
	__atomic_store_n(&t->next_check_ns, now_ns() + (uint64_t)t->check_ms * 1000000u,
			 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&t->refresh);
	return state;
}

const void *tables_enter(struct path_tables *t, int *state)
{
	tables_refresh(t, 0);
	pthread_rwlock_rdlock(&t->lock);
	*state = t->state;
	return t->state == TABLES_LIVE ? t->map : NULL;
}

void tables_leave(struct path_tables *t)
{
	pthread_rwlock_unlock(&t->lock);
}
