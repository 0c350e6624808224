/*
 * fuzz_pypylog.c - libFuzzer target for the PYPYLOG parser
 * (plugins/pypy/parse_pypylog.c) and its calibration reader.
 *
 * The input is parsed three times and all must agree exactly (records, and
 * the error message when there is one):
 *  - in one piece through the reference path only (pypylog_fast = 0),
 *  - in one piece through the word-at-a-time fast path (pypylog_fast = 1),
 *  - with the widest fast path the CPU has (pypylog_fast = 2: AVX2), fed in
 *    chunks whose size the first byte picks, so that lines split across
 *    chunks and over-long lines are exercised.
 * Any difference is a bug in the fast path or in the streaming; any crash or
 * sanitizer report is a bug anywhere.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "../../plugins/pypy/pypylog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void dump(const struct rec_list *l, int r, const struct kerr *e, struct strbuf *sb)
{
	for (size_t i = 0; i < l->n; i++) {
		rec_to_json(&l->v[i], sb);
		sb_addc(sb, '\n');
	}
	sb_addf(sb, "%d %s", r, sb_str(&e->msg));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kerr e = KERR_INIT, e2 = KERR_INIT;
	struct pypylog_calib cal = { 1.0, 0, 0 };
	pypylog_calib_parse("fuzz.json", (const char *)data, size, &cal, &e);
	cal.ns_per_tick = 0.37;
	if (!size) {
		kerr_release(&e);
		return 0;
	}
	size_t chunk = (size_t)data[0] % 64 + 1;
	data++, size--;

	struct rec_list one = REC_LIST_INIT, many = REC_LIST_INIT, word = REC_LIST_INIT;
	struct rec_sink s1 = rec_list_sink(&one), s2 = rec_list_sink(&many), s3 = rec_list_sink(&word);
	struct kerr e3 = KERR_INIT;
	sb_reset(&e.msg);
	pypylog_fast = 0;
	int r1 = pypylog_parse_mem("fuzz", (const char *)data, size, &cal, &s1, &e);
	pypylog_fast = 1;
	int r3 = pypylog_parse_mem("fuzz", (const char *)data, size, &cal, &s3, &e3);
	pypylog_fast = 2;

	struct pypylog *p = pypylog_new("fuzz", &cal, &s2);
	int r2 = 0;
	for (size_t at = 0; at < size && !r2; at += chunk)
		r2 = pypylog_feed(p, (const char *)data + at, size - at < chunk ? size - at : chunk, &e2);
	if (!r2)
		r2 = pypylog_finish(p, &e2);
	pypylog_free(p);

	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT;
	dump(&one, r1, &e, &a);
	dump(&many, r2, &e2, &b);
	dump(&word, r3, &e3, &c);
	if (strcmp(sb_str(&a), sb_str(&b)) || strcmp(sb_str(&a), sb_str(&c)))
		abort();
	sb_release(&a);
	sb_release(&b);
	sb_release(&c);
	rec_list_clear(&one);
	rec_list_clear(&many);
	rec_list_clear(&word);
	kerr_release(&e);
	kerr_release(&e2);
	kerr_release(&e3);
	return 0;
}
