// provider_metrics_test.cc: what providers give through ABI 1.4's
// collect_metrics, as the core checks it (core/provider_metrics.h): valid
// families get the provider and port labels and are shared between
// providers; every malformed call is refused with -EINVAL, counted and
// logged at most once a minute, and the file with the rest still passes
// promtool and the Python client's parser. (The daemon's test with a real
// provider module is in daemon_kernel_test.cc.)
#include <cerrno>
#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "common/base/log.h"
#include "common/metrics/prom_text.h"
#include "core/provider_metrics.h"
#include "test/support/check_ok.h"
#include "test/support/prom_check.h"
#include "test/support/temp_dir.h"

// Last: its memory-leak macros redefine new.
#include <CppUTest/TestHarness.h>

using ssa::ProviderMetrics;
using ssa::metrics::PromText;

namespace {

using CollectFn = std::function<void(const ssa_metrics_ops*, ssa_metrics_sink_t*)>;

// Distinct port handles; the core never dereferences them here.
int port_a_storage, port_b_storage;
ssa_core_port_t* const kPortA = reinterpret_cast<ssa_core_port_t*>(&port_a_storage);
ssa_core_port_t* const kPortB = reinterpret_cast<ssa_core_port_t*>(&port_b_storage);

}  // namespace

TEST_GROUP(ProviderMetrics) {
  ssa::Logger log;
  std::vector<std::string> warnings;
  std::unique_ptr<ProviderMetrics> pm;

  void setup() override {
    log.set_sink([this](ssa::LogLevel level, const std::string& line) {
      if (level == ssa::LogLevel::kWarn) warnings.push_back(line);
    });
    pm = std::make_unique<ProviderMetrics>(&log);
  }

  ProviderMetrics::Source Source(const std::string& name, CollectFn collect) {
    ProviderMetrics::Source s;
    s.provider = name;
    s.ports = {{kPortA, "mlx5_0:1"}};
    s.collect = std::move(collect);
    return s;
  }

  // One snapshot: a core family, then the sources'.
  std::string Snapshot(const std::vector<ProviderMetrics::Source>& sources) {
    PromText out;
    out.Family("ibacm_up", ssa::metrics::kGauge, "Up.");
    out.Add(1);
    pm->Write(sources, &out);
    STRCMP_EQUAL("", out.error().c_str());
    return out.text();
  }
};

TEST(ProviderMetrics, ValidFamiliesGetTheProviderAndPortLabels) {
  std::string text = Snapshot({Source("ssa", [](const ssa_metrics_ops* m, ssa_metrics_sink_t* s) {
    const ssa_metric_label reason = {"reason", "not_in_prdb"};
    LONGS_EQUAL(0, m->family(s, "ibacm_x_fallbacks_total", SSA_METRIC_COUNTER, "Fallbacks."));
    LONGS_EQUAL(0, m->sample(s, kPortA, &reason, 1, 3));
    LONGS_EQUAL(0, m->sample(s, nullptr, nullptr, 0, 4));
    LONGS_EQUAL(0, m->family(s, "ibacm_x_age_seconds", SSA_METRIC_GAUGE, "Age \"now\"."));
    LONGS_EQUAL(0, m->sample(s, kPortA, nullptr, 0, 1.5));
  })});
  STRCMP_CONTAINS("# TYPE ibacm_x_fallbacks_total counter\n", text.c_str());
  STRCMP_CONTAINS(
      "ibacm_x_fallbacks_total{provider=\"ssa\",port=\"mlx5_0:1\",reason=\"not_in_prdb\"} 3\n",
      text.c_str());
  STRCMP_CONTAINS("ibacm_x_fallbacks_total{provider=\"ssa\"} 4\n", text.c_str());
  STRCMP_CONTAINS("# TYPE ibacm_x_age_seconds gauge\n", text.c_str());
  STRCMP_CONTAINS("ibacm_x_age_seconds{provider=\"ssa\",port=\"mlx5_0:1\"} 1.5\n", text.c_str());
  STRCMP_CONTAINS("ibacm_provider_metrics_rejected_total{provider=\"ssa\"} 0\n", text.c_str());
  LONGS_EQUAL(0, warnings.size());
}

TEST(ProviderMetrics, TwoProvidersShareAFamilyEachWithItsOwnPorts) {
  auto give = [](ssa_core_port_t* port, double v, int* rc) {
    return [=](const ssa_metrics_ops* m, ssa_metrics_sink_t* s) {
      LONGS_EQUAL(0, m->family(s, "ibacm_shared_total", SSA_METRIC_COUNTER, "Shared."));
      *rc = m->sample(s, port, nullptr, 0, v);
    };
  };
  int rc_a = -1, rc_b = -1;
  ProviderMetrics::Source b = Source("b", give(kPortB, 2, &rc_b));
  b.ports = {{kPortB, "mlx5_0:2"}};
  std::string text = Snapshot({Source("a", give(kPortA, 1, &rc_a)), b});
  LONGS_EQUAL(0, rc_a);
  LONGS_EQUAL(0, rc_b);
  STRCMP_CONTAINS(
      "# TYPE ibacm_shared_total counter\n"
      "ibacm_shared_total{provider=\"a\",port=\"mlx5_0:1\"} 1\n"
      "ibacm_shared_total{provider=\"b\",port=\"mlx5_0:2\"} 2\n",
      text.c_str());
  CHECK(text.find("# TYPE ibacm_shared_total", text.find("ibacm_shared_total{")) ==
        std::string::npos);
  // The other provider's port is not one of a's.
  Snapshot({Source("a", give(kPortB, 1, &rc_a))});
  LONGS_EQUAL(-EINVAL, rc_a);
  LONGS_EQUAL(1, pm->rejected("a"));
  LONGS_EQUAL(0, pm->rejected("b"));
}

TEST(ProviderMetrics, EachMalformedCallIsRefusedCountedAndTheRestWritten) {
  const ssa_metric_label ok = {"kind", "ok"};
  const ssa_metric_label twice[2] = {{"kind", "a"}, {"kind", "b"}};
  const ssa_metric_label reordered[2] = {{"b", "2"}, {"a", "1"}};
  const ssa_metric_label ordered[2] = {{"a", "1"}, {"b", "2"}};
  const std::string long_value(SSA_METRIC_VALUE_MAX + 1, 'v');
  const ssa_metric_label too_long = {"kind", long_value.c_str()};
  const ssa_metric_label no_value = {"kind", nullptr};
  // Each returns what the core answered one bad call.
  using Bad = std::function<int(const ssa_metrics_ops*, ssa_metrics_sink_t*)>;
  auto family = [](const char* name, int type, const char* help) -> Bad {
    return [=](const ssa_metrics_ops* m, ssa_metrics_sink_t* s) {
      return m->family(s, name, type, help);
    };
  };
  auto sample = [](ssa_core_port_t* port, const ssa_metric_label* l, size_t n, double v) -> Bad {
    return [=](const ssa_metrics_ops* m, ssa_metrics_sink_t* s) {
      return m->sample(s, port, l, n, v);
    };
  };
  const std::vector<Bad> family_bad = {
      family(nullptr, SSA_METRIC_GAUGE, "x"),
      family("node_load1", SSA_METRIC_GAUGE, "x"),  // not ours
      family("ibacm_", SSA_METRIC_GAUGE, "x"),
      family("ibacm_Mixed_case", SSA_METRIC_GAUGE, "x"),
      family("ibacm_rule:rate", SSA_METRIC_GAUGE, "x"),
      family("ibacm_dash-ed", SSA_METRIC_GAUGE, "x"),
      family("ibacm_counted", SSA_METRIC_COUNTER, "x"),
      family("ibacm_level_total", SSA_METRIC_GAUGE, "x"),
      family("ibacm_latency_sum", SSA_METRIC_GAUGE, "x"),
      family("ibacm_typed", 3, "x"),
      family("ibacm_up", SSA_METRIC_GAUGE, "x"),  // the core's
      family("ibacm_provider_metrics_rejected_total", SSA_METRIC_COUNTER, "x"),
      family("ibacm_helpless", SSA_METRIC_GAUGE, ""),
      family("ibacm_bad_help", SSA_METRIC_GAUGE, "two\nlines"),
      family("ibacm_good_total", SSA_METRIC_COUNTER, "x"),  // given twice (below)
  };
  const std::vector<Bad> sample_bad = {
      sample(kPortB, &ok, 1, 1),  // not this provider's port
      sample(nullptr, &ok, 9, 1),       sample(nullptr, nullptr, 1, 1),
      sample(nullptr, twice, 2, 1),     sample(nullptr, &no_value, 1, 1),
      sample(nullptr, &too_long, 1, 1), sample(nullptr, &ok, 1, -1),
      sample(nullptr, &ok, 1, NAN),     sample(nullptr, &ok, 1, INFINITY),
      sample(nullptr, &ok, 1, 5),        // the same series as the valid one
      sample(nullptr, reordered, 2, 1),  // the same series in another order
  };
  const ssa_metric_label bad_labels[] = {
      {"Kind", "x"}, {"__name__", "x"},       {"provider", "x"}, {"port", "x"},
      {"1st", "x"},  {"kind", "caf\xc3\xa9"}, {"kind", "a\tb"},
  };
  auto collect = [&](const ssa_metrics_ops* m, ssa_metrics_sink_t* s) {
    LONGS_EQUAL(-EINVAL, m->sample(s, nullptr, &ok, 1, 1));  // no family yet
    LONGS_EQUAL(0, m->family(s, "ibacm_good_total", SSA_METRIC_COUNTER, "Good."));
    LONGS_EQUAL(0, m->sample(s, nullptr, &ok, 1, 1));
    LONGS_EQUAL(0, m->sample(s, nullptr, ordered, 2, 1));
    for (size_t i = 0; i < sample_bad.size(); ++i)
      LONGS_EQUAL_TEXT(-EINVAL, sample_bad[i](m, s), ("sample case " + std::to_string(i)).c_str());
    for (const ssa_metric_label& l : bad_labels)
      LONGS_EQUAL_TEXT(-EINVAL, m->sample(s, nullptr, &l, 1, 1), l.name);
    for (size_t i = 0; i < family_bad.size(); ++i) {
      LONGS_EQUAL_TEXT(-EINVAL, family_bad[i](m, s), ("family case " + std::to_string(i)).c_str());
      LONGS_EQUAL(-EINVAL, m->sample(s, nullptr, nullptr, 0, 1));  // its samples too
    }
    LONGS_EQUAL(0, m->family(s, "ibacm_after_seconds", SSA_METRIC_GAUGE, "After."));
    LONGS_EQUAL(0, m->sample(s, kPortA, nullptr, 0, 0.25));
  };
  const size_t refused = 1 + sample_bad.size() + std::size(bad_labels) + 2 * family_bad.size();
  ssa::test::TempDir dir;
  CHECK_OK(dir.status());
  for (int round = 1; round <= 2; ++round) {
    std::string text = Snapshot({Source("p", collect)});
    LONGS_EQUAL(round * refused, pm->rejected("p"));
    STRCMP_CONTAINS(("ibacm_provider_metrics_rejected_total{provider=\"p\"} " +
                     std::to_string(round * refused) + "\n")
                        .c_str(),
                    text.c_str());
    STRCMP_CONTAINS("ibacm_good_total{provider=\"p\",kind=\"ok\"} 1\n", text.c_str());
    STRCMP_CONTAINS("ibacm_after_seconds{provider=\"p\",port=\"mlx5_0:1\"} 0.25\n", text.c_str());
    CHECK(text.find("ibacm_counted") == std::string::npos);
    CHECK(text.find("node_load1") == std::string::npos);
    std::string path = dir.path() + "/snap.prom";
    std::ofstream(path) << text;
    CHECK_OK(ssa::test::CheckPromFile(
        path, {"ibacm_up", "ibacm_good", "ibacm_after_seconds", "ibacm_provider_metrics_rejected"},
        dir.path()));
  }
  // Logged: one line a minute for the provider, however many it gets wrong.
  LONGS_EQUAL(1, warnings.size());
  STRCMP_CONTAINS("provider p: a metric left out of the metrics file: ", warnings[0].c_str());
}

TEST(ProviderMetrics, FamiliesAndSamplesAreBoundedPerProvider) {
  std::vector<std::string> names;
  for (size_t i = 0; i <= ProviderMetrics::kMaxFamilies; ++i)
    names.push_back("ibacm_f" + std::to_string(i));
  Snapshot({Source("p", [&](const ssa_metrics_ops* m, ssa_metrics_sink_t* s) {
    for (size_t i = 0; i < names.size(); ++i)
      LONGS_EQUAL(i < ProviderMetrics::kMaxFamilies ? 0 : -EINVAL,
                  m->family(s, names[i].c_str(), SSA_METRIC_GAUGE, "x"));
    LONGS_EQUAL(-EINVAL, m->family(s, "ibacm_f0", SSA_METRIC_GAUGE, "x"));  // given twice
  })});
  LONGS_EQUAL(2, pm->rejected("p"));
  Snapshot({Source("q", [&](const ssa_metrics_ops* m, ssa_metrics_sink_t* s) {
    LONGS_EQUAL(0, m->family(s, "ibacm_many", SSA_METRIC_GAUGE, "x"));
    for (size_t i = 0; i <= ProviderMetrics::kMaxSamples; ++i) {
      const std::string v = std::to_string(i);
      const ssa_metric_label l = {"i", v.c_str()};
      LONGS_EQUAL(i < ProviderMetrics::kMaxSamples ? 0 : -EINVAL, m->sample(s, nullptr, &l, 1, 1));
    }
  })});
  LONGS_EQUAL(1, pm->rejected("q"));
}

TEST(ProviderMetrics, WithoutProvidersThatGiveAnyNothingIsAdded) {
  PromText out;
  pm->Write({}, &out);
  STRCMP_EQUAL("", out.text().c_str());
}
