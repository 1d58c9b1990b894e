// provider_host_ops_test.cc: the core's ops table (ProviderHost::Ops()) as
// a provider written in C calls it: when an allocation fails inside an op,
// the provider gets the op's error code (-ENOMEM, 0 from timer_add) and no
// exception; the host counts and logs the failure and the ops work again
// afterwards.
#include <infiniband/acm.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/mad/mad_wire.h"
#include "common/mad/sa_client.h"
#include "core/core_model.h"
#include "core/provider_host.h"
#include "test/support/check_ok.h"
#include "test/unit/fake_sa_wire.h"

// Last: its macros redefine new.
#include <CppUTest/TestHarness.h>

namespace {

void NoTimer(void*) {}
void NoFd(void*, int, uint32_t) {}
int NoOption(void*, const char*, const char*, const char*, int) { return 0; }
void NoSaDone(void*, int, const uint8_t*, size_t) {}

}  // namespace

TEST_GROUP(ProviderHostOps) {
  ssa::EventLoop loop;
  ssa::Logger log;
  ssa::CounterArray counters{};
  std::unique_ptr<ssa::ProviderHost> host;
  ssa_core core{};  // the handle a provider holds (no instance: no config either)
  const ssa_core_ops* ops = ssa::ProviderHost::Ops();
  std::vector<std::string> errors;
  std::vector<std::string> faulted;  // ops the fault hook ran in

  void setup() override {
    CHECK_OK(loop.Init());
    log.set_sink([this](ssa::LogLevel level, const std::string& line) {
      if (level == ssa::LogLevel::kError) errors.push_back(line);
    });
    host = std::make_unique<ssa::ProviderHost>(&loop, &log, nullptr, &counters);
    core.host = host.get();
    core.inst = nullptr;
  }
  void teardown() override { host.reset(); }

  void FailAllocations() {
    host->set_op_fault([this](const char* op) {
      faulted.push_back(op);
      throw std::bad_alloc();
    });
  }
};

TEST(ProviderHostOps, AnAllocationFailingInsideEachOpReturnsItsErrorCode) {
  int pipe_fds[2];
  CHECK_EQUAL(0, pipe(pipe_fds));
  ssa::CorePort port;  // no SA client: sa_send would say -ENOTCONN
  uint8_t mad[256] = {};
  FailAllocations();

  LONGS_EQUAL(0, ops->timer_add(&core, 10, NoTimer, nullptr));
  LONGS_EQUAL(-ENOMEM, ops->timer_cancel(&core, 1));
  LONGS_EQUAL(-ENOMEM, ops->fd_watch(&core, pipe_fds[0], EPOLLIN, NoFd, nullptr));
  LONGS_EQUAL(-ENOMEM, ops->fd_unwatch(&core, pipe_fds[0]));
  LONGS_EQUAL(-ENOMEM, ops->resolve_done(&core, 1, ACM_STATUS_SUCCESS, nullptr));
  LONGS_EQUAL(-ENOMEM, ops->query_done(&core, 1, ACM_STATUS_SUCCESS, nullptr));
  LONGS_EQUAL(-ENOMEM, ops->sa_send(&core, port.handle(), mad, sizeof(mad), NoSaDone, nullptr));
  LONGS_EQUAL(-ENOMEM, ops->config_foreach(&core, NoOption, nullptr));
  // The void ops cannot say so; they return, and the core counts it.
  ops->log(&core, SSA_LOG_ERROR, "from the provider");
  ops->config_warn(&core, "file", 1, "bad option");
  ops->counter_add(&core, ACM_CNTR_RESOLVE, 1);
  // Allocates nothing, so it answers all the same (no file: our format).
  LONGS_EQUAL(SSA_CONFIG_INI, ops->config_format(&core));

  LONGS_EQUAL(11, faulted.size());
  LONGS_EQUAL(11, host->op_failures());
  LONGS_EQUAL(0, counters[ACM_CNTR_RESOLVE]);
  // One error line per failure; the provider's own log line is lost.
  LONGS_EQUAL(11, errors.size());
  STRCMP_EQUAL("provider ?: timer_add failed: out of memory", errors[0].c_str());

  // Memory back: the same ops do their work.
  host->set_op_fault(nullptr);
  uint64_t timer = ops->timer_add(&core, 10000, NoTimer, nullptr);
  CHECK(timer != 0);
  LONGS_EQUAL(0, ops->timer_cancel(&core, timer));
  LONGS_EQUAL(0, ops->fd_watch(&core, pipe_fds[0], EPOLLIN, NoFd, nullptr));
  LONGS_EQUAL(0, ops->fd_unwatch(&core, pipe_fds[0]));
  LONGS_EQUAL(-ENOTCONN, ops->sa_send(&core, port.handle(), mad, sizeof(mad), NoSaDone, nullptr));
  ops->counter_add(&core, ACM_CNTR_RESOLVE, 1);
  LONGS_EQUAL(1, counters[ACM_CNTR_RESOLVE]);
  LONGS_EQUAL(11, host->op_failures());
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

// The answer itself allocates (the dispatcher builds the client's reply):
// when that fails, resolve_done says -ENOMEM; anything else thrown is -EIO.
TEST(ProviderHostOps, AnAnswerThatThrowsIsAnErrorCodeForTheProvider) {
  host->set_answer_fn([](ssa::ProviderHost::PendingRequest&&, uint8_t, const ibv_path_record*) {
    throw std::bad_alloc();
  });
  uint64_t id = host->AddRequest(ssa::ProviderHost::PendingRequest());
  LONGS_EQUAL(-ENOMEM, ops->resolve_done(&core, id, ACM_STATUS_ENODATA, nullptr));
  LONGS_EQUAL(0, host->pending());

  host->set_answer_fn([](ssa::ProviderHost::PendingRequest&&, uint8_t, const ibv_path_record*) {
    throw std::runtime_error("reply encoder broke");
  });
  id = host->AddRequest(ssa::ProviderHost::PendingRequest());
  LONGS_EQUAL(-EIO, ops->query_done(&core, id, ACM_STATUS_ENODATA, nullptr));
  LONGS_EQUAL(2, host->op_failures());
  LONGS_EQUAL(2, errors.size());
  STRCMP_EQUAL("provider ?: query_done failed: unexpected exception", errors[1].c_str());
}

// The SA queries a provider sends while the core hands it a client's
// request wait in that client's share of the port's SA queue; the others
// (no client: the kernel's requests, the provider's own work) in the
// daemon's (flow 0). So one client's QUERY_SA burst does not hold another
// client's query behind it.
TEST(ProviderHostOps, SaQueriesSentForAClientWaitInThatClientsShare) {
  auto wire = std::make_shared<ssa::test::FakeWire>();
  ssa::UmadPort info;
  info.ca_name = "fake0";
  info.port_num = 1;
  info.sm_lid = 1;
  ssa::SaClientOptions sa_opts;  // depth 1
  ssa::CorePort port;
  port.sa = std::make_unique<ssa::SaClient>(&loop, &log, info, sa_opts,
                                            std::make_unique<ssa::test::FakeTransport>(wire));
  CHECK_OK(port.sa->Open());
  auto send = [&](uint16_t dlid) {
    uint8_t mad[256];
    ssa::mad::BuildPathRecordGetByLid(0, 2, dlid, 0xffff, mad);
    LONGS_EQUAL(0, ops->sa_send(&core, port.handle(), mad, sizeof(mad), NoSaDone, nullptr));
  };
  send(1);  // no client: in flight at once
  {
    ssa::ProviderHost::FlowScope client_a(host.get(), 7);
    for (uint16_t d = 10; d < 15; ++d) send(d);
    {
      ssa::ProviderHost::FlowScope client_b(host.get(), 8);  // (nested: restored after)
      send(20);
    }
    LONGS_EQUAL(7, host->current_flow());
  }
  LONGS_EQUAL(0, host->current_flow());
  send(2);
  LONGS_EQUAL(7, port.sa->queued());
  LONGS_EQUAL(3, port.sa->queued_flows());
  // Answered one at a time: client 7, client 8 and the daemon in turn.
  for (size_t i = 0; i < 4; ++i) {
    wire->Answer(i);
    CHECK_TRUE(loop.RunUntil([&] { return wire->sent.size() == i + 2; }, std::chrono::seconds(2)));
  }
  LONGS_EQUAL(10, wire->Dlid(1));
  LONGS_EQUAL(20, wire->Dlid(2));
  LONGS_EQUAL(2, wire->Dlid(3));
  LONGS_EQUAL(11, wire->Dlid(4));
  port.sa.reset();
}
