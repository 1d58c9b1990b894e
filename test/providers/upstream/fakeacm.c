/*
 * fakeacm.c: a provider library written for upstream ibacm's interface,
 * compiled against upstream's own <infiniband/acm_prov.h> (Debian's ibacm
 * package) and loaded by the upstream bridge (providers/upstream/) in the
 * tests. Unlike libibacmp.so it needs no verbs device, so it runs on the
 * simulated fabric and shows the bridge's whole mapping at work:
 *
 *  - its constructor reads the options file (acm_get_opts_file) and logs
 *    the value of "fakeacm_tag", and starts an answer thread;
 *  - a path request (or QUERY_SA path query) becomes an SA PathRecord Get
 *    built with acm_alloc_sa_mad/acm_path_comp_mask and sent with
 *    acm_send_sa_mad, from the port's GID (acm_get_gid) to the request's
 *    DGID or DLID; the handler hands the SA's record to the answer thread,
 *    which answers with acm_resolve_response/acm_query_response and counts
 *    ACM_CNTR_ROUTE_QUERY (acm_increment_counter) from that thread;
 *  - any other request is answered ACM_STATUS_EDESTTYPE at once.
 *
 * Built three times (test/providers/local.mk): libfakeacm.so as above,
 * libfakeacm_v2.so reporting provider version 2 (FAKEACM_VERSION), and
 * libfakeacm_unresolved.so calling a function no daemon exports
 * (FAKEACM_UNRESOLVED), which RTLD_NOW must refuse at load.
 */
#include <endian.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/acm_prov.h>
#include <infiniband/umad_types.h>

#ifndef FAKEACM_VERSION
#define FAKEACM_VERSION ACM_PROV_VERSION
#endif

#ifdef FAKEACM_UNRESOLVED
extern void acm_not_in_the_interface(void);
#endif

struct fake_port {
	const struct acm_port *port;
};

struct fake_ep {
	const struct acm_endpoint *endpoint;
	struct fake_port *port;
	uint64_t resolves;
};

/* A request waiting for the SA, then for the answer thread. */
struct fake_req {
	struct fake_req *next;
	uint64_t id;
	int is_query;
	struct acm_msg msg;
};

static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fake_cond = PTHREAD_COND_INITIALIZER;
static struct fake_req *fake_ready; /* for the answer thread */
static int fake_started;

static void *fake_answer_thread(void *arg)
{
	(void)arg;
	for (;;) {
		struct fake_req *req;

		pthread_mutex_lock(&fake_lock);
		while (!fake_ready)
			pthread_cond_wait(&fake_cond, &fake_lock);
		req = fake_ready;
		fake_ready = req->next;
		pthread_mutex_unlock(&fake_lock);

		if (req->msg.hdr.status == ACM_STATUS_SUCCESS)
			acm_increment_counter(ACM_CNTR_ROUTE_QUERY);
		acm_log(1, "answering %llu from the answer thread, status %u\n",
			(unsigned long long)req->id, req->msg.hdr.status);
		if (req->is_query)
			acm_query_response(req->id, &req->msg);
		else
			acm_resolve_response(req->id, &req->msg);
		free(req);
	}
	return NULL;
}

static void fake_hand_over(struct fake_req *req, uint8_t status)
{
	req->msg.hdr.opcode |= ACM_OP_ACK;
	req->msg.hdr.status = status;
	pthread_mutex_lock(&fake_lock);
	req->next = fake_ready;
	fake_ready = req;
	pthread_cond_signal(&fake_cond);
	pthread_mutex_unlock(&fake_lock);
}

static void __attribute__((constructor)) fake_init(void)
{
	const char *file = acm_get_opts_file();
	char line[256], tag[128] = "(none)";
	FILE *f = fopen(file, "r");
	pthread_t thread;

	if (f) {
		while (fgets(line, sizeof(line), f))
			sscanf(line, "fakeacm_tag %127s", tag);
		fclose(f);
	}
	acm_log(0, "options file %s: fakeacm_tag %s\n", file, tag);
	if (pthread_create(&thread, NULL, fake_answer_thread, NULL) == 0) {
		pthread_detach(thread);
		fake_started = 1;
	}
#ifdef FAKEACM_UNRESOLVED
	acm_not_in_the_interface();
#endif
}

static int fake_open_device(const struct acm_device *device, void **dev_context)
{
	acm_log(0, "open_device guid 0x%llx, verbs %s\n",
		(unsigned long long)be64toh(device->dev_guid), device->verbs ? "yes" : "none");
	*dev_context = (void *)device;
	return 0;
}

static void fake_close_device(void *dev_context)
{
	(void)dev_context;
}

static int fake_open_port(const struct acm_port *port, void *dev_context, void **port_context)
{
	struct fake_port *p = calloc(1, sizeof(*p));
	union ibv_gid gid;
	char text[64];

	(void)dev_context;
	if (!p)
		return -1;
	p->port = port;
	if (acm_get_gid((struct acm_port *)port, 0, &gid) == 0) {
		acm_format_name(0, text, sizeof(text), ACM_EP_INFO_ADDRESS_IP6, gid.raw,
				sizeof(gid));
		acm_log(0, "open_port %u gid %s index %u\n", port->port_num, text,
			acm_gid_index((struct acm_port *)port, &gid));
	}
	*port_context = p;
	return 0;
}

static void fake_close_port(void *port_context)
{
	free(port_context);
}

static int fake_open_endpoint(const struct acm_endpoint *endpoint, void *port_context,
			      void **ep_context)
{
	struct fake_ep *ep = calloc(1, sizeof(*ep));

	if (!ep)
		return -1;
	ep->endpoint = endpoint;
	ep->port = port_context;
	acm_log(0, "open_endpoint pkey 0x%04x\n", endpoint->pkey);
	*ep_context = ep;
	return 0;
}

static void fake_close_endpoint(void *ep_context)
{
	free(ep_context);
}

static int fake_add_address(const struct acm_address *addr, void *ep_context, void **addr_context)
{
	acm_log(0, "add_address %s\n", addr->id_string);
	*addr_context = ep_context;
	return 0;
}

static void fake_remove_address(void *addr_context)
{
	(void)addr_context;
}

static void fake_sa_done(struct acm_sa_mad *mad)
{
	struct fake_req *req = mad->context;
	uint8_t status = ACM_STATUS_SUCCESS;

	if (mad->umad.status) {
		status = ACM_STATUS_ETIMEDOUT;
	} else if (mad->sa_mad.mad_hdr.status) {
		status = ACM_STATUS_ENODATA;
	} else {
		req->msg.resolve_data[0].info.path = *(struct ibv_path_record *)mad->sa_mad.data;
		req->msg.resolve_data[0].type = ACM_EP_INFO_PATH;
	}
	acm_free_sa_mad(mad);
	fake_hand_over(req, status);
}

static int fake_request(void *addr_context, struct acm_msg *msg, uint64_t id, int is_query)
{
	struct fake_ep *ep = addr_context;
	struct ibv_path_record *path;
	struct acm_sa_mad *mad;
	struct fake_req *req;

	ep->resolves++;
	req = calloc(1, sizeof(*req));
	if (!req)
		return -1;
	req->id = id;
	req->is_query = is_query;
	req->msg = *msg;
	if (msg->resolve_data[0].type != ACM_EP_INFO_PATH) {
		fake_hand_over(req, ACM_STATUS_EDESTTYPE);
		return 0;
	}
	path = &req->msg.resolve_data[0].info.path;
	if (ib_any_gid(&path->sgid))
		acm_get_gid((struct acm_port *)ep->port->port, 0, &path->sgid);
	path->slid = 0;
	path->reversible_numpath = 0x80 | 1;
	path->pkey = htobe16(ep->endpoint->pkey);

	mad = acm_alloc_sa_mad(ep->endpoint, req, fake_sa_done);
	if (!mad) {
		free(req);
		return -1;
	}
	mad->sa_mad.mad_hdr.base_version = 1;
	mad->sa_mad.mad_hdr.mgmt_class = UMAD_CLASS_SUBN_ADM;
	mad->sa_mad.mad_hdr.class_version = UMAD_SA_CLASS_VERSION;
	mad->sa_mad.mad_hdr.method = UMAD_METHOD_GET;
	mad->sa_mad.mad_hdr.attr_id = htobe16(UMAD_SA_ATTR_PATH_REC);
	mad->sa_mad.comp_mask = acm_path_comp_mask(path);
	memcpy(mad->sa_mad.data, path, sizeof(*path));
	if (acm_send_sa_mad(mad)) {
		acm_free_sa_mad(mad);
		free(req);
		return -1;
	}
	return 0;
}

static int fake_resolve(void *addr_context, struct acm_msg *msg, uint64_t id)
{
	return fake_request(addr_context, msg, id, 0);
}

static int fake_query(void *addr_context, struct acm_msg *msg, uint64_t id)
{
	return fake_request(addr_context, msg, id, 1);
}

static int fake_handle_event(void *port_context, enum ibv_event_type type)
{
	(void)port_context;
	acm_log(0, "event %s\n", ibv_event_type_str(type));
	return 0;
}

static void fake_query_perf(void *ep_context, uint64_t *values, uint8_t *cnt)
{
	struct fake_ep *ep = ep_context;

	memset(values, 0, ACM_MAX_COUNTER * sizeof(values[0]));
	values[ACM_CNTR_RESOLVE] = ep->resolves;
	*cnt = ACM_MAX_COUNTER;
}

static struct acm_provider fake_prov = {
	.size = sizeof(struct acm_provider),
	.version = FAKEACM_VERSION,
	.name = "fakeacm",
	.open_device = fake_open_device,
	.close_device = fake_close_device,
	.open_port = fake_open_port,
	.close_port = fake_close_port,
	.open_endpoint = fake_open_endpoint,
	.close_endpoint = fake_close_endpoint,
	.add_address = fake_add_address,
	.remove_address = fake_remove_address,
	.resolve = fake_resolve,
	.query = fake_query,
	.handle_event = fake_handle_event,
	.query_perf = fake_query_perf,
};

int provider_query(struct acm_provider **provider, uint32_t *version)
{
	if (!fake_started)
		return -1;
	if (provider)
		*provider = &fake_prov;
	if (version)
		*version = FAKEACM_VERSION;
	return 0;
}
