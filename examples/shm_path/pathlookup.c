/* pathlookup.c: an example libibssa_path application (README). Resolves
 * each destination on the command line through the daemon's shared-memory
 * tables (the socket answers what they do not hold) and prints the
 * answer and where it came from. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibacm_ssa/path.h>

static int lookup(struct ibssa_path *h, const char *kind, const char *dest,
		  struct ibv_path_record *p, struct ibssa_path_answer *a)
{
	unsigned char addr[16];
	if (!strcmp(kind, "lid"))
		return ibssa_path_by_lid(h, 0, (uint16_t)strtoul(dest, NULL, 0), 0, p, a);
	if (!strcmp(kind, "gid")) {
		if (inet_pton(AF_INET6, dest, addr) != 1)
			return -EINVAL;
		return ibssa_path_by_gid(h, NULL, addr, 0, p, a);
	}
	if (!strcmp(kind, "name"))
		return ibssa_path_by_addr(h, IBSSA_PATH_ADDR_NAME, dest, strlen(dest), NULL, 0, p,
					  a);
	if (!strcmp(kind, "ip")) {
		if (inet_pton(AF_INET, dest, addr) == 1)
			return ibssa_path_by_addr(h, IBSSA_PATH_ADDR_IP, addr, 4, NULL, 0, p, a);
		if (inet_pton(AF_INET6, dest, addr) == 1)
			return ibssa_path_by_addr(h, IBSSA_PATH_ADDR_IP6, addr, 16, NULL, 0, p, a);
	}
	return -EINVAL;
}

int main(int argc, char **argv)
{
	const char *socket_path = NULL;
	int i = 1;
	if (argc > 2 && !strcmp(argv[1], "-S")) {
		socket_path = argv[2];
		i = 3;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: %s [-S SOCKET] lid|gid|name|ip DEST...\n", argv[0]);
		return 2;
	}
	struct ibssa_path *h;
	int rc = ibssa_path_open(socket_path, NULL, &h);
	if (rc) {
		fprintf(stderr, "ibssa_path_open: %s\n", strerror(-rc));
		return 1;
	}
	const char *kind = argv[i++];
	int failed = 0;
	for (; i < argc; ++i) {
		struct ibv_path_record p;
		struct ibssa_path_answer a;
		rc = lookup(h, kind, argv[i], &p, &a);
		if (rc) {
			printf("%s: %s\n", argv[i], strerror(-rc));
			failed = 1;
			continue;
		}
		printf("%s: dlid %u sl %u mtu %u from %s", argv[i], ntohs(p.dlid),
		       ntohs(p.qosclass_sl) & 0xf, p.mtu & 0x3f,
		       a.from == IBSSA_PATH_FROM_TABLES ? "tables" : "socket");
		if (a.from == IBSSA_PATH_FROM_TABLES)
			printf(" (epoch %llu)", (unsigned long long)a.epoch);
		printf("\n");
	}
	ibssa_path_close(h);
	return failed;
}
