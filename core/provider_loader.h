// provider_loader.h: finds provider shared objects, loads them with libltdl
// and checks each against the provider ABI (include/ibacm_ssa/provider.h)
// before anything else may call into it.
//
// A provider is rejected, with exactly one warning naming the file and the
// reason, when: it cannot be loaded (symbols are bound eagerly, so a missing
// dependency is caught here and not at the first resolve), it has no entry
// symbol, its entry returns NULL, its ABI major differs from ours, its table
// is smaller than the 1.0 table, a mandatory op is NULL, or its name is empty,
// unterminated or not a plain word. Two providers with one name: the higher
// `version` wins (the first loaded on a tie) and one line says which and why.
//
// The loader only loads and checks; init()/fini() belong to the ProviderHost.
// Ownership: the loader owns every LoadedProvider and the module behind it;
// a provider's table and ops are valid until the loader is destroyed, so it
// must outlive every user of them (the host must have called fini first).
// Threading: one thread (start-up); libltdl keeps process-wide state and its
// error string is not thread-safe. Several loaders may exist in one process.
#ifndef IBACM_SSA_CORE_PROVIDER_LOADER_H
#define IBACM_SSA_CORE_PROVIDER_LOADER_H

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/log.h"
#include "common/base/status.h"

namespace ssa {

// The append-only rule of the ABI, for any table or info struct whose first
// member is its uint32_t size (all of them are): returns `table->*member` if
// the table is large enough to hold it, else a value-initialised T (nullptr
// for an op). Same test as SSA_HAS_MEMBER, but usable with member pointers,
// so every optional or appended op is read the same way:
//   auto fn = AbiMember(prov, &ssa_provider::query_perf);  // null if absent
// `Table` may also be a later version of a struct that starts with an older
// one (the tests use that to play a newer core reading an older provider).
template <typename Table, typename T>
T AbiMember(const Table* table, T Table::*member) {
  static_assert(std::is_standard_layout<Table>::value && std::is_trivial<Table>::value,
                "ABI tables are plain C structs");
  // The offset comes from a probe object, so no pointer past the end of the
  // (possibly smaller) real table is ever formed.
  static const Table probe{};
  const size_t offset =
      reinterpret_cast<const char*>(&(probe.*member)) - reinterpret_cast<const char*>(&probe);
  uint32_t size;
  std::memcpy(&size, table, sizeof(size));  // the leading size member
  if (size < offset + sizeof(T)) return T{};
  return table->*member;
}

// Why a provider file was turned away.
enum class RejectReason {
  kLoadFailed,  // dlopen failed (missing file, unresolved symbol, not an ELF)
  kNoEntry,     // no SSA_PROVIDER_ENTRY_SYMBOL
  kEntryNull,   // the entry refused our ABI version
  kWrongMajor,  // abi_major differs from SSA_PROV_ABI_MAJOR
  kTooSmall,    // size < SSA_PROVIDER_V1_0_SIZE
  kMissingOp,   // a mandatory 1.0 op is NULL
  kBadName,     // empty, unterminated or not [A-Za-z0-9_.-]
  kDuplicate,   // another provider of that name won
};
constexpr int kRejectReasonCount = 8;
const char* RejectReasonName(RejectReason reason);

struct ProviderRejection {
  std::string path;
  RejectReason reason;
  std::string message;  // what the log line said after "rejected: "
};

// One accepted provider: the module (closed on destruction) and its table.
class LoadedProvider {
 public:
  ~LoadedProvider();
  LoadedProvider(const LoadedProvider&) = delete;
  LoadedProvider& operator=(const LoadedProvider&) = delete;

  const std::string& name() const { return name_; }
  uint32_t version() const { return table_->version; }
  const std::string& path() const { return path_; }
  const ssa_provider* table() const { return table_; }
  uint16_t abi_minor() const { return table_->abi_minor; }
  uint32_t table_size() const { return table_->size; }

  // Optional ops: present only if inside the table's size and non-NULL.
  bool HasPortChanged() const { return AbiMember(table_, &ssa_provider::port_changed) != nullptr; }
  bool HasQuery() const { return AbiMember(table_, &ssa_provider::query) != nullptr; }
  bool HasQueryPerf() const { return AbiMember(table_, &ssa_provider::query_perf) != nullptr; }
  bool HasPortEvent() const { return AbiMember(table_, &ssa_provider::port_event) != nullptr; }
  bool HasCollectMetrics() const {
    return AbiMember(table_, &ssa_provider::collect_metrics) != nullptr;
  }

 private:
  friend class ProviderLoader;
  LoadedProvider(std::string path, void* module, const ssa_provider* table);

  std::string path_;
  std::string name_;
  void* module_;  // the lt_dlhandle (kept opaque so users need not include ltdl.h)
  const ssa_provider* table_;
};

class ProviderLoader {
 public:
  // `log` is borrowed and must outlive the loader.
  explicit ProviderLoader(Logger* log);
  ~ProviderLoader();  // closes every module
  ProviderLoader(const ProviderLoader&) = delete;
  ProviderLoader& operator=(const ProviderLoader&) = delete;

  // Loads every regular file named *.so in `dir`, in name order (so the
  // result does not depend on readdir order). Other files are ignored.
  // Rejected files are logged and recorded, not errors: the Status fails
  // only if the directory cannot be read, and then names it.
  Status LoadDirectory(const std::string& dir);
  // Loads one file. OK if it is loaded and kept; otherwise the Status
  // repeats the reason already logged (EEXIST: lost to a duplicate).
  Status LoadFile(const std::string& path);

  // Accepted providers in load order (a duplicate that wins takes the place
  // of the one it replaced).
  const std::vector<std::unique_ptr<LoadedProvider>>& providers() const { return providers_; }
  const LoadedProvider* Find(const std::string& name) const;

  const std::vector<ProviderRejection>& rejections() const { return rejections_; }
  size_t rejected_count() const { return rejections_.size(); }
  size_t RejectionCount(RejectReason reason) const {
    return reject_counts_[static_cast<int>(reason)];
  }

 private:
  Status Reject(const std::string& path, RejectReason reason, int err, const std::string& why);
  // True if `table` is acceptable; else sets the reason and the text.
  static bool Validate(const ssa_provider* table, RejectReason* reason, std::string* why);
  Status AddOrReplace(std::unique_ptr<LoadedProvider> lp);

  Logger* log_;
  bool ltdl_ready_ = false;
  std::string ltdl_error_;
  std::vector<std::unique_ptr<LoadedProvider>> providers_;
  std::vector<ProviderRejection> rejections_;
  size_t reject_counts_[kRejectReasonCount] = {};
};

}  // namespace ssa

#endif
