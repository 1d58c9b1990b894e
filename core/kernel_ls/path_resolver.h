// path_resolver.h: how a path or address query from inside the daemon
// (the kernel's requests) reaches the providers. The request dispatcher implements it
// with the very code client path queries go through; tests give the kernel
// service a fake.
//
// Loop thread only.
#ifndef IBACM_SSA_CORE_KERNEL_LS_PATH_RESOLVER_H
#define IBACM_SSA_CORE_KERNEL_LS_PATH_RESOLVER_H

#include <cstdint>
#include <functional>
#include <string>

#include <infiniband/sa.h>

namespace ssa {

class PathResolver {
 public:
  // `status` is an ACM_STATUS_* value; `path` is set (wire order) only
  // with ACM_STATUS_SUCCESS and valid only during the call.
  using DoneFn = std::function<void(uint8_t status, const ibv_path_record* path)>;
  virtual ~PathResolver() = default;
  // Resolves `path` (DGID and whatever else is set; a zero SGID means the
  // port `device`/`port_num` names, if the daemon serves it) from the
  // endpoint it leaves from. `done` is called exactly once, now or later.
  virtual void ResolvePath(const ibv_path_record& path, const std::string& device, int port_num,
                           DoneFn done) = 0;
  // Resolves the IP address `addr` (network order; `family` AF_INET or
  // AF_INET6) as a client's resolve of that address would, from the local
  // source the kernel's route picks; the path's DGID is the address's GID.
  // `done` is called exactly once, now or later.
  virtual void ResolveAddress(int family, const uint8_t* addr, DoneFn done) = 0;
};

}  // namespace ssa

#endif
