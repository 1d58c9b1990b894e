// sa_snapshot_main.cc: soak-sa-snapshot, the soak oracle's eyes on the SA.
// Run as a node of the simulated fabric (umad2sim), it asks the SA for the
// PathRecord of every (SLID, DLID) pair of the lists, by LID with the
// default partition's P_Key, one SubnAdmGet at a time from this node's
// port (util/ib_acme/path_verifier.h, what `ib_acme -T --verify sa` does),
// and prints one line per pair:
//   <slid> <dlid> path <128 hex digits: the ibv_path_record>
//   <slid> <dlid> none            (the SA has no such path)
//   <slid> <dlid> error <why>     (no answer to go by)
// Exit status: 0 when every pair was answered (path or none), 1 when one
// was not, 2 on a bad command line or no port to ask from.
//
//   soak-sa-snapshot --slids 5,7,10 --dlids 1-16
//
// A new process for each snapshot: a running process keeps the SM LID it
// read at start, and the master SM moves in the soak.
//
// Single-threaded (umad2sim: libibumad's first use on the main thread).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "util/ib_acme/path_verifier.h"

namespace {

// "1,3,5-9" -> LIDs; false on junk.
bool ParseLids(const char* text, std::vector<uint16_t>* out) {
  std::string s = text;
  size_t at = 0;
  while (at <= s.size()) {
    size_t comma = s.find(',', at);
    std::string item = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    char* end = nullptr;
    long lo = strtol(item.c_str(), &end, 0), hi = lo;
    if (*end == '-') hi = strtol(end + 1, &end, 0);
    if (item.empty() || *end || lo < 1 || hi < lo || hi > 0xBFFF) return false;
    for (long l = lo; l <= hi; ++l) out->push_back(static_cast<uint16_t>(l));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return !out->empty();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint16_t> slids, dlids;
  int timeout_ms = 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    bool ok = false;
    if (!strcmp(argv[i], "--slids")) ok = ParseLids(argv[i + 1], &slids);
    if (!strcmp(argv[i], "--dlids")) ok = ParseLids(argv[i + 1], &dlids);
    if (!strcmp(argv[i], "--timeout")) ok = (timeout_ms = atoi(argv[i + 1])) > 0;
    if (!ok) {
      fprintf(stderr, "usage: soak-sa-snapshot --slids LIDS --dlids LIDS [--timeout MS]\n");
      return 2;
    }
  }
  if (slids.empty() || dlids.empty() || argc % 2 == 0) {
    fprintf(stderr, "usage: soak-sa-snapshot --slids LIDS --dlids LIDS [--timeout MS]\n");
    return 2;
  }
  ssa::acme::SaPathVerifier sa("", timeout_ms);
  ssa::Status st = sa.Init();
  if (!st.ok()) {
    fprintf(stderr, "soak-sa-snapshot: %s\n", st.ToString().c_str());
    return 2;
  }
  int rc = 0;
  for (uint16_t s : slids) {
    for (uint16_t d : dlids) {
      ssa::acme::PathKey key;
      key.by_lid = true;
      key.slid = s;
      key.dlid = d;
      key.pkey = 0xffff;
      ssa::acme::VerifyResult r = sa.Verify(key);
      printf("%u %u ", s, d);
      if (r.kind == ssa::acme::VerifyResult::kRecord) {
        printf("path ");
        const uint8_t* p = reinterpret_cast<const uint8_t*>(&r.path);
        for (size_t i = 0; i < sizeof(r.path); ++i) printf("%02x", p[i]);
        printf("\n");
      } else if (r.kind == ssa::acme::VerifyResult::kNoRecord) {
        printf("none\n");
      } else {
        printf("error %s\n", r.error.c_str());
        rc = 1;
      }
    }
  }
  return rc;
}
