/*
 * fuzz_pypylog.c - libFuzzer target for the PYPYLOG parser
 * (plugins/pypy/parse_pypylog.c) and its calibration reader.  The first byte
 * picks the size of the chunks the log is fed in, so the streaming paths
 * (lines split across chunks, over-long lines) are exercised; and the result
 * must not depend on the chunking: the records of a chunked parse are checked
 * against a one-shot parse of the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "../../plugins/pypy/pypylog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void dump(const struct rec_list *l, struct strbuf *sb)
{
	for (size_t i = 0; i < l->n; i++) {
		rec_to_json(&l->v[i], sb);
		sb_addc(sb, '\n');
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kerr e = KERR_INIT;
	struct pypylog_calib cal = { 1.0, 0, 0 };
	pypylog_calib_parse("fuzz.json", (const char *)data, size, &cal, &e);
	cal.ns_per_tick = 0.37;
	if (!size) {
		kerr_release(&e);
		return 0;
	}
	size_t chunk = (size_t)data[0] % 64 + 1;
	data++, size--;

	struct rec_list one = REC_LIST_INIT, many = REC_LIST_INIT;
	struct rec_sink s1 = rec_list_sink(&one), s2 = rec_list_sink(&many);
	int r1 = pypylog_parse_mem("fuzz", (const char *)data, size, &cal, &s1, &e);

	struct pypylog *p = pypylog_new("fuzz", &cal, &s2);
	int r2 = 0;
	for (size_t at = 0; at < size && !r2; at += chunk)
		r2 = pypylog_feed(p, (const char *)data + at, size - at < chunk ? size - at : chunk, &e);
	if (!r2)
		r2 = pypylog_finish(p, &e);
	pypylog_free(p);
	if (r1 != r2)
		abort();
	if (!r1) {
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
		dump(&one, &a);
		dump(&many, &b);
		if (strcmp(sb_str(&a), sb_str(&b)))
			abort();
		sb_release(&a);
		sb_release(&b);
	}
	rec_list_clear(&one);
	rec_list_clear(&many);
	kerr_release(&e);
	return 0;
}
