// check_ok.h: CHECK_OK(expr), the one way a CppUTest test asserts that a
// Status is OK. A bare CHECK(s.ok()) only says "false" when it fails;
// this prints the status's error text ("<message> (<strerror>)"), which is
// what tells a failure on a loaded CI machine apart from a real defect.
//
// `expr` is evaluated once and must be a ssa::Status (another type with an
// ok() does not compile). Expecting an error stays CHECK_FALSE(s.ok()) or a
// check of s.code(). Include <CppUTest/TestHarness.h> too (last, as
// CppUTest redefines new); the macro needs it only where it is used.
#ifndef IBACM_SSA_TEST_SUPPORT_CHECK_OK_H
#define IBACM_SSA_TEST_SUPPORT_CHECK_OK_H

#include "common/base/status.h"

#define CHECK_OK(expr)                                                      \
  do {                                                                      \
    const ::ssa::Status check_ok_status_ = (expr);                          \
    CHECK_TEXT(check_ok_status_.ok(), check_ok_status_.ToString().c_str()); \
  } while (0)

#endif
