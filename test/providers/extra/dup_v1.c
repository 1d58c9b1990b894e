/* dup_v1.c: the "dup" test provider, version 1 (dup_provider.h). */
#define DUP_VERSION 1
#include "test/providers/extra/dup_provider.h"
