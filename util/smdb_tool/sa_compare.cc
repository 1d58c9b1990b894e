// sa_compare.cc: RunSaCompare (sa_compare.h).
#include "util/smdb_tool/sa_compare.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>

#include "common/base/big_endian.h"
#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/progress_meter.h"
#include "common/mad/mad_wire.h"
#include "common/mad/sa_client.h"
#include "common/mad/umad_ports.h"
#include "common/smdb/off_subnet.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/prefix_rows.h"
#include "util/smdb_tool/path_text.h"

namespace ssa {
namespace smdb_tool {
namespace {

using Clock = std::chrono::steady_clock;
using smdb::PathStatus;

// Queries handed to the SaClient ahead of the window: enough to keep it
// full, few enough that millions of pairs never sit in its queue at once.
constexpr size_t kQueueAhead = 256;

struct Answer {
  enum State { kPending, kRecord, kNoRecords, kFailed } state = kPending;
  ibv_path_record rec;
  std::string error;
};

// SubnAdmGet(PathRecord) by SLID and DLID, or by SGID and DGID (subnet
// prefix + port GUIDs) with `gids`; nothing else in the mask for the plain
// query, Reversible and NumbPath 1 added with `reversible` (upstream
// ibacm's form, mad::BuildPathRecordGet).
// With `pkey` non-zero the query names that P_Key (as ibacm's do); a
// ServiceID or QoS class of `extra` goes in with its mask bits.
void BuildQuery(uint16_t slid, uint16_t dlid, const uint8_t* sgid, const uint8_t* dgid,
                bool reversible, uint16_t pkey, const smdb::QosQuery& extra, uint8_t* mad) {
  mad::PathRecord q;
  q.pkey = pkey;
  if (extra.has_service_id) q.service_id = extra.service_id;
  if (extra.has_qos_class) q.qos_class = extra.qos_class;
  if (sgid) {
    memcpy(q.sgid, sgid, 16);
    memcpy(q.dgid, dgid, 16);
  } else {
    q.slid = slid;
    q.dlid = dlid;
  }
  if (reversible) {
    mad::BuildPathRecordGet(0, q, 0, 0, mad);
    return;
  }
  mad::EncodePathRecordGet(
      0, q,
      (sgid ? (mad::kPrCompSgid | mad::kPrCompDgid) : (mad::kPrCompSlid | mad::kPrCompDlid)) |
          (pkey ? mad::kPrCompPkey : 0) | (q.service_id ? mad::kPrCompServiceId : 0) |
          (q.qos_class ? mad::kPrCompQosClass : 0),
      mad);
}

// The port GUID owning `lid`, 0 if none.
uint64_t GuidOf(const smdb::SmdbIndex& index, uint16_t lid) {
  uint32_t p = index.PortByLid(lid);
  return p == smdb::SmdbIndex::kNone ? 0 : index.port(p).port_guid;
}

void Record(int status, const uint8_t* resp, size_t len, Answer* a) {
  if (status != 0) {
    a->state = Answer::kFailed;
    a->error = std::string("query failed: ") + strerror(-status);
    return;
  }
  if (mad::MadStatus(resp, len) == mad::kSaStatusNoRecords) {
    a->state = Answer::kNoRecords;
    return;
  }
  mad::PathRecord rec;
  Status st = mad::DecodePathRecordResponse(resp, len, &rec);
  if (!st.ok()) {
    a->state = Answer::kFailed;
    a->error = st.ToString();
    return;
  }
  // The raw bytes, so that reserved bits and selectors are compared too.
  memcpy(&a->rec, resp + mad::kSaDataOffset, sizeof(a->rec));
  a->state = Answer::kRecord;
}

}  // namespace

Status RunSaCompare(const smdb::SmdbIndex& index, const CompareOptions& o, FILE* out,
                    CompareResult* r) {
  *r = CompareResult{};
  // With DGIDs, a pair's second member is the DGID's index in o.dgids.
  const bool to_gids = !o.dgids.empty();
  const bool by_gid = o.by_gid || to_gids;
  std::vector<uint16_t> dgid_indexes;
  for (size_t i = 0; i < o.dgids.size() && i <= 0xFFFF; ++i)
    dgid_indexes.push_back(static_cast<uint16_t>(i));
  const std::vector<uint16_t>& dests = to_gids ? dgid_indexes : o.dlids;
  size_t total = o.slids.size() * dests.size();
  if (total == 0) return Status::Error(EINVAL, "no (SLID, DLID) pair to compare");
  size_t n = o.sample != 0 && o.sample < total ? o.sample : total;
  std::vector<std::pair<uint16_t, uint16_t>> pairs(n);
  for (size_t i = 0; i < n; ++i) {
    size_t k = n == total ? i : static_cast<size_t>(static_cast<unsigned __int128>(i) * total / n);
    pairs[i] = {o.slids[k / dests.size()], dests[k % dests.size()]};
  }

  UmadPort port;
  Status st = PickActivePort(o.port, &port);
  if (!st.ok())
    return WithOffFabricHint(st,
                             "compare asks the SA through a local port: run it on a node of the "
                             "fabric (ssa-smdb dump and paths read saved files anywhere)");
  r->requester_lid = port.lid;
  r->pairs = n;

  smdb::PathEngineOptions eo;
  eo.requester_lid = port.lid;
  eo.require_reversible = o.reversible;
  eo.query = o.query;
  eo.pkey_from_path = o.pkey_from_path;
  smdb::PathEngine engine(&index, eo);
  std::string limits = engine.Limitations();
  if (!limits.empty()) fprintf(out, "warning: the engine cannot predict: %s\n", limits.c_str());
  std::vector<ibv_path_record> mine(n);
  std::vector<PathStatus> mine_status(n);
  std::vector<uint8_t> mine_flags(n, 0);  // kPathInexact* and SL span of an ok record
  // A PRDB's record answers the query with its own P_Key (what ibacm asks):
  // the SA is asked that query for it.
  std::vector<uint16_t> query_pkey(n, o.query.has_pkey ? o.query.pkey : 0);
  // The GIDs of a pair asked by GID: the ports' own, or the DGID given.
  auto pair_gids = [&](size_t i, uint8_t* sgid, uint8_t* dgid) {
    mad::PutGid(index.subnet().subnet_prefix, GuidOf(index, pairs[i].first), sgid);
    if (to_gids)
      memcpy(dgid, o.dgids[pairs[i].second].data(), 16);
    else
      mad::PutGid(index.subnet().subnet_prefix, GuidOf(index, pairs[i].second), dgid);
  };
  for (size_t i = 0; i < n && o.pkey_from_path && !o.prdb; ++i) {
    uint32_t s = index.PortByLid(pairs[i].first), d = smdb::SmdbIndex::kNone;
    if (!to_gids) {
      d = index.PortByLid(pairs[i].second);
    } else {
      // The port the path ends at, path or not (as by LID): the DGID's,
      // or the router port the SA sends it to.
      const uint8_t* dgid = o.dgids[pairs[i].second].data();
      uint64_t dguid = smdb::IsOffSubnetDgid(dgid, index.subnet().subnet_prefix)
                           ? smdb::RouterPortFor(index, smdb::GidPrefix(dgid))
                           : smdb::GidGuid(dgid);
      if (dguid != 0) d = index.PortByGuid(dguid);
    }
    if (s != smdb::SmdbIndex::kNone && d != smdb::SmdbIndex::kNone)
      query_pkey[i] = index.CommonPkey(index.port(s).pkey_table, index.port(d).pkey_table);
  }
  auto e0 = Clock::now();
  std::map<std::pair<uint16_t, uint16_t>, const smdb::PrdbPath*> delivered;
  if (o.prdb)
    for (const smdb::PrdbPath& p : o.prdb->paths.records)
      if (!smdb::IsPrefixRow(p)) delivered[{p.slid, p.dlid}] = &p;  // not a path of its own
  for (size_t i = 0; i < n; ++i) {
    uint16_t slid = pairs[i].first, dlid = pairs[i].second;
    if (o.prdb) {
      auto it = delivered.find({slid, dlid});
      bool have =
          it != delivered.end() && (!o.reversible || (it->second->flags & smdb::kPathReversible));
      if (have) {
        smdb::FromPrdbPath(*it->second, &mine[i]);
        mine_flags[i] = it->second->flags & (smdb::kPathInexact | smdb::kPathSlSpanMask);
        query_pkey[i] = it->second->pkey;
      } else {
        mine[i] = ibv_path_record{};
        // The P_Key the access node asked with (the first both share).
        uint32_t s = index.PortByLid(slid), d = index.PortByLid(dlid);
        if (s != smdb::SmdbIndex::kNone && d != smdb::SmdbIndex::kNone)
          query_pkey[i] = index.CommonPkey(index.port(s).pkey_table, index.port(d).pkey_table);
      }
      mine_status[i] = have ? PathStatus::kOk : PathStatus::kNoRoute;
      continue;
    }
    if (to_gids) {
      uint8_t sgid[16], dgid[16];
      pair_gids(i, sgid, dgid);
      mine_status[i] = engine.ComputeByGid(sgid, dgid, &mine[i]);
    } else {
      mine_status[i] =
          o.by_gid ? engine.ComputeByGuid(GuidOf(index, slid), GuidOf(index, dlid), &mine[i])
                   : engine.Compute(slid, dlid, &mine[i]);
    }
    if (mine_status[i] == PathStatus::kOk)
      mine_flags[i] = engine.InexactFlags(FromBe16(mine[i].slid), FromBe16(mine[i].dlid));
  }
  r->engine_ns_per_path = std::chrono::duration<double, std::nano>(Clock::now() - e0).count() / n;

  Logger logger;
  logger.set_level(LogLevel::kError);
  EventLoop loop;
  st = loop.Init();
  if (!st.ok()) return st;
  SaClientOptions so;
  so.sa_depth = o.sa_depth;
  so.timeout_ms = o.timeout_ms;
  so.retries = o.retries;
  SaClient client(&loop, &logger, port, so);
  st = client.Open();
  if (!st.ok())
    return st.WithContext("SA client on " + port.ca_name + ":" + std::to_string(port.port_num));

  std::vector<Answer> answers(n);
  size_t next = 0, done = 0;
  bool stopping = false;  // CancelAll's callbacks must not send more
  Status send_error;
  // Runs from the loop (answer callbacks) as well as from here.
  std::function<void()> feed = [&]() {
    while (!stopping && next < n && client.queued() < kQueueAhead && send_error.ok()) {
      size_t i = next++;
      uint8_t m[mad::kMadSize], sgid[16] = {}, dgid[16] = {};
      if (by_gid) pair_gids(i, sgid, dgid);
      BuildQuery(pairs[i].first, pairs[i].second, by_gid ? sgid : nullptr, dgid, o.reversible,
                 query_pkey[i], o.query, m);
      send_error = client.Send(m, sizeof(m), [&, i](int status, const uint8_t* resp, size_t len) {
        Record(status, resp, len, &answers[i]);
        ++done;
        feed();
      });
    }
  };
  auto s0 = Clock::now();
  ProgressMeter progress(stderr, isatty(STDERR_FILENO) != 0, "SA queries answered", n);
  feed();
  // Give up only when nothing is answered for longer than a query's tries.
  auto stall = std::chrono::milliseconds(int64_t{client.try_timeout_ms()} * (o.retries + 1) + 5000);
  while (done < n && send_error.ok()) {
    size_t before = done;
    loop.RunUntil([&] { return done != before || !send_error.ok(); }, stall);
    if (done == before) break;
    progress.Update(done);
  }
  progress.Finish(done);
  r->sa_seconds = std::chrono::duration<double>(Clock::now() - s0).count();
  stopping = true;
  client.CancelAll();
  if (!send_error.ok()) return send_error.WithContext("SA query");

  size_t printed = 0;
  auto print = [&](const std::string& line) {
    if (printed++ < o.max_print) fprintf(out, "%s\n", line.c_str());
  };
  for (size_t i = 0; i < n; ++i) {
    uint16_t slid = pairs[i].first, dlid = pairs[i].second;
    std::string where = "slid=" + std::to_string(slid) +
                        (to_gids ? " dgid=" + mad::GidToString(o.dgids[dlid].data())
                                 : " dlid=" + std::to_string(dlid));
    const Answer& a = answers[i];
    const uint16_t shown_dlid = to_gids ? 0 : dlid;  // a failed line's (an index with DGIDs)
    bool engine_ok = mine_status[i] == PathStatus::kOk;
    if (a.state == Answer::kPending || a.state == Answer::kFailed) {
      ++r->sa_failures;
      print("sa-failure " + where + ": " + (a.state == Answer::kPending ? "no answer" : a.error));
    } else if (engine_ok && (mine_flags[i] & smdb::kPathInexact)) {
      // Not served from the replica: the SA answers it.
      ++r->not_exact;
      std::string why = " why=" + smdb::InexactReasons(mine_flags[i]);
      if (a.state == Answer::kNoRecords) {
        ++r->not_exact_differ;
        print("not-exact " + where + why + ": sa has no record");
      } else {
        std::vector<FieldDiff> diffs = DiffPathRecords(mine[i], a.rec);
        r->not_exact_differ += !diffs.empty();
        print("not-exact " + where + why + ": " +
              (diffs.empty() ? std::string("equal to the sa's") : DescribeDiffs(diffs)));
      }
    } else if (a.state == Answer::kNoRecords && !engine_ok) {
      ++r->matched;
      ++r->no_path;
    } else if (a.state == Answer::kNoRecords) {
      ++r->mismatched;
      print("mismatch " + where + ": sa has no record, engine has " +
            FormatPathLine(slid, shown_dlid, mine_status[i], mine[i]));
    } else if (!engine_ok) {
      ++r->mismatched;
      print("mismatch " + where + ": engine says " + smdb::PathStatusName(mine_status[i]) +
            ", sa has " + FormatPathLine(slid, shown_dlid, PathStatus::kOk, a.rec));
    } else {
      // An SL the SA draws among several: any of them is the SA's answer.
      unsigned span = smdb::PathSlSpan(mine_flags[i]);
      if (span > 1) {
        ++r->sl_drawn;
        AdoptDrawnSl(span, a.rec, &mine[i]);
      }
      std::vector<FieldDiff> diffs = DiffPathRecords(mine[i], a.rec);
      if (diffs.empty()) {
        ++r->matched;
      } else {
        ++r->mismatched;
        print("mismatch " + where + ": " + DescribeDiffs(diffs));
      }
    }
  }
  fprintf(
      out,
      "compare: pairs=%zu matched=%zu no_path=%zu mismatched=%zu sa_failures=%zu requester_lid=%u "
      "sa_depth=%d sa_seconds=%.3f sa_queries_per_s=%.0f engine_ns_per_path=%.1f not_exact=%zu "
      "not_exact_differ=%zu sl_drawn=%zu\n",
      r->pairs, r->matched, r->no_path, r->mismatched, r->sa_failures, r->requester_lid,
      client.sa_depth(), r->sa_seconds, r->sa_seconds > 0 ? n / r->sa_seconds : 0.0,
      r->engine_ns_per_path, r->not_exact, r->not_exact_differ, r->sl_drawn);
  return Status::Ok();
}

}  // namespace smdb_tool
}  // namespace ssa
