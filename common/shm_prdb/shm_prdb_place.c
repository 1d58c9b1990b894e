/* shm_prdb_place.c: where the table objects live and who may own them
 * (shm_prdb_format.h). The writer and every reader apply the same rules,
 * so a place that one side refuses the other refuses too, for the same
 * reason, in the same words. */
#include "common/shm_prdb/shm_prdb_format.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ibssa_shm_object_name(const char *socket_path, char *out, size_t out_len)
{
	/* FNV-1a over the absolute path: the daemon and its clients name the
	 * socket the same way (ib_acme -S), so they derive the same name. It
	 * only keeps daemons apart; the directory is what keeps others out. */
	uint64_t h = 1469598103934665603ull;
	char cwd[4096];
	const char *parts[3] = {"", "", socket_path};
	if (socket_path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		parts[0] = cwd;
		parts[1] = "/";
	}
	for (int i = 0; i < 3; ++i)
		for (const unsigned char *p = (const unsigned char *)parts[i]; *p; ++p) {
			h ^= *p;
			h *= 1099511628211ull;
		}
	int n = snprintf(out, out_len, "%s%016llx", IBSSA_SHM_PREFIX, (unsigned long long)h);
	return n < 0 || (size_t)n >= out_len ? -ENAMETOOLONG : 0;
}

int ibssa_shm_dir(uid_t uid, char *out, size_t out_len)
{
	int n = uid == 0 ? snprintf(out, out_len, "%s", IBSSA_SHM_ROOT_DIR)
			 : snprintf(out, out_len, "%s/%s%lu", IBSSA_SHM_DIR, IBSSA_SHM_USER_PREFIX,
				    (unsigned long)uid);
	return n < 0 || (size_t)n >= out_len ? -ENAMETOOLONG : 0;
}

static int refuse(char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(char *why, size_t why_len, const char *fmt, ...)
{
	if (why && why_len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return -EPERM;
}

/* The rules both checks share: the node open on `fd` is of `type`, owned
 * by `uid`, and nobody else may write it. */
static int owned_alone(int fd, const char *path, uid_t uid, mode_t type, const char *kind,
		       struct stat *st, char *why, size_t why_len)
{
	if (fstat(fd, st))
		return refuse(why, why_len, "%s: cannot be examined: %s", path, strerror(errno));
	if ((st->st_mode & S_IFMT) != type)
		return refuse(why, why_len, "%s is not %s (mode 0%lo)", path, kind,
			      (unsigned long)st->st_mode);
	if (st->st_uid != uid)
		return refuse(why, why_len,
			      "%s belongs to uid %lu, not to the daemon's uid %lu: another user "
			      "made it; remove it and restart the daemon",
			      path, (unsigned long)st->st_uid, (unsigned long)uid);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return refuse(why, why_len, "%s may be written by others (mode 0%lo)", path,
			      (unsigned long)(st->st_mode & 07777));
	return 0;
}

int ibssa_shm_check_dir(int dirfd, const char *path, uid_t uid, char *why, size_t why_len)
{
	struct stat st;
	return owned_alone(dirfd, path, uid, S_IFDIR, "a directory", &st, why, why_len);
}

int ibssa_shm_check_object(int fd, const char *path, uid_t uid, char *why, size_t why_len)
{
	struct stat st;
	int rc = owned_alone(fd, path, uid, S_IFREG, "a regular file", &st, why, why_len);
	if (rc)
		return rc;
	if (st.st_size < (off_t)sizeof(struct ibssa_shm_header) || (uint64_t)st.st_size > SIZE_MAX)
		return refuse(why, why_len, "%s has %lu bytes: not a table object", path,
			      (unsigned long)st.st_size);
	return 0;
}
