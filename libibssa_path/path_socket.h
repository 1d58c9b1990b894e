/* path_socket.h: the library's way to the daemon when the tables cannot
 * answer: one acm.h (version 1) connection per handle, one request at a
 * time under a mutex (the slow path), connected on first use and again
 * after any failure, every wait bounded by the timeout. */
#ifndef IBACM_SSA_LIBIBSSA_PATH_PATH_SOCKET_H
#define IBACM_SSA_LIBIBSSA_PATH_PATH_SOCKET_H

#include <infiniband/acm.h>
#include <pthread.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* for the fuzzer */
#endif

struct path_socket {
	char path[108];
	int timeout_ms;
	pthread_mutex_t lock; /* guards fd and tid */
	int fd;
	uint64_t tid;
};

int socket_init(struct path_socket *s, const char *path, int timeout_ms);
void socket_destroy(struct path_socket *s);
/* Sends a resolve request of `count` entries; on success, the first path
 * record of the answer in `out` and the source the daemon chose (if it
 * said) in `src`. Returns 0, the daemon's status as -errno (ENODATA,
 * EADDRNOTAVAIL, ...) or a transport error. */
int socket_resolve(struct path_socket *s, const struct acm_ep_addr_data *entries, int count,
		   struct ibv_path_record *out, struct acm_ep_addr_data *src);

#ifdef __cplusplus
}
#endif

#endif
