// ssa_metrics.h: the ssa provider's families in ibacm's metrics file (ABI
// 1.4's collect_metrics; names in ibacm_ssa(7)), read from the pieces that
// keep the numbers: each port's state, the confirmation, the tables'
// publication and the fallback's bound.
#ifndef IBACM_SSA_PROVIDERS_SSA_SSA_METRICS_H
#define IBACM_SSA_PROVIDERS_SSA_SSA_METRICS_H

#include <ibacm_ssa/provider.h>
#include "common/smdb/addr_db.h"
#include "providers/sa/sa_provider.h"
#include "providers/ssa/confirmation.h"
#include "providers/ssa/port_state.h"
#include "providers/ssa/tables_export.h"

namespace ssa {
namespace ssa_provider {

// `addr`: the address database the provider answers from (null: none yet).
void CollectSsaMetrics(const ssa_metrics_ops* ops, ssa_metrics_sink_t* sink, const PortIndex& ports,
                       const Confirmation& confirm, const TablesExport& tables,
                       const sa::SaProvider::BudgetStats& budget, const smdb::AddrDb* addr);

}  // namespace ssa_provider
}  // namespace ssa

#endif
