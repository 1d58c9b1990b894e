// provider_metrics.cc: see provider_metrics.h.
#include "core/provider_metrics.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <new>
#include <set>
#include <utility>

namespace ssa {
namespace {

using metrics::Labels;
using metrics::PromText;

constexpr char kPrefix[] = "ibacm_";
constexpr char kRejectedFamily[] = "ibacm_provider_metrics_rejected_total";
constexpr size_t kMaxNameLength = 128;
constexpr size_t kMaxHelpLength = 512;
constexpr size_t kMaxLabels = 8;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Printable ASCII of at most `max` bytes: escaping makes anything legal in
// the format, but a byte that is not UTF-8 breaks the parsers, and a
// control character the dashboards.
bool PrintableText(const char* s, size_t max) {
  for (size_t i = 0; s[i]; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (i >= max || c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

bool SnakeCase(const std::string& s, bool digit_first) {
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || c == '_' || ((i || digit_first) && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return !s.empty();
}

// Why `name` cannot be a provider's family of `type` ("" when it can).
// Beyond the format's rule, what promtool's lint checks: snake_case, no
// colons (recording rules' own), _total on counters only, no histogram or
// summary suffixes.
std::string NameProblem(const std::string& name, int type) {
  if (name.compare(0, sizeof(kPrefix) - 1, kPrefix) != 0 || name.size() == sizeof(kPrefix) - 1)
    return "its name does not start with ibacm_";
  if (name.size() > kMaxNameLength) return "its name is longer than 128 bytes";
  if (!SnakeCase(name, false)) return "its name is not [a-z0-9_]";
  if (type != SSA_METRIC_COUNTER && type != SSA_METRIC_GAUGE)
    return "unknown type " + std::to_string(type);
  const bool total = EndsWith(name, "_total");
  if (type == SSA_METRIC_COUNTER && !total) return "a counter's name must end in _total";
  if (type == SSA_METRIC_GAUGE && total) return "only a counter's name ends in _total";
  for (const char* reserved : {"_count", "_sum", "_bucket", "_created"})
    if (EndsWith(name, reserved)) return std::string("its name ends in ") + reserved;
  return "";
}

// Why `l` cannot be a label of a sample whose other label names are
// `names` ("" when it can; its name is added to `names`).
std::string LabelProblem(const ssa_metric_label& l, std::set<std::string>* names) {
  if (!l.name || !l.value) return "a label without a name or value";
  const std::string name(l.name, strnlen(l.name, kMaxNameLength + 1));
  if (name.size() > kMaxNameLength || !SnakeCase(name, false) || name.compare(0, 2, "__") == 0)
    return "a label name that is not [a-z_][a-z0-9_]*";
  if (name == "provider" || name == "port") return "label '" + name + "' is the core's";
  if (!names->insert(name).second) return "label '" + name + "' twice";
  if (!PrintableText(l.value, SSA_METRIC_VALUE_MAX))
    return "label '" + name + "': a value that is not printable ASCII of at most 128 bytes";
  return "";
}

// What the providers gave in one snapshot, checked call by call.
class Collection {
 public:
  using RefuseFn = std::function<void(const std::string& provider, const std::string& why)>;

  Collection(const PromText* core, RefuseFn refuse) : core_(core), refuse_(std::move(refuse)) {}

  void Begin(const ProviderMetrics::Source* source) {
    source_ = source;
    started_.clear();
    current_ = kNone;
    samples_ = 0;
  }

  int Family(const char* name_in, int type, const char* help) {
    current_ = kNone;
    if (!name_in) return Refuse("a family without a name");
    const std::string name(name_in, strnlen(name_in, kMaxNameLength + 1));
    std::string why = NameProblem(name, type);
    if (why.empty() && (core_->Has(name) || name == kRejectedFamily))
      why = "the core writes that family";
    if (why.empty() && !started_.insert(name).second) why = "given twice";
    if (why.empty() && started_.size() > ProviderMetrics::kMaxFamilies)
      why = "more than 100 families";
    if (why.empty() && (!help || !*help || !PrintableText(help, kMaxHelpLength)))
      why = "its help is empty or not printable ASCII of at most 512 bytes";
    if (!why.empty()) return Refuse("family " + name + ": " + why);
    // Another provider's family of the same name has the same type: the
    // name says it (_total).
    auto it = by_name_.find(name);
    if (it == by_name_.end()) {
      it = by_name_.emplace(name, families_.size()).first;
      families_.push_back(
          {name, type == SSA_METRIC_COUNTER ? metrics::kCounter : metrics::kGauge, help, {}, {}});
    }
    current_ = it->second;
    return 0;
  }

  int Sample(ssa_core_port_t* port, const ssa_metric_label* labels, size_t n, double value) {
    if (current_ == kNone) return Refuse("a sample outside a family it was given");
    StagedFamily& f = families_[current_];
    auto refuse = [&](const std::string& why) { return Refuse(f.name + ": " + why); };
    if (++samples_ > ProviderMetrics::kMaxSamples) return refuse("more than 10000 samples");
    Labels l = {{"provider", source_->provider}};
    if (port) {
      auto p = source_->ports.find(port);
      if (p == source_->ports.end()) return refuse("a port that is not one of the provider's");
      l.push_back({"port", p->second});
    }
    if (n > kMaxLabels || (n && !labels)) return refuse("more than 8 labels, or none given");
    std::set<std::string> names;
    for (size_t i = 0; i < n; ++i) {
      std::string why = LabelProblem(labels[i], &names);
      if (!why.empty()) return refuse(why);
      l.push_back({labels[i].name, labels[i].value});
    }
    if (!std::isfinite(value) || (f.type == metrics::kCounter && value < 0))
      return refuse("a value that is not finite, or a negative count");
    Labels key = l;  // one series whatever the order of its labels
    std::sort(key.begin(), key.end());
    if (!f.series.insert(key).second) return refuse("the same labels twice");
    f.samples.push_back({std::move(l), value});
    return 0;
  }

  void WriteTo(PromText* out) const {
    for (const StagedFamily& f : families_) {
      if (f.samples.empty()) continue;
      out->Family(f.name, f.type, f.help);
      for (const auto& s : f.samples) out->Add(s.first, s.second);
    }
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);
  struct StagedFamily {
    std::string name;
    PromText::Type type;
    std::string help;
    std::vector<std::pair<Labels, double>> samples;
    std::set<Labels> series;  // each sample's labels, sorted
  };

  int Refuse(const std::string& why) {
    refuse_(source_->provider, why);
    return -EINVAL;
  }

  const PromText* core_;
  RefuseFn refuse_;
  std::vector<StagedFamily> families_;  // in the order first given
  std::map<std::string, size_t> by_name_;
  const ProviderMetrics::Source* source_ = nullptr;
  std::set<std::string> started_;  // the families the current provider gave
  size_t current_ = kNone;         // index in families_
  size_t samples_ = 0;             // the current provider's
};

}  // namespace
}  // namespace ssa

// The handle providers see as ssa_metrics_sink_t.
struct ssa_metrics_sink {
  ssa::Collection* collection;
};

namespace ssa {
namespace {

// The callbacks are C: nothing may unwind into the provider.
template <typename Fn>
int Guarded(Fn fn) noexcept {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return -ENOMEM;
  } catch (...) {
    return -EIO;
  }
}

int SinkFamily(ssa_metrics_sink_t* sink, const char* name, int type, const char* help) {
  if (!sink) return -EINVAL;
  return Guarded([&] { return sink->collection->Family(name, type, help); });
}

int SinkSample(ssa_metrics_sink_t* sink, ssa_core_port_t* port, const ssa_metric_label* labels,
               size_t nlabels, double value) {
  if (!sink) return -EINVAL;
  return Guarded([&] { return sink->collection->Sample(port, labels, nlabels, value); });
}

const ssa_metrics_ops kSinkOps = {sizeof(ssa_metrics_ops), SinkFamily, SinkSample};

}  // namespace

ProviderMetrics::ProviderMetrics(Logger* log) : refused_log_(log, std::chrono::minutes(1)) {}

uint64_t ProviderMetrics::rejected(const std::string& provider) const {
  auto it = rejected_.find(provider);
  return it == rejected_.end() ? 0 : it->second;
}

void ProviderMetrics::Write(const std::vector<Source>& sources, PromText* out) {
  if (sources.empty()) return;
  Collection c(out, [this](const std::string& provider, const std::string& why) {
    ++rejected_[provider];
    refused_log_.Log(LogLevel::kWarn, provider,
                     "provider %s: a metric left out of the metrics file: %s (counted in %s)",
                     provider.c_str(), why.c_str(), kRejectedFamily);
  });
  for (const Source& s : sources) {
    rejected_.emplace(s.provider, 0);
    c.Begin(&s);
    ssa_metrics_sink sink{&c};
    s.collect(&kSinkOps, &sink);
  }
  c.WriteTo(out);
  out->Family(kRejectedFamily, metrics::kCounter,
              "Metric families and samples from a provider that the core left out as malformed.");
  for (const Source& s : sources)
    out->Add({{"provider", s.provider}}, static_cast<double>(rejected_[s.provider]));
}

}  // namespace ssa
