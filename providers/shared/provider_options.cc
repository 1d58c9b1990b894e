// provider_options.cc: see provider_options.h.
#include "providers/shared/provider_options.h"

#include "common/base/option_registry.h"

namespace ssa {
namespace provider_shared {

namespace {

int Collect(void* arg, const char* key, const char* value, const char* file, int line) {
  auto* out = static_cast<std::vector<RawOption>*>(arg);
  out->push_back({key ? key : "", value ? value : "", file ? file : "?", line});
  return 0;
}

}  // namespace

std::vector<RawOption> CollectOptions(const ssa_core_ops* ops, ssa_core_t* core) {
  std::vector<RawOption> entries;
  ops->config_foreach(core, Collect, &entries);
  return entries;
}

ConfigFormat FormatOf(const ssa_core_ops* ops, ssa_core_t* core,
                      const std::vector<RawOption>& entries, const std::string& section) {
  if (SSA_HAS_MEMBER(ops, config_format) && ops->config_format)
    return ops->config_format(core) == SSA_CONFIG_UPSTREAM ? ConfigFormat::kUpstream
                                                           : ConfigFormat::kIni;
  for (const RawOption& e : entries) {
    std::vector<std::string> sections = option_registry::SectionsOf(e.key);
    bool ours = false;
    for (const std::string& s : sections) ours = ours || s == section;
    if (!sections.empty() && !ours) return ConfigFormat::kUpstream;
  }
  return ConfigFormat::kIni;
}

std::vector<OptionNote> ReadOptions(const std::vector<RawOption>& entries, ConfigFormat format,
                                    const std::string& section, OptionSet& set) {
  auto unknown = [&](const ConfigEntry& e, const std::string& file) {
    std::string elsewhere = option_registry::BelongsElsewhere(e.key, section);
    if (format == ConfigFormat::kIni && elsewhere.empty())
      return std::optional<OptionNote>(set.UnknownKeyNote(e, file));
    OptionNote n;
    n.file = file;
    n.line = e.line;
    if (format == ConfigFormat::kUpstream) {
      n.severity = OptionNote::Severity::kDebug;
      n.text = "option '" + e.key + "' is not the " + section + " provider's";
    } else {
      n.text = elsewhere;
    }
    return std::optional<OptionNote>(n);
  };
  return ReadOptions(entries, section, set, unknown);
}

std::vector<OptionNote> ReadOptions(const std::vector<RawOption>& entries,
                                    const std::string& section, OptionSet& set,
                                    const OptionSet::UnknownKey& unknown) {
  std::vector<OptionNote> notes;
  for (const RawOption& raw : entries) {
    ConfigEntry e;
    e.section = section;
    e.key = raw.key;
    e.value = raw.value;
    e.line = raw.line;
    for (OptionNote& n : set.Read({e}, raw.file, unknown)) notes.push_back(std::move(n));
  }
  return notes;
}

void ReportNotes(const ssa_core_ops* ops, ssa_core_t* core, const std::vector<OptionNote>& notes) {
  for (const OptionNote& n : notes) {
    if (n.error())
      ops->config_warn(core, n.file.c_str(), n.line, n.text.c_str());
    else
      ops->log(core, SSA_LOG_DEBUG, "%s", n.ToString().c_str());
  }
}

void ReportValues(const ssa_core_ops* ops, ssa_core_t* core, const OptionSet& set) {
  if (!SSA_HAS_MEMBER(ops, config_value) || !ops->config_value) return;  // a core before 1.5
  for (const OptionValue& v : set.Values())
    ops->config_value(core, v.key.c_str(), v.value.c_str(), v.source.c_str());
}

void ReadOptionsFromCore(const ssa_core_ops* ops, ssa_core_t* core, const std::string& section,
                         OptionSet& set) {
  std::vector<RawOption> entries = CollectOptions(ops, core);
  ConfigFormat format = FormatOf(ops, core, entries, section);
  ReportNotes(ops, core, ReadOptions(entries, format, section, set));
  ReportValues(ops, core, set);
}

}  // namespace provider_shared
}  // namespace ssa
