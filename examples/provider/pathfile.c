/*
 * pathfile.c: "pathfile", an example ibacm-ssa provider that answers path
 * records from a static file instead of asking the fabric. It is built
 * outside the ibacm-ssa tree, against the installed SDK only (the header
 * <ibacm_ssa/provider.h> and `pkg-config ibacm-ssa-prov`); ibacm_prov(7)
 * walks through it.
 *
 * The file (option path_file in the [pathfile] section) has one destination
 * per line, '#' starting a comment:
 *
 *     # DGID                        DLID  SL  MTU   RATE
 *     fe80::2:c903:0:a001           0x64  0   2048  40
 *
 * DGID in IPv6 notation, DLID decimal or 0x hex, SL 0-15, MTU in bytes
 * (256 .. 4096) and RATE in Gb/s (2.5 10 14 20 25 30 40 50 56 60 80 100
 * 112 120 168 200 300 400 600). A bad line is logged as a warning with
 * file and line and skipped (config_warn is for the options file: the
 * daemon does not start with a bad option).
 *
 * Requests: a GID or LID destination, or a path request (ib_acme -f g|l),
 * is looked up by DGID, else by DLID; the answer's source is the requesting
 * port (SGID, SLID) and its P_Key the endpoint's. An unknown destination is
 * answered ACM_STATUS_EDESTADDR, another address type (name, IP)
 * ACM_STATUS_EDESTTYPE. Path queries (ACM_FLAGS_QUERY_SA, ib_acme -v) get the
 * same record through query_done. Everything is answered at once, so
 * NODELAY requests need nothing special.
 *
 * Threading: every op runs on the core's event-loop thread (the ABI's rule),
 * so nothing here needs a lock. All state hangs off init()'s context.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/acm.h>
#include <ibacm_ssa/provider.h>

/* The one exported symbol (the version script hides everything else). */
const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor);

struct pf_record {
	union ibv_gid dgid;
	uint16_t dlid; /* host order */
	uint8_t sl;
	uint8_t mtu;  /* enum ibv_mtu */
	uint8_t rate; /* enum ibv_rate */
};

struct pf_prov {
	const struct ssa_core_ops *ops;
	ssa_core_t *core;
	char path_file[4096];
	int upstream_file; /* the options come from an upstream ibacm_opts.cfg */
	struct pf_record *records;
	size_t count;
};

struct pf_port {
	struct pf_prov *prov;
	union ibv_gid gid; /* network order */
	uint16_t lid;	   /* host order */
};

struct pf_ep {
	struct pf_port *port;
	uint16_t pkey;
};

#define PF_LOG(prov, level, ...) (prov)->ops->log((prov)->core, (level), __VA_ARGS__)

/* --- the path file --------------------------------------------------------- */

static int pf_mtu(unsigned long bytes, uint8_t *mtu)
{
	static const unsigned long sizes[] = {256, 512, 1024, 2048, 4096};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (sizes[i] == bytes) {
			*mtu = (uint8_t)(IBV_MTU_256 + i);
			return 0;
		}
	}
	return -1;
}

static int pf_rate(const char *gbps, uint8_t *rate)
{
	static const struct {
		const char *text;
		enum ibv_rate rate;
	} rates[] = {
		{"2.5", IBV_RATE_2_5_GBPS}, {"5", IBV_RATE_5_GBPS},	{"10", IBV_RATE_10_GBPS},
		{"14", IBV_RATE_14_GBPS},   {"20", IBV_RATE_20_GBPS},	{"25", IBV_RATE_25_GBPS},
		{"30", IBV_RATE_30_GBPS},   {"40", IBV_RATE_40_GBPS},	{"50", IBV_RATE_50_GBPS},
		{"56", IBV_RATE_56_GBPS},   {"60", IBV_RATE_60_GBPS},	{"80", IBV_RATE_80_GBPS},
		{"100", IBV_RATE_100_GBPS}, {"112", IBV_RATE_112_GBPS}, {"120", IBV_RATE_120_GBPS},
		{"168", IBV_RATE_168_GBPS}, {"200", IBV_RATE_200_GBPS}, {"300", IBV_RATE_300_GBPS},
		{"400", IBV_RATE_400_GBPS}, {"600", IBV_RATE_600_GBPS},
	};
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		if (!strcmp(rates[i].text, gbps)) {
			*rate = (uint8_t)rates[i].rate;
			return 0;
		}
	}
	return -1;
}

static int pf_number(const char *text, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(text, &end, 0);
	return (!*text || *end || errno || *out > max) ? -1 : 0;
}

/* Parses one line's fields into `rec`; returns NULL or what is wrong. */
static const char *pf_parse_line(char *line, struct pf_record *rec)
{
	char *field[6], *save = NULL, *tok;
	unsigned long dlid, sl, mtu;
	int n = 0;

	for (tok = strtok_r(line, " \t\r\n", &save); tok && n < 6;
	     tok = strtok_r(NULL, " \t\r\n", &save))
		field[n++] = tok;
	if (n != 5)
		return "expected 5 fields: DGID DLID SL MTU RATE";
	memset(rec, 0, sizeof(*rec));
	if (inet_pton(AF_INET6, field[0], rec->dgid.raw) != 1)
		return "DGID is not a GID (IPv6 notation)";
	if (pf_number(field[1], 0xbfff, &dlid) || dlid == 0)
		return "DLID must be a unicast LID, 1 to 0xbfff";
	if (pf_number(field[2], 15, &sl))
		return "SL must be 0 to 15";
	if (pf_number(field[3], 4096, &mtu) || pf_mtu(mtu, &rec->mtu))
		return "MTU must be 256, 512, 1024, 2048 or 4096";
	if (pf_rate(field[4], &rec->rate))
		return "RATE is not a known rate in Gb/s";
	rec->dlid = (uint16_t)dlid;
	rec->sl = (uint8_t)sl;
	return NULL;
}

/* Reads the whole file; bad lines are reported and skipped. */
static int pf_load(struct pf_prov *prov)
{
	FILE *f = fopen(prov->path_file, "r");
	char line[512];
	int lineno = 0;

	if (!f) {
		int err = errno;

		PF_LOG(prov, SSA_LOG_ERROR, "cannot open path_file %s: %s", prov->path_file,
		       strerror(err));
		return -err;
	}
	while (fgets(line, sizeof(line), f)) {
		struct pf_record rec, *grown;
		const char *why;
		char *hash = strchr(line, '#');

		lineno++;
		if (hash)
			*hash = '\0';
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		why = pf_parse_line(line, &rec);
		if (why) {
			prov->ops->log(prov->core, SSA_LOG_WARN, "%s:%d: %s", prov->path_file,
				       lineno, why);
			continue;
		}
		grown = realloc(prov->records, (prov->count + 1) * sizeof(rec));
		if (!grown) {
			fclose(f);
			return -ENOMEM;
		}
		prov->records = grown;
		prov->records[prov->count++] = rec;
	}
	fclose(f);
	PF_LOG(prov, SSA_LOG_INFO, "%zu path records from %s", prov->count, prov->path_file);
	return 0;
}

static const struct pf_record *pf_find(const struct pf_prov *prov, const union ibv_gid *dgid,
				       uint16_t dlid)
{
	static const union ibv_gid zero;
	int by_gid = memcmp(dgid, &zero, sizeof(zero)) != 0;
	size_t i;

	for (i = 0; i < prov->count; i++) {
		const struct pf_record *r = &prov->records[i];

		if (by_gid ? !memcmp(&r->dgid, dgid, sizeof(*dgid)) : r->dlid == dlid)
			return r;
	}
	return NULL;
}

/* --- answering ------------------------------------------------------------- */

/* Looks the request up; fills `path` and returns an ACM_STATUS_*. */
static uint8_t pf_lookup(const struct pf_ep *ep, const struct ssa_resolve_request *req,
			 struct ibv_path_record *path)
{
	const struct pf_prov *prov = ep->port->prov;
	const struct pf_record *rec;
	union ibv_gid dgid;
	uint16_t dlid = 0, be;

	memset(&dgid, 0, sizeof(dgid));
	memset(path, 0, sizeof(*path));
	if (req->has_path) {
		dgid = req->path.dgid;
		dlid = be16toh(req->path.dlid);
		path->service_id = req->path.service_id;
	} else if (req->dst.type == SSA_ADDR_GID) {
		memcpy(dgid.raw, req->dst.data, sizeof(dgid.raw));
	} else if (req->dst.type == SSA_ADDR_LID) {
		memcpy(&be, req->dst.data, sizeof(be));
		dlid = be16toh(be);
	} else {
		return ACM_STATUS_EDESTTYPE;
	}
	rec = pf_find(prov, &dgid, dlid);
	if (!rec)
		return ACM_STATUS_EDESTADDR;
	path->dgid = rec->dgid;
	path->dlid = htobe16(rec->dlid);
	path->sgid = ep->port->gid;
	path->slid = htobe16(ep->port->lid);
	path->pkey = htobe16(ep->pkey);
	path->qosclass_sl = htobe16(rec->sl);
	path->reversible_numpath = 0x80 | 1; /* reversible, one path */
	path->mtu = (2 << 6) | rec->mtu;     /* selector 2: exactly this */
	path->rate = (2 << 6) | rec->rate;
	path->packetlifetime = (2 << 6) | 18;
	return ACM_STATUS_SUCCESS;
}

static int pf_answer(void *addr_ctx, const struct ssa_resolve_request *req, uint64_t req_id,
		     int is_query)
{
	struct pf_ep *ep = addr_ctx; /* add_address hands back the endpoint */
	struct pf_prov *prov = ep->port->prov;
	struct ibv_path_record path;
	uint8_t status;

	/* A request struct from a core older than the member we read. */
	if (!SSA_HAS_MEMBER(req, path))
		return -EINVAL;
	status = pf_lookup(ep, req, &path);
	if (status == ACM_STATUS_SUCCESS && SSA_HAS_MEMBER(prov->ops, counter_add))
		prov->ops->counter_add(prov->core, ACM_CNTR_ROUTE_CACHE, 1);
	PF_LOG(prov, SSA_LOG_DEBUG, "%s %llu: status %u dlid %u", is_query ? "query" : "resolve",
	       (unsigned long long)req_id, status, be16toh(path.dlid));
	if (is_query)
		prov->ops->query_done(prov->core, req_id, status, &path);
	else
		prov->ops->resolve_done(prov->core, req_id, status, &path);
	return 0;
}

static int pf_resolve(void *addr_ctx, const struct ssa_resolve_request *req, uint64_t req_id)
{
	return pf_answer(addr_ctx, req, req_id, 0);
}

static int pf_query(void *addr_ctx, const struct ssa_resolve_request *req, uint64_t req_id)
{
	return pf_answer(addr_ctx, req, req_id, 1);
}

/* --- lifecycle ------------------------------------------------------------- */

static int pf_option(void *arg, const char *key, const char *value, const char *file, int line)
{
	struct pf_prov *prov = arg;

	if (!strcmp(key, "path_file")) {
		if (strlen(value) >= sizeof(prov->path_file))
			prov->ops->config_warn(prov->core, file, line, "path_file is too long");
		else
			strcpy(prov->path_file, value);
	} else if (prov->upstream_file) {
		/* Every provider sees every line of an upstream file: not a mistake. */
		PF_LOG(prov, SSA_LOG_DEBUG, "%s:%d: option '%s' is not ours", file, line, key);
	} else {
		prov->ops->config_warn(prov->core, file, line, "unknown option");
	}
	return 0;
}

static int pf_init(const struct ssa_core_ops *ops, ssa_core_t *core, void **prov_ctx)
{
	struct pf_prov *prov;
	int rc;

	/* The provider's side of the size rule: it uses every 1.0 core op. */
	if (!ops || ops->abi_major != SSA_PROV_ABI_MAJOR || ops->size < SSA_CORE_OPS_V1_0_SIZE)
		return -EPROTO;
	prov = calloc(1, sizeof(*prov));
	if (!prov)
		return -ENOMEM;
	prov->ops = ops;
	prov->core = core;
	/* A core op appended after 1.0 (here 1.2's): check it is there. An older
	 * core does not say; then the options are our own section's. */
	prov->upstream_file = SSA_HAS_MEMBER(ops, config_format) && ops->config_format &&
			      ops->config_format(core) == SSA_CONFIG_UPSTREAM;
	ops->config_foreach(core, pf_option, prov);
	if (!prov->path_file[0]) {
		PF_LOG(prov, SSA_LOG_ERROR, "no path_file in the [pathfile] section");
		free(prov);
		return -EINVAL;
	}
	rc = pf_load(prov);
	if (rc) {
		free(prov->records);
		free(prov);
		return rc;
	}
	*prov_ctx = prov;
	return 0;
}

static void pf_fini(void *prov_ctx)
{
	struct pf_prov *prov = prov_ctx;

	free(prov->records);
	free(prov);
}

/* Devices carry nothing this provider needs: the device context is the
 * provider's own. */
static int pf_open_device(void *prov_ctx, const struct ssa_device_info *dev, void **dev_ctx)
{
	(void)dev;
	*dev_ctx = prov_ctx;
	return 0;
}

static void pf_close_device(void *dev_ctx)
{
	(void)dev_ctx;
}

static void pf_port_update(struct pf_port *p, const struct ssa_port_info *info)
{
	p->lid = info->lid;
	p->gid.global.subnet_prefix = htobe64(info->gid_prefix);
	p->gid.global.interface_id = htobe64(info->port_guid);
}

static int pf_open_port(void *dev_ctx, const struct ssa_port_info *info, ssa_core_port_t *core_port,
			void **port_ctx)
{
	struct pf_port *p;

	(void)core_port; /* for ops->sa_send, which this provider never uses */
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->prov = dev_ctx;
	pf_port_update(p, info);
	*port_ctx = p;
	return 0;
}

static void pf_close_port(void *port_ctx)
{
	free(port_ctx);
}

/* The port's LID or GID may change (an SM sweep): the answers' source does. */
static void pf_port_changed(void *port_ctx, const struct ssa_port_info *info)
{
	pf_port_update(port_ctx, info);
}

static int pf_open_endpoint(void *port_ctx, const struct ssa_endpoint_info *info, void **ep_ctx)
{
	struct pf_ep *ep = calloc(1, sizeof(*ep));

	if (!ep)
		return -ENOMEM;
	ep->port = port_ctx;
	ep->pkey = info->pkey;
	*ep_ctx = ep;
	return 0;
}

static void pf_close_endpoint(void *ep_ctx)
{
	free(ep_ctx);
}

/* Requests come with the address context: the endpoint is all it needs. */
static int pf_add_address(void *ep_ctx, const struct ssa_address *addr, void **addr_ctx)
{
	(void)addr;
	*addr_ctx = ep_ctx;
	return 0;
}

static void pf_remove_address(void *addr_ctx)
{
	(void)addr_ctx;
}

static const struct ssa_provider pf_table = {
	.size = sizeof(struct ssa_provider),
	.abi_major = SSA_PROV_ABI_MAJOR,
	.abi_minor = SSA_PROV_ABI_MINOR,
	.name = "pathfile",
	.version = 1,
	.description = "example: path records from a static file",
	.init = pf_init,
	.fini = pf_fini,
	.open_device = pf_open_device,
	.close_device = pf_close_device,
	.open_port = pf_open_port,
	.close_port = pf_close_port,
	.port_changed = pf_port_changed,
	.open_endpoint = pf_open_endpoint,
	.close_endpoint = pf_close_endpoint,
	.add_address = pf_add_address,
	.remove_address = pf_remove_address,
	.resolve = pf_resolve,
	.query = pf_query,
};

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor)
{
	(void)core_minor; /* any 1.x core: later ops are checked by size */
	return core_major == SSA_PROV_ABI_MAJOR ? &pf_table : NULL;
}
