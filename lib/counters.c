/*
 * counters.c - per-iteration counters for libkiln (placeholder until the
 * perf_event_open implementation lands: every requested counter is reported
 * unavailable, never zero).
 */
#include <stdlib.h>
#include <string.h>
#include "kiln.h"

struct kiln_counters {
	int nun;
	char *un[32];
};

struct kiln_counters *kiln_counters_open(const char *spec)
{
	struct kiln_counters *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (!spec)
		spec = getenv("KILN_COUNTERS");
	if (!spec)
		return c;
	char *dup = strdup(spec), *save = NULL;
	for (char *t = strtok_r(dup, ",", &save); t && c->nun < 32; t = strtok_r(NULL, ",", &save))
		if (*t)
			c->un[c->nun++] = strdup(t);
	free(dup);
	return c;
}

int kiln_counters_count(const struct kiln_counters *c) { (void)c; return 0; }
const char *kiln_counters_name(const struct kiln_counters *c, int i) { (void)c; (void)i; return NULL; }
int kiln_counters_unavailable_count(const struct kiln_counters *c) { return c ? c->nun : 0; }
const char *kiln_counters_unavailable_name(const struct kiln_counters *c, int i) { return c->un[i]; }
const char *kiln_counters_unavailable_reason(const struct kiln_counters *c, int i) { (void)c; (void)i; return "not implemented"; }
void kiln_counters_read(struct kiln_counters *c, uint64_t *out) { (void)c; (void)out; }
void kiln_counters_close(struct kiln_counters *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nun; i++)
		free(c->un[i]);
	free(c);
}
