// main.cc: ssa-smdb, the command-line view of saved subnet databases and
// of the path-record engine (man/ssa-smdb.1):
//   ssa-smdb dump FILE                     the SMDB (or PRDB) as text
//   ssa-smdb prdb FILE                     a PRDB's paths, as `paths` prints them
//   ssa-smdb paths FILE --from LIST ...    the engine's path records
//   ssa-smdb compare FILE --from LIST ...  the engine against the live SA
// A thin program over common/: parsing options and printing.
// Single-threaded.
#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/base/big_endian.h"
#include "common/mad/mad_wire.h"
#include "common/mad/sa_client.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_dump.h"
#include "common/smdb/smdb_format.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"
#include "util/smdb_tool/path_text.h"
#include "util/smdb_tool/sa_compare.h"

namespace {

using ssa::Status;
namespace smdb = ssa::smdb;
namespace tool = ssa::smdb_tool;

constexpr int kExitMismatch = 1;
constexpr int kExitUsage = 2;

void Usage(FILE* f) {
  fprintf(
      f,
      "usage: ssa-smdb dump FILE\n"
      "       ssa-smdb prdb FILE\n"
      "       ssa-smdb paths FILE --from LIST [--to LIST | --dgid GIDS] [--lmc-all] [--by-gid]\n"
      "                      [--reversible] [--requester LID] [--stats] [QUERY]\n"
      "       ssa-smdb compare FILE --from LIST [--to LIST | --dgid GIDS] [--lmc-all] [--by-gid]\n"
      "                      [--reversible]\n"
      "                      [--sample N] [--depth N] [--timeout MS] [--retries N]\n"
      "                      [--port CA:PORT] [--max-print N] [--prdb PRDBFILE] [QUERY]\n"
      "QUERY: [--pkey P | --pkey-from-path] [--service-id S] [--qos-class C]\n"
      "LIST: comma-separated 'all', LIDs, LID ranges A-B, port GUIDs.\n"
      "GIDS: comma-separated destination GIDs, any subnet's. See ssa-smdb(1).\n");
}

struct Args {
  std::string command, file, from, to = "all";
  bool lmc_all = false, reversible = false, stats = false, by_gid = false;
  long requester = 0, sample = 0, depth = 16, timeout = 2000, retries = 2, max_print = -1;
  std::string port, prdb;
  // --dgid: destinations by GID (asked by SGID and DGID).
  std::vector<std::array<uint8_t, 16>> dgids;
  // The query's P_Key, ServiceID and QoS class (ssa-smdb(1), QUERY).
  smdb::QosQuery query;
  bool pkey_from_path = false;
};

bool ParseLong(const char* s, long min, long max, long* out) {
  char* end = nullptr;
  errno = 0;
  long v = strtol(s, &end, 0);
  if (errno || *end || end == s || v < min || v > max) return false;
  *out = v;
  return true;
}

// "GID,GID,...": each in IPv6 text form.
bool ParseGids(const char* text, std::vector<std::array<uint8_t, 16>>* out) {
  std::string list = text;
  size_t at = 0;
  while (at <= list.size()) {
    size_t comma = list.find(',', at);
    std::string item = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    std::array<uint8_t, 16> gid{};
    if (inet_pton(AF_INET6, item.c_str(), gid.data()) != 1) {
      fprintf(stderr, "ssa-smdb: --dgid: '%s' is not a GID\n", item.c_str());
      return false;
    }
    out->push_back(gid);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return true;
}

// Returns false (after printing why) on a bad command line.
bool ParseArgs(int argc, char** argv, Args* a) {
  if (argc < 3) return false;
  a->command = argv[1];
  a->file = argv[2];
  for (int i = 3; i < argc; ++i) {
    std::string o = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    auto num = [&](long min, long max, long* out) {
      if (!v || !ParseLong(v, min, max, out)) {
        fprintf(stderr, "ssa-smdb: %s needs a number in %ld..%ld\n", o.c_str(), min, max);
        return false;
      }
      ++i;
      return true;
    };
    auto text = [&](std::string* out) {
      if (!v) {
        fprintf(stderr, "ssa-smdb: %s needs a value\n", o.c_str());
        return false;
      }
      *out = v;
      ++i;
      return true;
    };
    bool ok = true;
    if (o == "--from")
      ok = text(&a->from);
    else if (o == "--to")
      ok = text(&a->to);
    else if (o == "--port")
      ok = text(&a->port);
    else if (o == "--prdb")
      ok = text(&a->prdb);
    else if (o == "--dgid") {
      if (!v) fprintf(stderr, "ssa-smdb: --dgid needs a value\n");
      ok = v && ParseGids(v, &a->dgids);
      ++i;
    } else if (o == "--lmc-all")
      a->lmc_all = true;
    else if (o == "--reversible")
      a->reversible = true;
    else if (o == "--by-gid")
      a->by_gid = true;
    else if (o == "--stats")
      a->stats = true;
    else if (o == "--requester")
      ok = num(1, 0xBFFF, &a->requester);
    else if (o == "--sample")
      ok = num(0, 1L << 40, &a->sample);
    else if (o == "--depth")
      ok = num(1, ssa::kSaMaxDepth, &a->depth);
    else if (o == "--timeout")
      ok = num(1, 600000, &a->timeout);
    else if (o == "--retries")
      ok = num(0, 100, &a->retries);
    else if (o == "--max-print")
      ok = num(0, 1L << 40, &a->max_print);
    else if (o == "--pkey-from-path")
      a->pkey_from_path = true;
    else if (o == "--pkey" || o == "--qos-class") {
      long x = 0;
      ok = num(1, o == "--pkey" ? 0xFFFF : 0xFFF, &x);
      if (o == "--pkey") {
        a->query.has_pkey = true;
        a->query.pkey = static_cast<uint16_t>(x);
      } else {
        a->query.has_qos_class = true;
        a->query.qos_class = static_cast<uint16_t>(x);
      }
    } else if (o == "--service-id") {
      char* end = nullptr;
      errno = 0;
      unsigned long long x = v ? strtoull(v, &end, 0) : 0;
      ok = v && !errno && end != v && !*end && x != 0;
      if (!ok) fprintf(stderr, "ssa-smdb: --service-id needs a non-zero number\n");
      a->query.has_service_id = true;
      a->query.service_id = x;
      ++i;
    } else {
      fprintf(stderr, "ssa-smdb: unknown option '%s'\n", o.c_str());
      return false;
    }
    if (!ok) return false;
  }
  if (a->pkey_from_path && a->query.has_pkey) {
    fprintf(stderr, "ssa-smdb: --pkey and --pkey-from-path exclude each other\n");
    return false;
  }
  if (!a->dgids.empty() && !a->prdb.empty()) {
    fprintf(stderr, "ssa-smdb: --dgid and --prdb exclude each other\n");
    return false;
  }
  if ((a->command == "paths" || a->command == "compare") && a->from.empty()) {
    fprintf(stderr, "ssa-smdb: %s needs --from\n", a->command.c_str());
    return false;
  }
  return true;
}

// The db_type field of a database file's header (0 if unreadable).
uint16_t FileDbType(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  namespace field = smdb::header_start;
  uint8_t h[field::kDbType.offset + 2] = {};  // magic to db_type
  if (!f.read(reinterpret_cast<char*>(h), sizeof(h))) return 0;
  const smdb::HeaderStartView header(h);
  if (header[field::kMagic] != smdb::kDbMagic) return 0;
  return header[field::kDbType];
}

// Reads `file` as a Db and prints it with `dump`.
template <class Db>
int DumpAs(const std::string& file, std::string (*dump)(const Db&)) {
  Db db;
  Status st = Db::ReadFile(file, &db);
  if (!st.ok()) {
    fprintf(stderr, "ssa-smdb: %s\n", st.ToString().c_str());
    return kExitUsage;
  }
  fputs(dump(db).c_str(), stdout);
  return 0;
}

int Dump(const Args& a) {
  uint16_t type = FileDbType(a.file);
  if (type == static_cast<uint16_t>(smdb::DbType::kAddr))
    return DumpAs<smdb::AddrDb>(a.file, smdb::DumpAddrDb);
  if (type == static_cast<uint16_t>(smdb::DbType::kPrdb))
    return DumpAs<smdb::Prdb>(a.file, smdb::DumpPrdb);
  return DumpAs<smdb::Smdb>(a.file, smdb::DumpSmdb);
}

// The paths a PRDB holds (what an access node sent a consumer), one line
// each in the `paths` format, in the PRDB's order (by DGID, SGID, DLID, SLID).
int PrdbPaths(const Args& a) {
  smdb::Prdb db;
  Status st = smdb::Prdb::ReadFile(a.file, &db);
  if (!st.ok()) {
    fprintf(stderr, "ssa-smdb: %s\n", st.ToString().c_str());
    return kExitUsage;
  }
  ibv_path_record rec;
  for (const smdb::PrdbPath& p : db.paths.records) {
    smdb::FromPrdbPath(p, &rec);
    std::string line = tool::FormatPathLine(p.slid, p.dlid, smdb::PathStatus::kOk, rec, p.flags);
    line += '\n';
    fputs(line.c_str(), stdout);
  }
  return 0;
}

struct Loaded {
  std::unique_ptr<smdb::SmdbIndex> index;
  std::vector<uint16_t> slids, dlids;
};

int Load(const Args& a, Loaded* l) {
  smdb::Smdb db;
  Status st = smdb::Smdb::ReadFile(a.file, &db);
  if (st.ok()) st = smdb::SmdbIndex::Build(db, &l->index);
  if (st.ok())
    st = tool::ParseLidList(a.from, *l->index, a.lmc_all, &l->slids).WithContext("--from");
  // Destinations: every LID of each port named (a path per DLID).
  if (st.ok()) st = tool::ParseLidList(a.to, *l->index, true, &l->dlids).WithContext("--to");
  if (!st.ok()) {
    fprintf(stderr, "ssa-smdb: %s\n", st.ToString().c_str());
    return kExitUsage;
  }
  if (a.by_gid) {
    // A GID names a port: one base LID per port, LIDs nobody owns dropped.
    auto ports_only = [&l](std::vector<uint16_t>* lids) {
      std::vector<uint16_t> out;
      for (uint16_t lid : *lids) {
        uint32_t p = l->index->PortByLid(lid);
        if (p == smdb::SmdbIndex::kNone) {
          fprintf(stderr, "ssa-smdb: --by-gid: LID %u has no port, skipped\n", lid);
          continue;
        }
        uint16_t base = l->index->port(p).base_lid;
        if (std::find(out.begin(), out.end(), base) == out.end()) out.push_back(base);
      }
      *lids = out;
    };
    ports_only(&l->slids);
    ports_only(&l->dlids);
  }
  return 0;
}

smdb::PathStatus Lookup(const smdb::PathEngine& e, bool by_gid, uint16_t slid, uint16_t dlid,
                        ibv_path_record* rec) {
  if (!by_gid) return e.Compute(slid, dlid, rec);
  const smdb::SmdbIndex& x = e.index();
  return e.ComputeByGuid(x.port(x.PortByLid(slid)).port_guid, x.port(x.PortByLid(dlid)).port_guid,
                         rec);
}

// `paths --dgid`: the SA's answers to "SGID slid's port's, DGID d" for
// each d, as path lines; a failure's line names the DGID.
void PathsToGids(const smdb::PathEngine& engine, uint16_t slid,
                 const std::vector<std::array<uint8_t, 16>>& dgids, size_t* total, size_t* ok,
                 double* ns) {
  const smdb::SmdbIndex& x = engine.index();
  uint32_t src = x.PortByLid(slid);
  uint8_t sgid[16];
  x.PutGid(src == smdb::SmdbIndex::kNone ? 0 : x.port(src).port_guid, sgid);
  ibv_path_record rec;
  for (const auto& dgid : dgids) {
    auto t0 = std::chrono::steady_clock::now();
    smdb::PathStatus st = engine.ComputeByGid(sgid, dgid.data(), &rec);
    *ns += std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    ++*total;
    std::string line;
    if (st == smdb::PathStatus::kOk) {
      ++*ok;
      uint16_t s = ssa::FromBe16(rec.slid), d = ssa::FromBe16(rec.dlid);
      line = tool::FormatPathLine(s, d, st, rec, engine.InexactFlags(s, d));
    } else {
      line = tool::FormatPathLine(slid, 0, st, rec) + " dgid=" + ssa::mad::GidToString(dgid.data());
    }
    line += '\n';
    fputs(line.c_str(), stdout);
  }
}

int Paths(const Args& a) {
  Loaded l;
  if (int rc = Load(a, &l)) return rc;
  smdb::PathEngineOptions eo;
  eo.require_reversible = a.reversible;
  eo.requester_lid = static_cast<uint16_t>(a.requester);
  eo.query = a.query;
  eo.pkey_from_path = a.pkey_from_path;
  smdb::PathEngine engine(l.index.get(), eo);
  std::string limits = engine.Limitations();
  if (!limits.empty())
    fprintf(stderr, "ssa-smdb: warning: the engine cannot predict: %s\n", limits.c_str());
  size_t total = 0, ok = 0;
  double ns = 0;
  ibv_path_record rec;
  std::string out;
  for (uint16_t slid : l.slids) {
    if (!a.dgids.empty()) {
      PathsToGids(engine, slid, a.dgids, &total, &ok, &ns);
      continue;
    }
    for (uint16_t dlid : l.dlids) {
      auto t0 = std::chrono::steady_clock::now();
      smdb::PathStatus st = Lookup(engine, a.by_gid, slid, dlid, &rec);
      ns += std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      ++total;
      ok += st == smdb::PathStatus::kOk;
      // By GID the SA may answer another LID pair of the two ports.
      bool ok_path = st == smdb::PathStatus::kOk;
      uint16_t rec_slid = ok_path ? ssa::FromBe16(rec.slid) : slid;
      uint16_t rec_dlid = ok_path ? ssa::FromBe16(rec.dlid) : dlid;
      out = tool::FormatPathLine(rec_slid, rec_dlid, st, rec,
                                 ok_path ? engine.InexactFlags(rec_slid, rec_dlid) : 0);
      out += '\n';
      fputs(out.c_str(), stdout);
    }
  }
  if (a.stats)
    fprintf(stderr, "paths: total=%zu ok=%zu no_path=%zu engine_ns_per_path=%.1f\n", total, ok,
            total - ok, total ? ns / total : 0.0);
  return 0;
}

int Compare(const Args& a) {
  Loaded l;
  if (int rc = Load(a, &l)) return rc;
  tool::CompareOptions o;
  o.slids = l.slids;
  o.dlids = l.dlids;
  o.sample = static_cast<size_t>(a.sample);
  o.sa_depth = static_cast<int>(a.depth);
  o.timeout_ms = static_cast<int>(a.timeout);
  o.retries = static_cast<int>(a.retries);
  o.port = a.port;
  o.reversible = a.reversible;
  o.by_gid = a.by_gid;
  o.dgids = a.dgids;
  o.query = a.query;
  o.pkey_from_path = a.pkey_from_path;
  if (a.max_print >= 0) o.max_print = static_cast<size_t>(a.max_print);
  smdb::Prdb prdb;
  if (!a.prdb.empty()) {
    Status st = smdb::Prdb::ReadFile(a.prdb, &prdb);
    if (!st.ok() || a.by_gid) {
      fprintf(stderr, "ssa-smdb: --prdb: %s\n",
              a.by_gid ? "not with --by-gid" : st.ToString().c_str());
      return kExitUsage;
    }
    o.prdb = &prdb;
  }
  tool::CompareResult r;
  Status st = tool::RunSaCompare(*l.index, o, stdout, &r);
  if (!st.ok()) {
    fprintf(stderr, "ssa-smdb: %s\n", st.ToString().c_str());
    return kExitUsage;
  }
  return r.mismatched == 0 && r.sa_failures == 0 ? 0 : kExitMismatch;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOFBF, 1 << 16);
  if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
    Usage(stdout);
    return 0;
  }
  Args a;
  if (!ParseArgs(argc, argv, &a)) {
    Usage(stderr);
    return kExitUsage;
  }
  if (a.command == "dump") return Dump(a);
  if (a.command == "prdb") return PrdbPaths(a);
  if (a.command == "paths") return Paths(a);
  if (a.command == "compare") return Compare(a);
  fprintf(stderr, "ssa-smdb: unknown command '%s'\n", a.command.c_str());
  Usage(stderr);
  return kExitUsage;
}
