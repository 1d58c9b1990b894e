#include "common/base/status.h"

#include "test/support/check_ok.h"

#include <CppUTest/TestHarness.h>

TEST_GROUP(Status){};

TEST(Status, DefaultIsOk) {
  ssa::Status st;
  CHECK_OK(st);
  STRCMP_EQUAL("OK", st.ToString().c_str());
}

TEST(Status, ErrorKeepsNegativeCodeAndMessage) {
  ssa::Status st = ssa::Status::Error(ENOENT, "no such provider 'x'");
  CHECK_FALSE(st.ok());
  LONGS_EQUAL(-ENOENT, st.code());
  STRCMP_EQUAL("no such provider 'x' (No such file or directory)", st.ToString().c_str());
  LONGS_EQUAL(-EINVAL, ssa::Status::Error(-EINVAL, "x").code());
  LONGS_EQUAL(-EIO, ssa::Status::Error(0, "zero is not an error code").code());
}

TEST(Status, WithContextPrefixesOnlyErrors) {
  STRCMP_EQUAL("OK", ssa::Status::Ok().WithContext("file").ToString().c_str());
  STRCMP_EQUAL("a.cfg: bad",
               ssa::Status::Error(EINVAL, "bad").WithContext("a.cfg").message().c_str());
}

TEST(Status, FromErrnoUsesErrno) {
  errno = EACCES;
  ssa::Status st = ssa::Status::FromErrno("open /x");
  LONGS_EQUAL(-EACCES, st.code());
  STRCMP_EQUAL("open /x", st.message().c_str());
}
