/* path_socket.c: see path_socket.h. */
#include "libibssa_path/path_socket.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int socket_init(struct path_socket *s, const char *path, int timeout_ms)
{
	memset(s, 0, sizeof(*s));
	if (strlen(path) >= sizeof(s->path))
		return -ENAMETOOLONG;
	strcpy(s->path, path);
	s->timeout_ms = timeout_ms > 0 ? timeout_ms : 10000;
	s->fd = -1;
	s->tid = 1;
	return pthread_mutex_init(&s->lock, NULL) ? -ENOMEM : 0;
}

void socket_destroy(struct path_socket *s)
{
	if (s->fd >= 0)
		close(s->fd);
	pthread_mutex_destroy(&s->lock);
}

static int connect_unix(struct path_socket *s)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, s->path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = errno;
		close(fd);
		return -err;
	}
	s->fd = fd;
	return 0;
}

static int wait_for(struct path_socket *s, short events)
{
	struct pollfd p = {.fd = s->fd, .events = events};
	for (;;) {
		int n = poll(&p, 1, s->timeout_ms);
		if (n > 0)
			return 0;
		if (n == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

static int io(struct path_socket *s, void *buf, size_t len, int sending)
{
	size_t done = 0;
	while (done < len) {
		int rc = wait_for(s, sending ? POLLOUT : POLLIN);
		if (rc)
			return rc;
		ssize_t n = sending ? send(s->fd, (char *)buf + done, len - done, MSG_NOSIGNAL)
				    : recv(s->fd, (char *)buf + done, len - done, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		done += (size_t)n;
	}
	return 0;
}

static int status_errno(uint8_t status)
{
	/* As ib_acme reports them. */
	switch (status) {
	case ACM_STATUS_ENOMEM:
		return -ENOMEM;
	case ACM_STATUS_ENODATA:
		return -ENODATA;
	case ACM_STATUS_ENOTCONN:
		return -ENOTCONN;
	case ACM_STATUS_ETIMEDOUT:
		return -ETIMEDOUT;
	case ACM_STATUS_ESRCADDR:
	case ACM_STATUS_EDESTADDR:
		return -EADDRNOTAVAIL;
	default:
		return -EINVAL;
	}
}

/* *answered: the daemon replied (the connection is in step). */
static int transact(struct path_socket *s, const struct acm_ep_addr_data *entries, int count,
		    struct ibv_path_record *out, struct acm_ep_addr_data *src, int *answered)
{
	struct acm_msg msg;
	memset(&msg, 0, sizeof(msg));
	msg.hdr.version = ACM_VERSION;
	msg.hdr.opcode = ACM_OP_RESOLVE;
	/* Resolve lengths, flags and types are in host order (acm.h v1). */
	msg.hdr.length = (uint16_t)(ACM_MSG_HDR_LENGTH + count * ACM_MSG_EP_LENGTH);
	msg.hdr.tid = s->tid++;
	memcpy(msg.resolve_data, entries, (size_t)count * ACM_MSG_EP_LENGTH);
	int rc = io(s, &msg, msg.hdr.length, 1);
	if (!rc)
		rc = io(s, &msg.hdr, ACM_MSG_HDR_LENGTH, 0);
	if (rc)
		return rc;
	if (msg.hdr.version != ACM_VERSION || (msg.hdr.opcode & ACM_OP_MASK) != ACM_OP_RESOLVE ||
	    msg.hdr.length < ACM_MSG_HDR_LENGTH || msg.hdr.length > sizeof(msg) ||
	    (msg.hdr.length - ACM_MSG_HDR_LENGTH) % ACM_MSG_EP_LENGTH)
		return -EPROTO;
	rc = io(s, msg.data, msg.hdr.length - ACM_MSG_HDR_LENGTH, 0);
	if (rc)
		return rc;
	*answered = 1;
	if (msg.hdr.status != ACM_STATUS_SUCCESS)
		return status_errno(msg.hdr.status);
	int n = (msg.hdr.length - ACM_MSG_HDR_LENGTH) / ACM_MSG_EP_LENGTH, found = 0;
	for (int i = 0; i < n; ++i) {
		const struct acm_ep_addr_data *e = &msg.resolve_data[i];
		if (e->type == ACM_EP_INFO_PATH && !found) {
			*out = e->info.path;
			found = 1;
		} else if ((e->flags & ACM_EP_FLAG_SOURCE) && src) {
			*src = *e;
		}
	}
	return found ? 0 : -EPROTO;
}

/* One request, on the kept connection or a new one. */
static int ask(struct path_socket *s, const struct acm_ep_addr_data *entries, int count,
	       struct ibv_path_record *out, struct acm_ep_addr_data *src, int *answered)
{
	int rc = s->fd >= 0 ? 0 : connect_unix(s);
	if (!rc)
		rc = transact(s, entries, count, out, src, answered);
	if (rc && !*answered && s->fd >= 0) {
		/* A late reply must not be taken for the next request's. */
		close(s->fd);
		s->fd = -1;
	}
	return rc;
}

int socket_resolve(struct path_socket *s, const struct acm_ep_addr_data *entries, int count,
		   struct ibv_path_record *out, struct acm_ep_addr_data *src)
{
	if (count < 1 || count > 8)
		return -EINVAL;
	if (src)
		memset(src, 0, sizeof(*src));
	pthread_mutex_lock(&s->lock);
	int answered = 0, kept = s->fd >= 0;
	int rc = ask(s, entries, count, out, src, &answered);
	/* A kept connection the daemon closed since (it restarted while the
	 * tables answered everything) breaks on its first use. A resolve is
	 * safe to repeat: ask once more on a new connection rather than fail
	 * the request for a connection that was gone before it was made. */
	if (kept && !answered && (rc == -ECONNRESET || rc == -EPIPE))
		rc = ask(s, entries, count, out, src, &answered);
	pthread_mutex_unlock(&s->lock);
	return rc;
}
