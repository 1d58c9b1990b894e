# common/answer/: the answer rule (answer_rule.h), what a client is
# answered from a PRDB record: C, shared by the ssa provider (through
# libanswer.la) and libibssa_path, which compiles it itself
# (ANSWER_C_SOURCES), as does its fuzzer.
ANSWER_C_SOURCES = common/answer/answer_rule.h common/answer/answer_rule.c
noinst_LTLIBRARIES += common/answer/libanswer.la
common_answer_libanswer_la_SOURCES = $(ANSWER_C_SOURCES)
common_answer_libanswer_la_CFLAGS = $(AM_CFLAGS) -std=gnu11
