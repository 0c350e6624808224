/*
 * unit-self.h - for the unit tests that compare the analysis's vector
 * paths, which a process picks once: what this test program prints when
 * run again with KILN_NO_SIMD=simd (see an_simd_level) and one argument.
 */
#ifndef KILN_UNIT_SELF_H
#define KILN_UNIT_SELF_H

#include <stdio.h>
#include <unistd.h>

#include "util.h"

static char *run_self(const char *simd, const char *arg)
{
	char *cmd = xasprintf("KILN_NO_SIMD=%s /proc/%d/exe %s", simd, (int)getpid(), arg);
	FILE *p = popen(cmd, "r");
	free(cmd);
	struct strbuf sb = STRBUF_INIT;
	char buf[512];
	while (p && fgets(buf, sizeof(buf), p))
		sb_adds(&sb, buf);
	if (p)
		pclose(p);
	return sb_detach(&sb);
}

#endif
