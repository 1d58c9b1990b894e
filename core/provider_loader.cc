// provider_loader.cc: loading and checking provider shared objects.
#include "core/provider_loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <ltdl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <type_traits>
#include <utility>

namespace ssa {

namespace {

struct LtdlCloser {
  void operator()(std::remove_pointer_t<lt_dlhandle>* h) const { lt_dlclose(h); }
};
using ModulePtr = std::unique_ptr<std::remove_pointer_t<lt_dlhandle>, LtdlCloser>;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// dlerror() texts start with the file name, which our line already gives.
std::string WithoutPathPrefix(const std::string& msg, const std::string& path) {
  const std::string prefix = path + ": ";
  return msg.compare(0, prefix.size(), prefix) == 0 ? msg.substr(prefix.size()) : msg;
}

// A provider's name as it may appear in a log line: non-printable bytes as \xNN.
std::string Printable(const char* s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n && s[i]; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isprint(c)) {
      out += static_cast<char>(c);
    } else {
      char buf[5];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

// Names double as config section names and as the first word of a
// "provider NAME TARGET" rule, so they must be one plain word.
bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

// Opens `path` with every symbol bound now, through libltdl.
//
// libltdl has no advise for eager binding: its dlopen loader always passes
// RTLD_LAZY, and LD_BIND_NOW is read by ld.so only at process start. A lazily
// bound provider with a missing symbol would load fine and crash the daemon
// at its first call into it. So the file is first opened with
// dlopen(RTLD_NOW | RTLD_LOCAL): ld.so relocates the object and its
// dependencies completely, or fails with its own precise message. libltdl's
// open then finds the object already mapped and relocated (ld.so counts the
// references), and the probe reference is dropped, leaving libltdl's handle
// as the only owner.
ModulePtr OpenEagerly(const std::string& path, std::string* error) {
  void* probe = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!probe) {
    const char* e = dlerror();
    *error = WithoutPathPrefix(e ? e : "dlopen failed", path);
    return nullptr;
  }
  lt_dladvise advise;
  ModulePtr module;
  if (lt_dladvise_init(&advise) == 0) {
    // Local: one provider's symbols must never satisfy another's.
    lt_dladvise_local(&advise);
    module.reset(lt_dlopenadvise(path.c_str(), advise));
    lt_dladvise_destroy(&advise);
  }
  if (!module) {
    const char* e = lt_dlerror();
    *error = WithoutPathPrefix(e ? e : "lt_dlopenadvise failed", path);
  }
  dlclose(probe);
  return module;
}

}  // namespace

const char* RejectReasonName(RejectReason reason) {
  switch (reason) {
    case RejectReason::kLoadFailed: return "load-failed";
    case RejectReason::kNoEntry: return "no-entry";
    case RejectReason::kEntryNull: return "entry-null";
    case RejectReason::kWrongMajor: return "wrong-major";
    case RejectReason::kTooSmall: return "too-small";
    case RejectReason::kMissingOp: return "missing-op";
    case RejectReason::kBadName: return "bad-name";
    case RejectReason::kDuplicate: return "duplicate";
  }
  return "?";
}

LoadedProvider::LoadedProvider(std::string path, void* module, const ssa_provider* table)
    : path_(std::move(path)), name_(table->name), module_(module), table_(table) {}

LoadedProvider::~LoadedProvider() {
  if (module_) lt_dlclose(static_cast<lt_dlhandle>(module_));
}

ProviderLoader::ProviderLoader(Logger* log) : log_(log) {
  // lt_dlinit/lt_dlexit are reference counted, so loaders may coexist.
  if (lt_dlinit() == 0) {
    ltdl_ready_ = true;
  } else {
    const char* e = lt_dlerror();
    ltdl_error_ = e ? e : "lt_dlinit failed";
    SSA_LOG(*log_, kError, "libltdl: %s; no provider can be loaded", ltdl_error_.c_str());
  }
}

ProviderLoader::~ProviderLoader() {
  providers_.clear();  // closes the modules, before libltdl goes away
  if (ltdl_ready_) lt_dlexit();
}

const LoadedProvider* ProviderLoader::Find(const std::string& name) const {
  for (const auto& lp : providers_)
    if (lp->name() == name) return lp.get();
  return nullptr;
}

Status ProviderLoader::LoadDirectory(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return Status::FromErrno("cannot read provider directory " + dir);
  std::vector<std::string> names;
  while (const dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (EndsWith(name, ".so")) names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());

  const std::string base = (!dir.empty() && dir.back() == '/') ? dir : dir + "/";
  const size_t kept_before = providers_.size(), rejected_before = rejections_.size();
  for (const auto& name : names) {
    const std::string path = base + name;
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // e.g. a dir "x.so"
    LoadFile(path);  // a rejection is logged and recorded there
  }
  SSA_LOG(*log_, kInfo, "providers from %s: %zu loaded, %zu rejected", dir.c_str(),
          providers_.size() - kept_before, rejections_.size() - rejected_before);
  return Status::Ok();
}

Status ProviderLoader::LoadFile(const std::string& path) {
  if (!ltdl_ready_) return Status::Error(ELIBACC, "libltdl: " + ltdl_error_);

  std::string error;
  ModulePtr module = OpenEagerly(path, &error);
  if (!module) return Reject(path, RejectReason::kLoadFailed, ELIBBAD, "cannot load: " + error);

  void* sym = lt_dlsym(module.get(), SSA_PROVIDER_ENTRY_SYMBOL);
  if (!sym)
    return Reject(path, RejectReason::kNoEntry, ENOEXEC,
                  "no entry symbol " SSA_PROVIDER_ENTRY_SYMBOL);
  auto entry = reinterpret_cast<ssa_provider_entry_fn>(sym);
  const ssa_provider* table = entry(SSA_PROV_ABI_MAJOR, SSA_PROV_ABI_MINOR);
  if (!table) {
    char why[128];
    std::snprintf(why, sizeof(why), SSA_PROVIDER_ENTRY_SYMBOL "() returned NULL for core ABI %d.%d",
                  SSA_PROV_ABI_MAJOR, SSA_PROV_ABI_MINOR);
    return Reject(path, RejectReason::kEntryNull, ENOEXEC, why);
  }
  RejectReason reason;
  std::string why;
  if (!Validate(table, &reason, &why))
    return Reject(path, reason, reason == RejectReason::kWrongMajor ? EPROTONOSUPPORT : ENOEXEC,
                  why);

  std::unique_ptr<LoadedProvider> lp(new LoadedProvider(path, module.release(), table));
  return AddOrReplace(std::move(lp));
}

bool ProviderLoader::Validate(const ssa_provider* t, RejectReason* reason, std::string* why) {
  char buf[160];
  // size, abi_major and abi_minor are the header every major keeps, so they
  // can be read before the size is known to be enough for anything else;
  // another major may mean another layout, so it is checked first.
  if (t->abi_major != SSA_PROV_ABI_MAJOR) {
    std::snprintf(buf, sizeof(buf), "ABI major %u, core speaks %d", t->abi_major,
                  SSA_PROV_ABI_MAJOR);
    *reason = RejectReason::kWrongMajor;
    *why = buf;
    return false;
  }
  if (t->size < SSA_PROVIDER_V1_0_SIZE) {
    std::snprintf(buf, sizeof(buf), "struct too small: %u bytes, need at least %zu", t->size,
                  static_cast<size_t>(SSA_PROVIDER_V1_0_SIZE));
    *reason = RejectReason::kTooSmall;
    *why = buf;
    return false;
  }

  const std::pair<const char*, bool> mandatory[] = {
      {"init", t->init != nullptr},
      {"fini", t->fini != nullptr},
      {"open_device", t->open_device != nullptr},
      {"close_device", t->close_device != nullptr},
      {"open_port", t->open_port != nullptr},
      {"close_port", t->close_port != nullptr},
      {"open_endpoint", t->open_endpoint != nullptr},
      {"close_endpoint", t->close_endpoint != nullptr},
      {"add_address", t->add_address != nullptr},
      {"remove_address", t->remove_address != nullptr},
      {"resolve", t->resolve != nullptr},
  };
  std::string missing;
  int missing_count = 0;
  for (const auto& op : mandatory) {
    if (op.second) continue;
    if (missing_count++) missing += ", ";
    missing += op.first;
  }
  if (missing_count) {
    *reason = RejectReason::kMissingOp;
    *why = (missing_count == 1 ? "mandatory op " + missing + " is NULL"
                               : "mandatory ops " + missing + " are NULL");
    return false;
  }

  *reason = RejectReason::kBadName;
  const size_t len = strnlen(t->name, SSA_PROV_NAME_MAX);
  if (len == SSA_PROV_NAME_MAX) {
    std::snprintf(buf, sizeof(buf), "provider name is not NUL-terminated within %d bytes",
                  SSA_PROV_NAME_MAX);
    *why = buf;
    return false;
  }
  if (len == 0) {
    *why = "empty provider name";
    return false;
  }
  if (!std::all_of(t->name, t->name + len, IsNameChar)) {
    *why = "provider name '" + Printable(t->name, len) +
           "' may only hold letters, digits, '_', '-' and '.'";
    return false;
  }
  return true;
}

Status ProviderLoader::AddOrReplace(std::unique_ptr<LoadedProvider> lp) {
  auto same = std::find_if(providers_.begin(), providers_.end(),
                           [&](const auto& p) { return p->name() == lp->name(); });
  if (same == providers_.end()) {
    SSA_LOG(*log_, kInfo, "provider '%s' version %u (ABI %u.%u, %u bytes) loaded from %s",
            lp->name().c_str(), lp->version(), SSA_PROV_ABI_MAJOR, lp->abi_minor(),
            lp->table_size(), lp->path().c_str());
    providers_.push_back(std::move(lp));
    return Status::Ok();
  }

  // Ties keep the first loaded: with LoadDirectory that is the first by
  // file name, so the outcome never depends on readdir order.
  const bool new_wins = lp->version() > (*same)->version();
  const LoadedProvider& winner = new_wins ? *lp : **same;
  const LoadedProvider& loser = new_wins ? **same : *lp;
  const char* rule = winner.version() > loser.version() ? "higher version wins"
                                                        : "same version: the first loaded stays";
  SSA_LOG(*log_, kWarn,
          "provider '%s': keeping version %u from %s, dropping version %u from %s (%s)",
          winner.name().c_str(), winner.version(), winner.path().c_str(), loser.version(),
          loser.path().c_str(), rule);
  char why[64];
  std::snprintf(why, sizeof(why), "' version %u from ", winner.version());
  const std::string message =
      "duplicate of provider '" + winner.name() + why + winner.path() + " (" + rule + ")";
  rejections_.push_back({loser.path(), RejectReason::kDuplicate, message});
  ++reject_counts_[static_cast<int>(RejectReason::kDuplicate)];

  if (!new_wins) return Status::Error(EEXIST, "provider " + lp->path() + " rejected: " + message);
  same->swap(lp);  // `lp` now holds the loser and closes it on return
  return Status::Ok();
}

Status ProviderLoader::Reject(const std::string& path, RejectReason reason, int err,
                              const std::string& why) {
  SSA_LOG(*log_, kWarn, "provider %s rejected: %s", path.c_str(), why.c_str());
  rejections_.push_back({path, reason, why});
  ++reject_counts_[static_cast<int>(reason)];
  return Status::Error(err, "provider " + path + " rejected: " + why);
}

}  // namespace ssa
