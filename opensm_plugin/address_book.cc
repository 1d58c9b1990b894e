// address_book.cc: see address_book.h.
#include "opensm_plugin/address_book.h"

#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/smdb/smdb_delta.h"

namespace ssa {
namespace opensm_plugin {

namespace {
constexpr size_t kIssuesLogged = 10;
}  // namespace

AddressBook::AddressBook(std::string hosts_file, std::string state_file, Logger* log,
                         bool federated)
    : hosts_file_(std::move(hosts_file)),
      state_file_(std::move(state_file)),
      log_(log),
      federated_(federated) {}

namespace {

// `local`'s records plus those of `remote` whose key `local` lacks, sorted
// (both are); `overridden` counts the remote ones left out.
template <class R, class KeyOf>
std::vector<R> MergeRecords(const std::vector<R>& local, const std::vector<R>& remote, KeyOf key,
                            size_t* overridden) {
  std::vector<R> out;
  out.reserve(local.size() + remote.size());
  size_t i = 0, j = 0;
  while (i < local.size() || j < remote.size()) {
    if (j == remote.size() || (i < local.size() && key(local[i]) < key(remote[j]))) {
      out.push_back(local[i++]);
    } else if (i == local.size() || key(remote[j]) < key(local[i])) {
      out.push_back(remote[j++]);
    } else {
      out.push_back(local[i++]);
      ++j;
      ++*overridden;
    }
  }
  return out;
}

}  // namespace

Status AddressBook::Load() {
  loaded_ = true;
  smdb::AddrDb kept;
  if (!state_file_.empty()) {
    Status st = smdb::AddrDb::ReadFile(state_file_, &kept);
    if (st.ok()) {
      log_->Log(LogLevel::kInfo, "addresses: %s holds epoch %" PRIu64 " (%zu names, %zu IPs)",
                state_file_.c_str(), kept.global_epoch, kept.names.records.size(),
                kept.ips.records.size());
    } else if (st.code() != ENOENT) {
      log_->Log(LogLevel::kWarn, "addresses: %s: %s; address epochs start again at 1",
                state_file_.c_str(), st.ToString().c_str());
      kept = smdb::AddrDb();
    }
  }
  if (kept.global_epoch == 0) {
    // The first version ever: epoch 1, every table at 1.
    kept.global_epoch = 1;
    kept.names.epoch = kept.ips.epoch = 1;
  }
  // A federated core's kept content may hold peers' entries of its last
  // life, withdrawn since: only its epochs are kept.
  if (!federated_) {
    local_.names.records = kept.names.records;
    local_.ips.records = kept.ips.records;
  }
  const bool drop = federated_ && (!kept.names.records.empty() || !kept.ips.records.empty());
  Status st = Install(std::move(kept), &current_);
  if (!st.ok() || !drop) return st;
  bool changed = false;
  return Rebuild(&current_, &changed);
}

Status AddressBook::Rebuild(AddressVersion* out, bool* changed) {
  *changed = false;
  smdb::AddrDb next;
  overridden_ = 0;
  next.names.records = MergeRecords(
      local_.names.records, remote_.names.records, [](const smdb::AddrName& r) { return r.name; },
      &overridden_);
  next.ips.records = MergeRecords(
      local_.ips.records, remote_.ips.records, [](const smdb::AddrIp& r) { return r.ip; },
      &overridden_);
  smdb::BumpEpochs(*db_, &next);
  if (next.global_epoch == db_->global_epoch) {
    *out = current_;
    return Status::Ok();
  }
  Status st = Install(std::move(next), &current_);
  if (!st.ok()) return st;
  *out = current_;
  *changed = true;
  return Status::Ok();
}

Status AddressBook::SetRemote(const smdb::AddrDb& remote, AddressVersion* out, bool* changed) {
  *changed = false;
  if (!loaded_) {
    Status st = Load();
    if (!st.ok()) return st;
  }
  remote_.names.records = remote.names.records;
  remote_.ips.records = remote.ips.records;
  Status st = Rebuild(out, changed);
  if (st.ok() && *changed)
    log_->Log(LogLevel::kInfo,
              "addresses: epoch %" PRIu64
              " with the peers' entries: %zu names, %zu IPs in all"
              " (%zu of the peers' left out: the hosts file names them)",
              current_.version.epoch, current_.names, current_.ips, overridden_);
  return st;
}

Status AddressBook::Install(smdb::AddrDb next, AddressVersion* out) {
  auto bytes = std::make_shared<std::string>();
  Status st = next.Serialize(bytes.get());
  if (!st.ok()) return st;
  AddressVersion v;
  v.version = {next.global_epoch, tree::DigestOf(*bytes), bytes};
  v.names = next.names.records.size();
  v.ips = next.ips.records.size();
  if (db_ && db_->global_epoch < next.global_epoch) {
    auto delta = std::make_shared<std::string>();
    if (smdb::MakeDelta(*db_, next, delta.get()).ok()) {
      v.delta = delta;
      v.delta_from = db_->global_epoch;
    }
  }
  if (!state_file_.empty()) {
    Status w = next.WriteFile(state_file_);
    if (!w.ok()) log_->Log(LogLevel::kWarn, "addresses: %s", w.ToString().c_str());
  }
  db_ = std::make_shared<const smdb::AddrDb>(std::move(next));
  *out = v;
  return Status::Ok();
}

Status AddressBook::Refresh(AddressVersion* out, bool* changed) {
  *changed = false;
  if (!loaded_) {
    Status st = Load();
    if (!st.ok()) return st;
    *changed = true;
  }
  if (hosts_file_.empty()) {
    *out = current_;
    return Status::Ok();
  }
  struct stat sb;
  if (stat(hosts_file_.c_str(), &sb) != 0) {
    if (errno != last_errno_)
      log_->Log(LogLevel::kWarn,
                "addresses: hosts_file %s: %s; serving epoch %" PRIu64 " as it was",
                hosts_file_.c_str(), strerror(errno), current_.version.epoch);
    last_errno_ = errno;
    *out = current_;
    return Status::Ok();
  }
  last_errno_ = 0;
  if (sb.st_mtim.tv_sec == mtime_ && sb.st_mtim.tv_nsec == mtime_ns_ && sb.st_size == size_) {
    *out = current_;
    return Status::Ok();
  }
  std::ifstream in(hosts_file_);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    log_->Log(LogLevel::kWarn, "addresses: cannot read %s; serving epoch %" PRIu64 " as it was",
              hosts_file_.c_str(), current_.version.epoch);
    *out = current_;
    return Status::Ok();
  }
  mtime_ = sb.st_mtim.tv_sec;
  mtime_ns_ = sb.st_mtim.tv_nsec;
  size_ = sb.st_size;
  smdb::AddrDb parsed;
  std::vector<smdb::HostsIssue> issues;
  size_t taken = smdb::ParseHosts(text.str(), &parsed, &issues);
  for (size_t i = 0; i < issues.size() && i < kIssuesLogged; ++i)
    log_->Log(LogLevel::kWarn, "addresses: %s:%d: %s; line skipped", hosts_file_.c_str(),
              issues[i].line, issues[i].message.c_str());
  if (issues.size() > kIssuesLogged)
    log_->Log(LogLevel::kWarn, "addresses: %s: %zu more bad lines", hosts_file_.c_str(),
              issues.size() - kIssuesLogged);
  local_.names.records = std::move(parsed.names.records);
  local_.ips.records = std::move(parsed.ips.records);
  bool rebuilt = false;
  Status st = Rebuild(out, &rebuilt);
  if (!st.ok()) return st;
  if (!rebuilt) {
    log_->Log(LogLevel::kDebug, "addresses: %s changed on disk, not in content",
              hosts_file_.c_str());
    return Status::Ok();
  }
  log_->Log(LogLevel::kInfo,
            "addresses: %s: epoch %" PRIu64 ", %zu lines taken; %zu names, %zu IPs in all%s",
            hosts_file_.c_str(), current_.version.epoch, taken, current_.names, current_.ips,
            remote_.names.records.empty() && remote_.ips.records.empty()
                ? ""
                : " (with the federation peers')");
  *out = current_;
  *changed = true;
  return Status::Ok();
}

bool AddressBook::ContinueAfter(uint64_t seen, AddressVersion* out) {
  if (!db_ || seen < db_->global_epoch) return false;
  smdb::AddrDb next = *db_;
  uint64_t epoch = seen + 1;
  next.global_epoch = epoch;
  smdb::AddrDb::ForEachTable(next, [epoch](auto& table) { table.epoch = epoch; });
  Status st = Install(std::move(next), &current_);
  if (!st.ok()) {
    log_->Log(LogLevel::kError, "addresses: cannot renumber: %s", st.ToString().c_str());
    return false;
  }
  log_->Log(LogLevel::kInfo,
            "addresses: epoch %" PRIu64 ": the same content renumbered after epoch %" PRIu64
            " that a member holds from another core",
            epoch, seen);
  *out = current_;
  return true;
}

}  // namespace opensm_plugin
}  // namespace ssa
