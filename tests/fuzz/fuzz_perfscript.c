/*
 * fuzz_perfscript.c - libFuzzer target for the `perf script` parser
 * (src/profile.c pscript_parse): any bytes must give samples whose strings
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
	struct prof_iter it[2] = { { 0, 1000000000LL, 1000000000LL }, { 2000000000LL, 3000000000LL, 1000000000LL } };
	struct prof_input in = { .key = "k", .event = "e", .ps = &ps, .iters = it, .niters = 2, .split = 1,
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
