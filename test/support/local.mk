# test/support/: what the test programs share, so that each piece of test
# logic is written once: CHECK_OK (check_ok.h, header only).
EXTRA_DIST += test/support/check_ok.h
