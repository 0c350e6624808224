/*
 * platform-pressure.c - the kernel's CPU pressure (PSI, Linux 4.20+):
 * how long some runnable task waited for a CPU.  kiln compare and kiln bench
 * read it when their pexecs start and when they end and say what share of
 * the session the CPUs were contended; a duet (two pexecs at once, on two CPUs) needs both
 * CPUs to itself, and on a machine whose other tasks take a CPU its pairs
 * are hit unevenly (bench/live.sh, E; docs/kiln-compare.md).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

int plat_cpu_pressure(uint64_t *us)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = -1;
	if (plat_read("/proc/pressure/cpu", &sb) == 0) {
		/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=12345" */
		const char *p = sb_str(&sb);
		const char *t = !strncmp(p, "some ", 5) ? strstr(p, " total=") : NULL;
		const char *nl = strchr(p, '\n');
		if (t && (!nl || t < nl) && isdigit((unsigned char)t[7])) {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(t + 7, &end, 10);
			if (!errno && (*end == '\0' || *end == '\n' || *end == ' ')) {
				*us = (uint64_t)v;
				rc = 0;
			}
		}
	}
	sb_release(&sb);
	return rc;
}

double plat_cpu_pressure_share(uint64_t us0, uint64_t us1, int64_t ns)
{
	if (ns <= 0 || us1 < us0)
		return -1;
	double f = (double)(us1 - us0) * 1000.0 / (double)ns;
	return f > 1 ? 1 : f;
}

void plat_pressure_begin(struct plat_pressure *p)
{
	p->ok = plat_cpu_pressure(&p->us0) == 0;
	p->t0 = mono_ns();
}

double plat_pressure_share(const struct plat_pressure *p)
{
	uint64_t us1;
	return p->t0 && p->ok && plat_cpu_pressure(&us1) == 0 ? plat_cpu_pressure_share(p->us0, us1, mono_ns() - p->t0) : -1;
}
