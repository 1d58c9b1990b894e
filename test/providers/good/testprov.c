/*
 * testprov.c: "testprov", a small but complete provider for the loader's
 * unit tests and the daemon's integration tests. It sends nothing on the
 * fabric; it answers from the request and the ports it was given:
 *
 *  - GID destination: DGID is that GID; DLID is the LID of a port of this
 *    provider with that GID, else the low 16 bits of the GID's interface ID.
 *  - LID destination: DLID is that LID; DGID is the GID of a port of this
 *    provider with that LID, else the requesting port's subnet prefix with
 *    the LID as interface ID.
 *  - Path request: DGID/DLID from the request's path record (a missing one
 *    is derived as above); neither given: ACM_STATUS_EINVAL.
 *  - Name, IPv4 or IPv6 destination: known only if it is an address the core
 *    added to one of this provider's endpoints (any port); answered with
 *    that port's GID and LID. Unknown: ACM_STATUS_EDESTADDR.
 *  - Any other address type: ACM_STATUS_EDESTTYPE.
 * SGID/SLID are the requesting port's, the P_Key the endpoint's, MTU 2048,
 * rate 40 Gb/s, reversible, one path.
 *
 * ACM_FLAGS_NODELAY: a destination the endpoint has not answered before is
 * answered ACM_STATUS_ENODATA once, as if resolution had started in the
 * background (upstream acmp's behaviour), and with the path afterwards.
 *
 * Records its calls: every op is logged at debug level, and fini logs one
 * info line "calls: init=1 open_device=1 ..." so a test can check that every
 * open had its close. query_perf gives per endpoint ACM_CNTR_ERROR, _RESOLVE,
 * _NODATA, _ROUTE_QUERY (first answer for a destination) and _ROUTE_CACHE
 * (repeated); the last two also go to the core's counters. query
 * (ACM_FLAGS_QUERY_SA) is answered like resolve, through query_done.
 *
 * collect_metrics (ABI 1.4) gives ibacm_testprov_port_resolves_total per
 * port. With bad_metrics = yes it also gives what the core must refuse
 * (one of each kind the daemon's test checks), among valid families, and
 * last ibacm_testprov_refused_calls_total: how many of its metric calls the
 * core refused so far, which must equal the core's own count. It is not
 * among the calls counted in the fini line.
 *
 * Options ([testprov] section): delay_ms = N answers N ms later from a core
 * timer (default 0: at once, inside resolve); fail_init = yes makes init
 * fail with -EINVAL; bad_metrics = yes (above). Unknown keys are reported
 * through config_warn.
 *
 * Threading: the core's loop thread only, as the ABI says. All state hangs
 * off the init() context, so two instances can coexist in one process.
 */
#include <endian.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <infiniband/acm.h>
#include <infiniband/verbs.h>
#include <ibacm_ssa/provider.h>

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor);

enum tp_op {
	TP_INIT,
	TP_OPEN_DEVICE,
	TP_CLOSE_DEVICE,
	TP_OPEN_PORT,
	TP_CLOSE_PORT,
	TP_PORT_CHANGED,
	TP_OPEN_ENDPOINT,
	TP_CLOSE_ENDPOINT,
	TP_ADD_ADDRESS,
	TP_REMOVE_ADDRESS,
	TP_RESOLVE,
	TP_QUERY,
	TP_QUERY_PERF,
	TP_PORT_EVENT,
	TP_OP_COUNT
};

static const char *const tp_op_names[TP_OP_COUNT] = {
	"init",		"open_device",	 "close_device",   "open_port",	  "close_port",
	"port_changed", "open_endpoint", "close_endpoint", "add_address", "remove_address",
	"resolve",	"query",	 "query_perf",	   "port_event",
};

struct tp_prov;

struct tp_dev {
	struct tp_prov *prov;
	char name[64];
};

struct tp_port {
	struct tp_port *next; /* in prov->ports */
	struct tp_dev *dev;
	char ca_name[64];
	uint8_t port_num;
	uint16_t lid;
	uint64_t gid_prefix; /* host order, as are the two below */
	uint64_t port_guid;
	ssa_core_port_t *core_port;
	uint64_t resolves; /* requests from its endpoints, for the metrics */
};

/* A destination already answered on an endpoint (for NODELAY). */
struct tp_dest {
	struct tp_dest *next;
	union ibv_gid dgid;
	uint16_t dlid; /* host order */
};

struct tp_ep {
	struct tp_port *port;
	uint16_t pkey;
	struct tp_dest *seen;
	uint64_t counters[ACM_MAX_COUNTER];
};

struct tp_addr {
	struct tp_addr *next; /* in prov->addrs */
	struct tp_ep *ep;
	struct ssa_address addr;
};

/* An answer waiting for its delay_ms timer. */
struct tp_delayed {
	struct tp_delayed *next; /* in prov->delayed */
	struct tp_prov *prov;
	uint64_t timer_id;
	uint64_t req_id;
	int is_query;
	uint8_t status;
	struct ibv_path_record path;
};

struct tp_prov {
	const struct ssa_core_ops *ops;
	ssa_core_t *core;
	uint32_t delay_ms;
	int fail_init;
	int bad_metrics;
	uint64_t metric_refusals; /* metric calls the core refused */
	uint64_t calls[TP_OP_COUNT];
	struct tp_port *ports;
	struct tp_addr *addrs;
	struct tp_delayed *delayed;
};

#define TP_LOG(prov, level, ...) (prov)->ops->log((prov)->core, (level), __VA_ARGS__)

/* --- options ------------------------------------------------------------ */

static int tp_parse_bool(const char *v, int *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1") ||
	    !strcasecmp(v, "on"))
		*out = 1;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0") ||
		 !strcasecmp(v, "off"))
		*out = 0;
	else
		return -1;
	return 0;
}

static int tp_option(void *arg, const char *key, const char *value, const char *file, int line)
{
	struct tp_prov *prov = arg;

	if (!strcmp(key, "delay_ms")) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(value, &end, 10);
		if (!*value || *end || errno || v > 60000)
			prov->ops->config_warn(prov->core, file, line,
					       "delay_ms must be a number from 0 to 60000");
		else
			prov->delay_ms = (uint32_t)v;
	} else if (!strcmp(key, "fail_init")) {
		if (tp_parse_bool(value, &prov->fail_init))
			prov->ops->config_warn(prov->core, file, line,
					       "fail_init must be yes or no");
	} else if (!strcmp(key, "bad_metrics")) {
		if (tp_parse_bool(value, &prov->bad_metrics))
			prov->ops->config_warn(prov->core, file, line,
					       "bad_metrics must be yes or no");
	} else {
		prov->ops->config_warn(prov->core, file, line, "unknown option");
	}
	return 0;
}

/* --- answering ----------------------------------------------------------- */

static void tp_answer(struct tp_prov *prov, uint64_t req_id, int is_query, uint8_t status,
		      const struct ibv_path_record *path)
{
	const struct ibv_path_record *p = status == ACM_STATUS_SUCCESS ? path : NULL;

	if (is_query)
		prov->ops->query_done(prov->core, req_id, status, p);
	else
		prov->ops->resolve_done(prov->core, req_id, status, p);
}

static void tp_delayed_fire(void *arg)
{
	struct tp_delayed *d = arg;
	struct tp_prov *prov = d->prov;
	struct tp_delayed **pp;

	for (pp = &prov->delayed; *pp; pp = &(*pp)->next) {
		if (*pp == d) {
			*pp = d->next;
			break;
		}
	}
	tp_answer(prov, d->req_id, d->is_query, d->status, &d->path);
	free(d);
}

static void tp_deliver(struct tp_prov *prov, uint64_t req_id, int is_query, uint8_t status,
		       const struct ibv_path_record *path)
{
	struct tp_delayed *d;

	if (prov->delay_ms && (d = calloc(1, sizeof(*d)))) {
		d->prov = prov;
		d->req_id = req_id;
		d->is_query = is_query;
		d->status = status;
		d->path = *path;
		d->timer_id = prov->ops->timer_add(prov->core, prov->delay_ms, tp_delayed_fire, d);
		if (d->timer_id) {
			d->next = prov->delayed;
			prov->delayed = d;
			return;
		}
		free(d); /* no timer: answer now rather than never */
	}
	tp_answer(prov, req_id, is_query, status, path);
}

/* --- the path convention ------------------------------------------------- */

static void tp_port_gid(const struct tp_port *port, union ibv_gid *gid)
{
	gid->global.subnet_prefix = htobe64(port->gid_prefix);
	gid->global.interface_id = htobe64(port->port_guid);
}

static int tp_gid_is_zero(const union ibv_gid *gid)
{
	static const union ibv_gid zero;

	return !memcmp(gid, &zero, sizeof(zero));
}

static uint16_t tp_lid_for_gid(const struct tp_prov *prov, const union ibv_gid *gid)
{
	const struct tp_port *p;
	union ibv_gid pg;

	for (p = prov->ports; p; p = p->next) {
		tp_port_gid(p, &pg);
		if (!memcmp(&pg, gid, sizeof(pg)))
			return p->lid;
	}
	return (uint16_t)(be64toh(gid->global.interface_id) & 0xffff);
}

static void tp_gid_for_lid(const struct tp_prov *prov, const struct tp_port *from, uint16_t lid,
			   union ibv_gid *gid)
{
	const struct tp_port *p;

	for (p = prov->ports; p; p = p->next) {
		if (p->lid == lid) {
			tp_port_gid(p, gid);
			return;
		}
	}
	gid->global.subnet_prefix = htobe64(from->gid_prefix);
	gid->global.interface_id = htobe64(lid);
}

static const struct tp_addr *tp_find_addr(const struct tp_prov *prov, const struct ssa_address *a)
{
	const struct tp_addr *t;
	size_t len;

	switch (a->type) {
	case SSA_ADDR_IP:
		len = 4;
		break;
	case SSA_ADDR_IP6:
		len = 16;
		break;
	default:
		len = sizeof(a->data);
		break; /* names: NUL-padded */
	}
	for (t = prov->addrs; t; t = t->next) {
		if (t->addr.type != a->type)
			continue;
		if (a->type == SSA_ADDR_NAME
			    ? !strncmp((const char *)t->addr.data, (const char *)a->data, len)
			    : !memcmp(t->addr.data, a->data, len))
			return t;
	}
	return NULL;
}

/* Fills `path` for `req` from endpoint `ep`; returns an ACM_STATUS_*. */
static uint8_t tp_build_path(const struct tp_prov *prov, const struct tp_ep *ep,
			     const struct ssa_resolve_request *req, struct ibv_path_record *path)
{
	const struct tp_port *port = ep->port;
	union ibv_gid dgid;
	uint16_t dlid = 0, be;
	const struct tp_addr *known;

	memset(path, 0, sizeof(*path));
	memset(&dgid, 0, sizeof(dgid));
	if (req->has_path) {
		dgid = req->path.dgid;
		dlid = be16toh(req->path.dlid);
		if (tp_gid_is_zero(&dgid) && !dlid)
			return ACM_STATUS_EINVAL;
		if (tp_gid_is_zero(&dgid))
			tp_gid_for_lid(prov, port, dlid, &dgid);
		else if (!dlid)
			dlid = tp_lid_for_gid(prov, &dgid);
		path->service_id = req->path.service_id;
	} else {
		switch (req->dst.type) {
		case SSA_ADDR_GID:
			memcpy(dgid.raw, req->dst.data, sizeof(dgid.raw));
			dlid = tp_lid_for_gid(prov, &dgid);
			break;
		case SSA_ADDR_LID:
			memcpy(&be, req->dst.data, sizeof(be));
			dlid = be16toh(be);
			if (!dlid)
				return ACM_STATUS_EDESTADDR;
			tp_gid_for_lid(prov, port, dlid, &dgid);
			break;
		case SSA_ADDR_NAME:
		case SSA_ADDR_IP:
		case SSA_ADDR_IP6:
			known = tp_find_addr(prov, &req->dst);
			if (!known)
				return ACM_STATUS_EDESTADDR;
			tp_port_gid(known->ep->port, &dgid);
			dlid = known->ep->port->lid;
			break;
		default:
			return ACM_STATUS_EDESTTYPE;
		}
	}
	path->dgid = dgid;
	path->dlid = htobe16(dlid);
	tp_port_gid(port, &path->sgid);
	path->slid = htobe16(port->lid);
	path->pkey = htobe16(ep->pkey);
	path->reversible_numpath = 0x80 | 1;
	path->mtu = (2 << 6) | IBV_MTU_2048; /* selector 2: exactly */
	path->rate = (2 << 6) | IBV_RATE_40_GBPS;
	path->packetlifetime = (2 << 6) | 18;
	return ACM_STATUS_SUCCESS;
}

static int tp_seen(const struct tp_ep *ep, const struct ibv_path_record *path)
{
	const struct tp_dest *d;

	for (d = ep->seen; d; d = d->next)
		if (d->dlid == be16toh(path->dlid) &&
		    !memcmp(&d->dgid, &path->dgid, sizeof(d->dgid)))
			return 1;
	return 0;
}

static void tp_remember(struct tp_ep *ep, const struct ibv_path_record *path)
{
	struct tp_dest *d = calloc(1, sizeof(*d));

	if (!d)
		return; /* only NODELAY answers suffer: ENODATA again next time */
	d->dgid = path->dgid;
	d->dlid = be16toh(path->dlid);
	d->next = ep->seen;
	ep->seen = d;
}

static void tp_count(struct tp_prov *prov, struct tp_ep *ep, int counter)
{
	ep->counters[counter]++;
	if (SSA_HAS_MEMBER(prov->ops, counter_add) && prov->ops->counter_add)
		prov->ops->counter_add(prov->core, counter, 1);
}

static int tp_handle(void *addr_ctx, const struct ssa_resolve_request *req, uint64_t req_id,
		     int is_query)
{
	struct tp_addr *a = addr_ctx;
	struct tp_ep *ep = a->ep;
	struct tp_prov *prov = ep->port->dev->prov;
	struct ibv_path_record path;
	uint8_t status;

	prov->calls[is_query ? TP_QUERY : TP_RESOLVE]++;
	if (!SSA_HAS_MEMBER(req, path))
		return -EINVAL;
	status = tp_build_path(prov, ep, req, &path);
	ep->counters[ACM_CNTR_RESOLVE]++;
	ep->port->resolves++;
	if (status == ACM_STATUS_SUCCESS) {
		if (tp_seen(ep, &path)) {
			tp_count(prov, ep, ACM_CNTR_ROUTE_CACHE);
		} else {
			tp_count(prov, ep, ACM_CNTR_ROUTE_QUERY);
			tp_remember(ep, &path);
			if (req->flags & ACM_FLAGS_NODELAY)
				status = ACM_STATUS_ENODATA;
		}
	}
	if (status == ACM_STATUS_ENODATA)
		ep->counters[ACM_CNTR_NODATA]++;
	else if (status != ACM_STATUS_SUCCESS)
		ep->counters[ACM_CNTR_ERROR]++;
	TP_LOG(prov, SSA_LOG_DEBUG, "%s %llu: status %u, dlid %u", is_query ? "query" : "resolve",
	       (unsigned long long)req_id, status, be16toh(path.dlid));
	tp_deliver(prov, req_id, is_query, status, &path);
	return 0;
}

/* --- the ops ------------------------------------------------------------- */

static int tp_init(const struct ssa_core_ops *ops, ssa_core_t *core, void **prov_ctx)
{
	struct tp_prov *prov;

	/* The provider's side of the size rule: it uses every 1.0 core op. */
	if (!ops || ops->abi_major != SSA_PROV_ABI_MAJOR || ops->size < SSA_CORE_OPS_V1_0_SIZE)
		return -EPROTO;
	prov = calloc(1, sizeof(*prov));
	if (!prov)
		return -ENOMEM;
	prov->ops = ops;
	prov->core = core;
	prov->calls[TP_INIT]++;
	ops->config_foreach(core, tp_option, prov);
	if (prov->fail_init) {
		TP_LOG(prov, SSA_LOG_WARN, "fail_init is set: not starting");
		free(prov);
		return -EINVAL;
	}
	TP_LOG(prov, SSA_LOG_INFO, "started (delay_ms %u)", prov->delay_ms);
	*prov_ctx = prov;
	return 0;
}

static void tp_fini(void *prov_ctx)
{
	struct tp_prov *prov = prov_ctx;
	char line[512];
	size_t n = 0;
	int i;

	/* Every request is answered exactly once: those still waiting now. */
	while (prov->delayed) {
		struct tp_delayed *d = prov->delayed;

		prov->delayed = d->next;
		prov->ops->timer_cancel(prov->core, d->timer_id);
		tp_answer(prov, d->req_id, d->is_query, ACM_STATUS_ENOTCONN, NULL);
		free(d);
	}
	line[0] = '\0';
	for (i = 0; i < TP_OP_COUNT && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %s=%llu", tp_op_names[i],
				      (unsigned long long)prov->calls[i]);
	TP_LOG(prov, SSA_LOG_INFO, "calls:%s", line);
	free(prov);
}

static int tp_open_device(void *prov_ctx, const struct ssa_device_info *dev, void **dev_ctx)
{
	struct tp_prov *prov = prov_ctx;
	struct tp_dev *d;

	prov->calls[TP_OPEN_DEVICE]++;
	if (!SSA_HAS_MEMBER(dev, port_count) || !dev->name)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->prov = prov;
	strncpy(d->name, dev->name, sizeof(d->name) - 1);
	TP_LOG(prov, SSA_LOG_DEBUG, "open_device %s", d->name);
	*dev_ctx = d;
	return 0;
}

static void tp_close_device(void *dev_ctx)
{
	struct tp_dev *d = dev_ctx;

	d->prov->calls[TP_CLOSE_DEVICE]++;
	TP_LOG(d->prov, SSA_LOG_DEBUG, "close_device %s", d->name);
	free(d);
}

static void tp_port_update(struct tp_port *p, const struct ssa_port_info *info)
{
	p->lid = info->lid;
	p->gid_prefix = info->gid_prefix;
	p->port_guid = info->port_guid;
}

static int tp_open_port(void *dev_ctx, const struct ssa_port_info *info, ssa_core_port_t *core_port,
			void **port_ctx)
{
	struct tp_dev *d = dev_ctx;
	struct tp_port *p;

	d->prov->calls[TP_OPEN_PORT]++;
	if (!SSA_HAS_MEMBER(info, pkeys))
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->dev = d;
	if (info->ca_name)
		strncpy(p->ca_name, info->ca_name, sizeof(p->ca_name) - 1);
	p->port_num = info->port_num;
	p->core_port = core_port;
	tp_port_update(p, info);
	p->next = d->prov->ports;
	d->prov->ports = p;
	TP_LOG(d->prov, SSA_LOG_DEBUG, "open_port %s/%u lid %u", p->ca_name, p->port_num, p->lid);
	*port_ctx = p;
	return 0;
}

static void tp_close_port(void *port_ctx)
{
	struct tp_port *p = port_ctx;
	struct tp_prov *prov = p->dev->prov;
	struct tp_port **pp;

	prov->calls[TP_CLOSE_PORT]++;
	for (pp = &prov->ports; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	TP_LOG(prov, SSA_LOG_DEBUG, "close_port %s/%u", p->ca_name, p->port_num);
	free(p);
}

static void tp_port_changed(void *port_ctx, const struct ssa_port_info *info)
{
	struct tp_port *p = port_ctx;

	p->dev->prov->calls[TP_PORT_CHANGED]++;
	if (!SSA_HAS_MEMBER(info, pkeys))
		return;
	tp_port_update(p, info);
	TP_LOG(p->dev->prov, SSA_LOG_DEBUG, "port_changed %s/%u lid %u", p->ca_name, p->port_num,
	       p->lid);
}

static void tp_port_event(void *port_ctx, int event)
{
	struct tp_port *p = port_ctx;

	p->dev->prov->calls[TP_PORT_EVENT]++;
	TP_LOG(p->dev->prov, SSA_LOG_INFO, "port_event %s/%u %d", p->ca_name, p->port_num, event);
}

static int tp_open_endpoint(void *port_ctx, const struct ssa_endpoint_info *info, void **ep_ctx)
{
	struct tp_port *p = port_ctx;
	struct tp_ep *ep;

	p->dev->prov->calls[TP_OPEN_ENDPOINT]++;
	if (!SSA_HAS_MEMBER(info, pkey_index))
		return -EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	ep->port = p;
	ep->pkey = info->pkey;
	TP_LOG(p->dev->prov, SSA_LOG_DEBUG, "open_endpoint %s/%u pkey 0x%04x", p->ca_name,
	       p->port_num, ep->pkey);
	*ep_ctx = ep;
	return 0;
}

static void tp_close_endpoint(void *ep_ctx)
{
	struct tp_ep *ep = ep_ctx;
	struct tp_prov *prov = ep->port->dev->prov;

	prov->calls[TP_CLOSE_ENDPOINT]++;
	while (ep->seen) {
		struct tp_dest *d = ep->seen;

		ep->seen = d->next;
		free(d);
	}
	TP_LOG(prov, SSA_LOG_DEBUG, "close_endpoint %s/%u pkey 0x%04x", ep->port->ca_name,
	       ep->port->port_num, ep->pkey);
	free(ep);
}

static int tp_add_address(void *ep_ctx, const struct ssa_address *addr, void **addr_ctx)
{
	struct tp_ep *ep = ep_ctx;
	struct tp_prov *prov = ep->port->dev->prov;
	struct tp_addr *a;

	prov->calls[TP_ADD_ADDRESS]++;
	if (!SSA_HAS_MEMBER(addr, data))
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->ep = ep;
	a->addr = *addr;
	a->next = prov->addrs;
	prov->addrs = a;
	TP_LOG(prov, SSA_LOG_DEBUG, "add_address type %u on %s/%u", addr->type, ep->port->ca_name,
	       ep->port->port_num);
	*addr_ctx = a;
	return 0;
}

static void tp_remove_address(void *addr_ctx)
{
	struct tp_addr *a = addr_ctx;
	struct tp_prov *prov = a->ep->port->dev->prov;
	struct tp_addr **pp;

	prov->calls[TP_REMOVE_ADDRESS]++;
	for (pp = &prov->addrs; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	}
	TP_LOG(prov, SSA_LOG_DEBUG, "remove_address type %u", a->addr.type);
	free(a);
}

static int tp_resolve(void *addr_ctx, const struct ssa_resolve_request *req, uint64_t req_id)
{
	return tp_handle(addr_ctx, req, req_id, 0);
}

static int tp_query(void *addr_ctx, const struct ssa_resolve_request *req, uint64_t req_id)
{
	return tp_handle(addr_ctx, req, req_id, 1);
}

static int tp_query_perf(void *ep_ctx, uint64_t *values, uint8_t *count)
{
	struct tp_ep *ep = ep_ctx;
	uint8_t n = *count < ACM_MAX_COUNTER ? *count : ACM_MAX_COUNTER;

	ep->port->dev->prov->calls[TP_QUERY_PERF]++;
	memcpy(values, ep->counters, n * sizeof(values[0]));
	*count = n;
	return 0;
}

/* --- metrics (ABI 1.4) ---------------------------------------------------- */

/* A metric call, its refusal counted. */
#define TP_METRIC(prov, call) ((call) < 0 ? (void)(prov)->metric_refusals++ : (void)0)

/* One of each kind of mistake the core must refuse, between valid calls. */
static void tp_bad_metrics(struct tp_prov *prov, const struct ssa_metrics_ops *m,
			   ssa_metrics_sink_t *sink)
{
	const struct ssa_metric_label core_label = {"port", "mine"};
	const struct ssa_metric_label newline = {"kind", "a\nb"};
	const struct ssa_metric_label not_ascii = {"kind", "caf\xc3\xa9"};
	const struct ssa_metric_label bad_name = {"Kind-2", "x"};
	const struct ssa_metric_label twice[2] = {{"kind", "a"}, {"kind", "b"}};
	const struct ssa_metric_label ok = {"kind", "ok"};

	TP_METRIC(prov, m->family(sink, "testprov_no_prefix_total", SSA_METRIC_COUNTER, "x"));
	TP_METRIC(prov, m->sample(sink, NULL, NULL, 0, 1)); /* of a refused family */
	TP_METRIC(prov, m->family(sink, "ibacm_testprov_Camel_total", SSA_METRIC_COUNTER, "x"));
	TP_METRIC(prov, m->family(sink, "ibacm_testprov:colon", SSA_METRIC_GAUGE, "x"));
	TP_METRIC(prov, m->family(sink, "ibacm_testprov_counter", SSA_METRIC_COUNTER, "x"));
	TP_METRIC(prov, m->family(sink, "ibacm_testprov_gauge_total", SSA_METRIC_GAUGE, "x"));
	TP_METRIC(prov, m->family(sink, "ibacm_testprov_typed", 7, "x"));
	TP_METRIC(prov, m->family(sink, "ibacm_resolves_total", SSA_METRIC_COUNTER, "x"));
	TP_METRIC(prov, m->family(sink, "ibacm_testprov_helpless", SSA_METRIC_GAUGE, ""));
	TP_METRIC(prov, m->family(sink, NULL, SSA_METRIC_GAUGE, "x"));

	TP_METRIC(prov, m->family(sink, "ibacm_testprov_samples_total", SSA_METRIC_COUNTER,
				  "Valid samples among refused ones."));
	TP_METRIC(prov, m->sample(sink, NULL, &core_label, 1, 1));
	TP_METRIC(prov, m->sample(sink, NULL, &newline, 1, 1));
	TP_METRIC(prov, m->sample(sink, NULL, &not_ascii, 1, 1));
	TP_METRIC(prov, m->sample(sink, NULL, &bad_name, 1, 1));
	TP_METRIC(prov, m->sample(sink, NULL, twice, 2, 1));
	TP_METRIC(prov, m->sample(sink, NULL, &ok, 1, -1));
	TP_METRIC(prov, m->sample(sink, NULL, &ok, 1, NAN));
	TP_METRIC(prov, m->sample(sink, (ssa_core_port_t *)prov, &ok, 1, 1)); /* not a port */
	TP_METRIC(prov, m->sample(sink, NULL, &ok, 1, 1));
	TP_METRIC(prov, m->sample(sink, NULL, &ok, 1, 2)); /* the same series again */
	TP_METRIC(prov, m->family(sink, "ibacm_testprov_samples_total", SSA_METRIC_COUNTER, "x"));
}

static void tp_collect_metrics(void *prov_ctx, const struct ssa_metrics_ops *m,
			       ssa_metrics_sink_t *sink)
{
	struct tp_prov *prov = prov_ctx;
	struct tp_port *p;

	if (prov->bad_metrics)
		tp_bad_metrics(prov, m, sink);
	TP_METRIC(prov, m->family(sink, "ibacm_testprov_port_resolves_total", SSA_METRIC_COUNTER,
				  "Requests from the port's endpoints."));
	for (p = prov->ports; p; p = p->next)
		TP_METRIC(prov, m->sample(sink, p->core_port, NULL, 0, (double)p->resolves));
	if (!prov->bad_metrics)
		return;
	TP_METRIC(prov, m->family(sink, "ibacm_testprov_refused_calls_total", SSA_METRIC_COUNTER,
				  "Metric calls of testprov the core refused."));
	m->sample(sink, NULL, NULL, 0, (double)prov->metric_refusals);
}

static const struct ssa_provider tp_table = {
	.size = sizeof(struct ssa_provider),
	.abi_major = SSA_PROV_ABI_MAJOR,
	.abi_minor = SSA_PROV_ABI_MINOR,
	.name = "testprov",
	.version = 1,
	.description = "test provider: answers from the request, no fabric traffic",
	.init = tp_init,
	.fini = tp_fini,
	.open_device = tp_open_device,
	.close_device = tp_close_device,
	.open_port = tp_open_port,
	.close_port = tp_close_port,
	.port_changed = tp_port_changed,
	.open_endpoint = tp_open_endpoint,
	.close_endpoint = tp_close_endpoint,
	.add_address = tp_add_address,
	.remove_address = tp_remove_address,
	.resolve = tp_resolve,
	.query = tp_query,
	.query_perf = tp_query_perf,
	.port_event = tp_port_event,
	.collect_metrics = tp_collect_metrics,
};

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor)
{
	(void)core_minor; /* any minor: ops appended later are checked by size */
	return core_major == SSA_PROV_ABI_MAJOR ? &tp_table : NULL;
}
