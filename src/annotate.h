/*
 * annotate.h - `kiln annotate`'s work (cmd-annotate.c), callable on its own
 * (tests/fuzz/fuzz_annotate.c): the code loads of SYMBOL in a profile
 * folder's jitdumps, their samples from its perf script output, and the
 * hottest load disassembled with its counts on stdout; every input bounded
 * (ANN_MAX_* in cmd-annotate.c).
 */
#ifndef KILN_ANNOTATE_H
#define KILN_ANNOTATE_H

#include "util.h"

/* index -1: any load; hot: instructions marked hot; json: print JSON.  0, or -1 with e set */
int annotate_profile(const char *dir, const char *symbol, long index, int hot, int json, struct kerr *e);

#endif
