/*
 * fuzz_records.c - libFuzzer target for the generic *.kiln.jsonl record
 * parser (src/record.c): any bytes must give records or an error, and every
 * record accepted must print (rec_to_json) to a line the parser accepts again
 * as the same record.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rec_list l = REC_LIST_INIT;
	struct rec_sink s = rec_list_sink(&l);
	struct kerr e = KERR_INIT;
	rec_parse_jsonl("fuzz", (const char *)data, size, &s, &e);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < l.n; i++) {
		rec_to_json(&l.v[i], &sb);
		sb_addc(&sb, '\n');
	}
	struct rec_list again = REC_LIST_INIT;
	struct rec_sink s2 = rec_list_sink(&again);
	if (rec_parse_jsonl("again", sb_str(&sb), sb.len, &s2, &e) < 0 || again.n != l.n)
		abort();
	for (size_t i = 0; i < l.n; i++) {
		const struct kiln_rec *a = &l.v[i], *b = &again.v[i];
		if (a->kind != b->kind || strcmp(a->name, b->name) || a->iter != b->iter ||
		    a->start_ns != b->start_ns || a->end_ns != b->end_ns ||
		    (a->kind != REC_EVENT && a->value != b->value))
			abort();
	}
	rec_list_clear(&again);
	rec_list_clear(&l);
	sb_release(&sb);
	kerr_release(&e);
	return 0;
}
