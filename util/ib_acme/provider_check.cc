// provider_check.cc: the provider-testing run (see provider_check.h).
#include "util/ib_acme/provider_check.h"

#include <chrono>
#include <cstring>

#include "common/base/big_endian.h"
#include "util/ib_acme/acme_output.h"
#include "util/ib_acme/path_compare.h"
#include "util/ib_acme/range_list.h"

namespace ssa {
namespace acme {

namespace {

// Upstream's failure text for an ACM status, plus the status name.
std::string DescribeAcmStatus(uint8_t status) {
  return std::string(strerror(AcmStatusToErrno(status))) + " (" + acm::AcmStatusName(status) + ")";
}

PathKey KeyFor(const TestTarget& target, const ibv_path_record& resolved) {
  PathKey key;
  key.pkey = FromBe16(resolved.pkey);
  if (target.format == AddrFormat::kLid) {
    key.by_lid = true;
    key.slid = FromBe16(resolved.slid);
    key.dlid = target.lid;
  } else {
    key.sgid = resolved.sgid;
    key.dgid = target.format == AddrFormat::kGid ? target.gid : resolved.dgid;
  }
  return key;
}

}  // namespace

int ProviderTest::Run() {
  std::vector<TestTarget> targets;
  Status st = BuildTargets(options_, &targets);
  if (!st.ok()) {
    fprintf(out_, "ib_acme: %s\n", st.ToString().c_str());
    return 2;
  }
  if (options_.has_src) {
    // The source is read in the format of the destinations it goes with;
    // with mixed formats it applies to those of its own kind.
    st = MakeTarget(options_.src_arg, options_.addr_format, &source_);
    if (!st.ok()) {
      fprintf(out_, "ib_acme: source: %s\n", st.ToString().c_str());
      return 2;
    }
    have_source_ = true;
  }
  if (options_.test.verify == VerifyMode::kSa) {
    sa_verifier_ =
        std::make_unique<SaPathVerifier>(options_.test.sa_port, options_.test.timeout_ms);
    st = sa_verifier_->Init();
    if (!st.ok()) {
      fprintf(out_,
              "ib_acme: cannot ask the SA from here: %s\n"
              "ib_acme: run on a node of the fabric, or use --verify daemon\n",
              st.ToString().c_str());
      return 2;
    }
  }
  int exit_code = 0;
  for (const std::string& svc : ExpandRangeList(options_.svc_arg)) {
    TestSummary summary;
    summary.verified = options_.test.verify != VerifyMode::kNone;
    if (!TestService(svc, targets, &summary)) {
      exit_code = 2;
      continue;
    }
    fputs(FormatSummary(svc, summary).c_str(), out_);
    if (!summary.ok() && exit_code == 0) exit_code = 1;
  }
  fflush(out_);
  return exit_code;
}

Status ProviderTest::Connect() {
  // The daemon's answer may include its own SA tries: give it as long as
  // all of ours.
  client_.set_timeout_ms(options_.test.timeout_ms * 3);
  Status st = client_.Connect(svc_);
  if (st.ok() && options_.shm) st = shm_.Open(svc_, options_.test.timeout_ms * 3);
  return st;
}

bool ProviderTest::TestService(const std::string& svc, const std::vector<TestTarget>& targets,
                               TestSummary* summary) {
  svc_ = svc;
  Status st = Connect();
  if (!st.ok()) {
    fprintf(out_, "%s,unable to contact service: %s\n", svc.c_str(), strerror(-st.code()));
    return false;
  }
  DaemonPathVerifier daemon_verifier(&client_);
  PathVerifier* verifier = nullptr;
  if (options_.test.verify == VerifyMode::kSa) verifier = sa_verifier_.get();
  if (options_.test.verify == VerifyMode::kDaemon) verifier = &daemon_verifier;

  ProgressPrinter progress(out_, terminal_, targets.size());
  for (const TestTarget& target : targets) {
    TargetResult r = TestOne(target, verifier);
    summary->Add(r);
    progress.Report(r, *summary);
  }
  progress.Finish();
  if (shm_.open()) fputs(shm_.StatsLine().c_str(), out_);
  client_.Close();
  return true;
}

TargetResult ProviderTest::TestOne(const TestTarget& target, PathVerifier* verifier) {
  TargetResult r;
  r.label = target.Label();
  ibv_path_record path;
  auto t0 = std::chrono::steady_clock::now();
  bool resolved = Resolve(target, &path, &r.detail);
  r.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!resolved) {
    r.outcome = TestOutcome::kResolveError;
    return r;
  }
  std::vector<std::string> problems;
  if (target.has_expected_dgid && memcmp(target.expected_dgid.raw, path.dgid.raw, 16) != 0)
    problems.push_back(DescribeDifferences(
        {{"dgid", GidToText(path.dgid), GidToText(target.expected_dgid)}}, "hosts file"));
  if (!verifier) {
    r.outcome = problems.empty() ? TestOutcome::kResolved : TestOutcome::kMismatched;
    if (!problems.empty()) r.detail = problems[0];
    return r;
  }
  VerifyResult v = verifier->Verify(KeyFor(target, path));
  if (v.kind == VerifyResult::kError && options_.test.verify == VerifyMode::kDaemon) Connect();
  if (v.kind == VerifyResult::kError) {
    r.outcome = TestOutcome::kVerifyError;
    r.detail = v.error;
    return r;
  }
  if (v.kind == VerifyResult::kNoRecord) {
    problems.push_back("the SA has no such path");
  } else {
    std::vector<FieldDifference> diffs = ComparePaths(path, v.path);
    if (diffs.size() == 1 && diffs[0].field == "sl" && SaAlsoAnswers(target, path, verifier))
      diffs.clear();
    if (!diffs.empty()) problems.push_back(DescribeDifferences(diffs));
  }
  r.outcome = problems.empty() ? TestOutcome::kMatched : TestOutcome::kMismatched;
  for (const std::string& p : problems) r.detail += (r.detail.empty() ? "" : "; ") + p;
  return r;
}

// Some engines' SA draws a pair's SL at random on every query (DFSSSP with
// spare VLs: doc/fidelity.md), so one SA answer with another SL proves
// nothing: the daemon's answer is right when the SA answers exactly it on
// another query. Asked again up to kSlRedraws times; a wrong SL (one the
// SA never draws) still fails, and a right one fails with a chance below
// 1e-5 for ranges of up to 8 SLs ((7/8)^96).
bool ProviderTest::SaAlsoAnswers(const TestTarget& target, const ibv_path_record& path,
                                 PathVerifier* verifier) {
  constexpr int kSlRedraws = 96;
  for (int i = 0; i < kSlRedraws; ++i) {
    VerifyResult again = verifier->Verify(KeyFor(target, path));
    if (again.kind != VerifyResult::kRecord) return false;
    if (ComparePaths(path, again.path).empty()) return true;
  }
  return false;
}

bool ProviderTest::Resolve(const TestTarget& target, ibv_path_record* path, std::string* error) {
  const uint32_t flags = options_.nodelay ? acm::kFlagNoDelay : 0;
  const bool source = have_source_ && source_.format == target.format;
  std::vector<acm::EpAddr> entries;
  if (target.format == AddrFormat::kLid || target.format == AddrFormat::kGid) {
    ibv_path_record query;
    memset(&query, 0, sizeof(query));
    if (target.format == AddrFormat::kLid) {
      query.dlid = ToBe16(target.lid);
      if (source) query.slid = ToBe16(source_.lid);
    } else {
      query.dgid = target.gid;
      if (source) query.sgid = source_.gid;
    }
    query.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
    acm::EpAddr entry;
    entry.flags = flags;
    entry.SetPath(query);
    entries.push_back(entry);
  } else {
    if (source) {
      entries.push_back(source_.address);
      entries.back().flags = acm::kEpFlagSource;
    }
    entries.push_back(target.address);
    entries.back().flags = acm::kEpFlagDest | flags;
  }
  acm::ResolveResponse resp;
  Status st = shm_.open() ? shm_.Resolve(entries, &resp) : client_.Resolve(entries, &resp);
  if (!st.ok()) {
    *error = "resolve failed: " + st.ToString();
    // A late answer must not be taken for the next request's: start over.
    Connect();
    return false;
  }
  if (resp.hdr.status != acm::kStatusSuccess) {
    *error = "resolve failed: " + DescribeAcmStatus(resp.hdr.status);
    return false;
  }
  *path = resp.paths[0].path;
  return true;
}

}  // namespace acme
}  // namespace ssa
