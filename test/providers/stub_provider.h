/*
 * stub_provider.h: a complete, do-nothing provider table for the test
 * providers that exist to be rejected (or merely counted) by the loader.
 * Each of them fills a table with stub_provider_fill() and then breaks the
 * one thing it is about, so every file shows exactly its own defect.
 *
 * The ops answer nothing: these providers are loaded and checked, never
 * initialised. Header-only (static functions) so each .so stays standalone.
 */
#ifndef IBACM_SSA_TEST_STUB_PROVIDER_H
#define IBACM_SSA_TEST_STUB_PROVIDER_H

#include <errno.h>
#include <string.h>

#include <ibacm_ssa/provider.h>

/* Every provider defines the entry; declaring it checks the signature. */
const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor);

static int stub_init(const struct ssa_core_ops *ops, ssa_core_t *core, void **prov_ctx)
{
	(void)ops;
	(void)core;
	*prov_ctx = NULL;
	return 0;
}

static void stub_close(void *ctx)
{
	(void)ctx;
}

static int stub_open_device(void *prov_ctx, const struct ssa_device_info *dev, void **dev_ctx)
{
	(void)prov_ctx;
	(void)dev;
	*dev_ctx = NULL;
	return 0;
}

static int stub_open_port(void *dev_ctx, const struct ssa_port_info *port,
			  ssa_core_port_t *core_port, void **port_ctx)
{
	(void)dev_ctx;
	(void)port;
	(void)core_port;
	*port_ctx = NULL;
	return 0;
}

static int stub_open_endpoint(void *port_ctx, const struct ssa_endpoint_info *ep, void **ep_ctx)
{
	(void)port_ctx;
	(void)ep;
	*ep_ctx = NULL;
	return 0;
}

static int stub_add_address(void *ep_ctx, const struct ssa_address *addr, void **addr_ctx)
{
	(void)ep_ctx;
	(void)addr;
	*addr_ctx = NULL;
	return 0;
}

static int stub_resolve(void *addr_ctx, const struct ssa_resolve_request *req, uint64_t req_id)
{
	(void)addr_ctx;
	(void)req;
	(void)req_id;
	return -ENOSYS; /* the core answers the client with an error */
}

/* A valid 1.0 table named `name`; the optional ops stay NULL. */
static inline void stub_provider_fill(struct ssa_provider *t, const char *name, uint32_t version)
{
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	t->abi_major = SSA_PROV_ABI_MAJOR;
	t->abi_minor = SSA_PROV_ABI_MINOR;
	strncpy(t->name, name, sizeof(t->name) - 1);
	t->version = version;
	t->description = "loader test stub";
	t->init = stub_init;
	t->fini = stub_close;
	t->open_device = stub_open_device;
	t->close_device = stub_close;
	t->open_port = stub_open_port;
	t->close_port = stub_close;
	t->open_endpoint = stub_open_endpoint;
	t->close_endpoint = stub_close;
	t->add_address = stub_add_address;
	t->remove_address = stub_close;
	t->resolve = stub_resolve;
}

#endif /* IBACM_SSA_TEST_STUB_PROVIDER_H */
