// prom_text.h: metrics in the Prometheus text exposition format (0.0.4),
// the format node_exporter's textfile collector reads and `promtool check
// metrics` checks:
//
//   # HELP ibacm_resolves_total Resolves answered, by provider and outcome.
//   # TYPE ibacm_resolves_total counter
//   ibacm_resolves_total{provider="ssa",outcome="success"} 1027
//
// One family at a time: Family() writes its HELP and TYPE lines, Add() its
// samples. Names follow the format's rules ([a-zA-Z_:][a-zA-Z0-9_:]*, label
// names without ':'); a family or label name that breaks them, or a family
// named twice, is a programming error: it is left out and error() says
// which, so a test fails on it and a daemon never writes a file promtool
// rejects. Label values and help text are escaped as the format says.
//
// A plain value; one thread at a time.
#ifndef IBACM_SSA_COMMON_METRICS_PROM_TEXT_H
#define IBACM_SSA_COMMON_METRICS_PROM_TEXT_H

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ssa {
namespace metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

class PromText {
 public:
  enum class Type { kCounter, kGauge };

  // Starts family `name` (counters end in _total by convention: the caller
  // names them so).
  void Family(const std::string& name, Type type, const std::string& help);
  // A sample of the current family.
  void Add(const Labels& labels, double value);
  void Add(double value) { Add(Labels(), value); }

  const std::string& text() const { return text_; }
  // Whether family `name` was written already.
  bool Has(const std::string& name) const { return seen_.count(name) != 0; }
  // Empty when every name was valid; else the first problem.
  const std::string& error() const { return error_; }

  static bool ValidMetricName(const std::string& name);
  static bool ValidLabelName(const std::string& name);

 private:
  void Fail(const std::string& why);

  std::string text_;
  std::string error_;
  std::string family_;          // the current family; empty: none open
  std::set<std::string> seen_;  // families written
};

// The two types by short name, for the files that write many families.
constexpr PromText::Type kCounter = PromText::Type::kCounter;
constexpr PromText::Type kGauge = PromText::Type::kGauge;

}  // namespace metrics
}  // namespace ssa

#endif
