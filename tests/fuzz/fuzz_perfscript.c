/*
 * fuzz_perfscript.c - libFuzzer target for the `perf script` parser
 * (src/perfscript.c pscript_parse, pscript_attach_chains): any bytes must give samples whose strings
 * are valid interned indices, and the report built on them must count every
 * sample exactly once (overall = in iterations + outside).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pscript ps;
	pscript_init(&ps);
	pscript_parse(&ps, (const char *)data, size);
	for (size_t i = 0; i < ps.n; i++)
		if (ps.s[i].comm >= ps.strs.n || ps.s[i].sym >= ps.strs.n || ps.s[i].dso >= ps.strs.n)
			abort();
	for (size_t i = 0; i < ps.n; i++)
		if (ps.s[i].nframes > PS_MAX_FRAMES || ps.s[i].frame0 + ps.s[i].nframes > ps.nframes)
			abort();
	for (size_t i = 0; i < ps.nframes; i++)
		if (ps.frames[i].sym >= ps.strs.n || ps.frames[i].dso >= ps.strs.n)
			abort();
	/* the same bytes as the chains of the same samples: every sample keeps a chain */
	size_t n0 = ps.n;
	pscript_attach_chains(&ps, 0, (const char *)data, size);
	if (ps.n != n0)
		abort();
	struct prof_iter it[2] = { { 0, 1000000000LL, 1000000000LL, -1 }, { 2000000000LL, 3000000000LL, 1000000000LL, 5 } };
	struct prof_pexec_in px = { .pid = 1, .iters = it, .niters = 2, .split = 1 };
	struct prof_input in = { .key = "k", .event = "e", .ps = &ps, .px = &px, .npx = 1,
				 .vm = { "node", "/usr/bin/node" }, .top = 5 };
	json_t *r = prof_report(&in);
	json_int_t all = json_integer_value(json_object_get(r, "samples"));
	json_int_t a = json_integer_value(json_object_get(r, "in_iterations"));
	json_int_t b = json_integer_value(json_object_get(r, "outside_iterations"));
	if (all != (json_int_t)ps.n || a + b != all)
		abort();
	json_decref(r);
	pscript_release(&ps);
	return 0;
}
