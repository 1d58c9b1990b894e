/* dup_v2.c: the "dup" test provider, version 2 (dup_provider.h). */
#define DUP_VERSION 2
#include "test/providers/extra/dup_provider.h"
