/*
 * acm_prov_abi.h: upstream ibacm's provider interface (rdma-core's
 * <infiniband/acm_prov.h>, provider version 1), declared here from its
 * public facts so the bridge builds without upstream's header. Upstream
 * provider libraries (libibacmp.so, third-party ones) are compiled against
 * that header: every struct below must match it bit for bit, and the
 * functions are what such a library expects the daemon to export
 * (test/unit/upstream_abi_layout_test.cc compares the layouts with the real
 * header where one is installed).
 *
 * Plain C, kernel-like style like the other ABI header (include/).
 */
#ifndef IBACM_SSA_PROVIDERS_UPSTREAM_ACM_PROV_ABI_H
#define IBACM_SSA_PROVIDERS_UPSTREAM_ACM_PROV_ABI_H

#include <infiniband/acm.h>
#include <infiniband/umad.h>
#include <infiniband/umad_sa.h>
#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The only provider interface version upstream has defined. */
#define UPSTREAM_ACM_PROV_VERSION 1
/* The symbol every upstream provider library exports. */
#define UPSTREAM_PROVIDER_QUERY_SYMBOL "provider_query"

struct acm_device {
  struct ibv_context *verbs;
  __be64 dev_guid;
};

struct acm_port {
  struct acm_device *dev;
  uint8_t port_num;
};

struct acm_endpoint {
  struct acm_port *port;
  uint16_t pkey;
};

struct acm_address {
  struct acm_endpoint *endpoint;
  union acm_ep_info info;
  char *id_string;
  uint16_t type;
};

/* The provider's table, returned by provider_query(). `size` must equal
 * sizeof(struct acm_provider) and the version UPSTREAM_ACM_PROV_VERSION. */
struct acm_provider {
  size_t size;
  uint32_t version;
  const char *name;
  int (*open_device)(const struct acm_device *device, void **dev_context);
  void (*close_device)(void *dev_context);
  int (*open_port)(const struct acm_port *port, void *dev_context, void **port_context);
  void (*close_port)(void *port_context);
  int (*open_endpoint)(const struct acm_endpoint *endpoint, void *port_context, void **ep_context);
  void (*close_endpoint)(void *ep_context);
  int (*add_address)(const struct acm_address *addr, void *ep_context, void **addr_context);
  void (*remove_address)(void *addr_context);
  int (*resolve)(void *addr_context, struct acm_msg *msg, uint64_t id);
  int (*query)(void *addr_context, struct acm_msg *msg, uint64_t id);
  int (*handle_event)(void *port_context, enum ibv_event_type type);
  void (*query_perf)(void *ep_context, uint64_t *values, uint8_t *cnt);
};

typedef int (*upstream_provider_query_fn)(struct acm_provider **provider, uint32_t *version);

/* An SA MAD as upstream providers build it: the umad header immediately
 * followed by the 256-byte SA MAD (64-bit aligned). */
struct acm_sa_mad {
  void *context;
  struct ib_user_mad umad;
  struct umad_sa_packet sa_mad;
};

/* What an upstream provider library calls in the daemon; the bridge exports
 * these (providers/upstream/upstream.map). acm_if_get_sgid is not in the
 * public header but libibacmp.so needs it. */
void acm_write(int level, const char *format, ...) __attribute__((format(printf, 2, 3)));
void acm_format_name(int level, char *name, size_t name_size, uint8_t addr_type,
                     const uint8_t *addr, size_t addr_size);
int ib_any_gid(union ibv_gid *gid);
uint8_t acm_gid_index(struct acm_port *port, union ibv_gid *gid);
int acm_get_gid(struct acm_port *port, int index, union ibv_gid *gid);
__be64 acm_path_comp_mask(struct ibv_path_record *path);
int acm_resolve_response(uint64_t id, struct acm_msg *msg);
int acm_query_response(uint64_t id, struct acm_msg *msg);
enum ibv_rate acm_get_rate(uint8_t width, uint8_t speed);
enum ibv_mtu acm_convert_mtu(int mtu);
enum ibv_rate acm_convert_rate(int rate);
struct acm_sa_mad *acm_alloc_sa_mad(const struct acm_endpoint *endpoint, void *context,
                                    void (*handler)(struct acm_sa_mad *));
void acm_free_sa_mad(struct acm_sa_mad *mad);
int acm_send_sa_mad(struct acm_sa_mad *mad);
const char *acm_get_opts_file(void);
void acm_increment_counter(int type);
int acm_if_get_sgid(char *ifname, union ibv_gid *sgid);

#ifdef __cplusplus
}
#endif

#endif /* IBACM_SSA_PROVIDERS_UPSTREAM_ACM_PROV_ABI_H */
