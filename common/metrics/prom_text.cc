// prom_text.cc: see prom_text.h.
#include "common/metrics/prom_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace ssa {
namespace metrics {
namespace {

bool NameChar(char c, bool first, bool colon) {
  bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
  return alpha || (!first && c >= '0' && c <= '9');
}

bool ValidName(const std::string& name, bool colon) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (!NameChar(name[i], i == 0, colon)) return false;
  return true;
}

// HELP text escapes backslash and newline; label values also the quote.
std::string Escape(const std::string& s, bool quote) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (quote && c == '"')
      out += "\\\"";
    else
      out += c;
  }
  return out;
}

std::string Value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[40];
  // Counters are integers: print them whole (up to 2^53 exactly).
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {
    snprintf(buf, sizeof(buf), "%.0f", v);
    return buf;
  }
  // Otherwise the shortest text that reads back as the same double
  // (17.163754, not %.17g's 17.163753971999999).
  std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

}  // namespace

bool PromText::ValidMetricName(const std::string& name) { return ValidName(name, true); }

bool PromText::ValidLabelName(const std::string& name) {
  // Names starting with "__" are reserved for Prometheus itself.
  return ValidName(name, false) && name.compare(0, 2, "__") != 0;
}

void PromText::Fail(const std::string& why) {
  if (error_.empty()) error_ = why;
}

void PromText::Family(const std::string& name, Type type, const std::string& help) {
  family_.clear();
  if (!ValidMetricName(name)) return Fail("bad metric name '" + name + "'");
  if (!seen_.insert(name).second) return Fail("metric family '" + name + "' written twice");
  family_ = name;
  text_ += "# HELP " + name + " " + Escape(help, false) + "\n";
  text_ += "# TYPE " + name + (type == Type::kCounter ? " counter\n" : " gauge\n");
}

void PromText::Add(const Labels& labels, double value) {
  if (family_.empty()) return Fail("a sample outside a valid family");
  std::string line = family_;
  if (!labels.empty()) {
    line += "{";
    for (size_t i = 0; i < labels.size(); ++i) {
      if (!ValidLabelName(labels[i].first))
        return Fail("bad label name '" + labels[i].first + "' in " + family_);
      line += (i ? "," : "") + labels[i].first + "=\"" + Escape(labels[i].second, true) + "\"";
    }
    line += "}";
  }
  text_ += line + " " + Value(value) + "\n";
}

}  // namespace metrics
}  // namespace ssa
