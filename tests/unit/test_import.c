/*
 * test_import.c - src/import.c: Krun JSON (plain and bzip2) and warmup_stats
 * CSV read into a dataset; export_krun/export_csv round trips give back the
 * same values bit for bit; bad input is refused with the file, the key or
 * line, and the field in the message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "import.h"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/kiln-test-import.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(tmpdir);
	return 0;
}

static char *tpath(const char *name)
{
	return path_join(tmpdir, name);
}

static void sample(struct dataset *ds)
{
	memset(ds, 0, sizeof(*ds));
	ds->machine = xstrdup("bencher9");
	struct ds_key *k = ds_add_key(ds, "fannkuch", "pypy", "default-python");
	for (int p = 0; p < 3; p++) {
		struct ds_pexec *px = ds_add_pexec(k, p);
		px->n = 7;
		px->wall = xmalloc(7 * sizeof(double));
		for (int i = 0; i < 7; i++)
			px->wall[i] = 0.1 + i * 1e-3 + p * 1e-7 + 1.0 / 3.0 * 1e-9;
		struct ds_series *s = ds_add_series(px, "cycles", "", 7);
		for (int i = 0; i < 7; i++)
			s->v[i] = 1e8 + i;
		s = ds_add_series(px, "gc.time", "s", 7);
		for (int i = 0; i < 7; i++)
			s->v[i] = i == 3 ? NAN : i * 0.001;
	}
	k->pexecs[2].status = DS_TIMEOUT;
	struct ds_key *k2 = ds_add_key(ds, "nbody", "lua", "default-lua");
	struct ds_pexec *px = ds_add_pexec(k2, 0);
	px->n = 2;
	px->wall = xmalloc(2 * sizeof(double));
	px->wall[0] = 1.5;
	px->wall[1] = 1.25;
}

static void same_times(const struct dataset *a, const struct dataset *b, int with_failed_data)
{
	assert_int_equal(a->nkeys, b->nkeys);
	for (size_t i = 0; i < a->nkeys; i++) {
		const struct ds_key *ka = &a->keys[i], *kb = ds_find_key(b, a->keys[i].key);
		assert_non_null(kb);
		assert_string_equal(ka->bench, kb->bench);
		assert_string_equal(ka->vm, kb->vm);
		assert_string_equal(ka->variant, kb->variant);
		assert_int_equal(ka->npexecs, kb->npexecs);
		for (size_t p = 0; p < ka->npexecs; p++) {
			const struct ds_pexec *pa = &ka->pexecs[p], *pb = &kb->pexecs[p];
			if (pa->status == DS_OK) {
				assert_int_equal(pb->status, DS_OK);
			} else {
				assert_int_not_equal(pb->status, DS_OK);
				if (!with_failed_data)
					continue;
			}
			assert_int_equal(pa->n, pb->n);
			assert_memory_equal(pa->wall, pb->wall, pa->n * sizeof(double));
		}
	}
}

static void test_krun_roundtrip(void **state)
{
	(void)state;
	struct dataset ds, back = { 0 }, back2 = { 0 };
	struct kerr e = KERR_INIT;
	sample(&ds);
	char *p1 = tpath("r.json"), *p2 = tpath("r.json.bz2");
	struct fmt_extra x = { .config_text = "name: x\n", .audit_json = "{\"uname\": \"Linux bencher9 6.1.0 x86_64\"}" };
	assert_int_equal(export_krun(&ds, p1, &x, &e), 0);
	assert_int_equal(export_krun(&ds, p2, NULL, &e), 0);
	assert_int_equal(imp_detect(p1), IMP_KRUN);
	assert_int_equal(imp_detect(p2), IMP_KRUN);
	/* the .bz2 one really is compressed */
	struct strbuf raw = STRBUF_INIT;
	assert_int_equal(read_file(p2, &raw, &e), 0);
	assert_memory_equal(raw.buf, "BZh", 3);
	sb_release(&raw);
	assert_int_equal(imp_load(p1, &back, &e), 0);
	assert_int_equal(imp_load(p2, &back2, &e), 0);
	/* the partial times of the pexec that timed out come back too (kiln_partial_times) */
	same_times(&ds, &back, 1);
	same_times(&ds, &back2, 1);
	assert_string_equal(back.machine, "bencher9");
	assert_int_equal(back.keys[0].pexecs[2].status, DS_TIMEOUT);
	/* kiln's own counters and the other series come back (Krun's instrumentation folder), NaN stays NaN */
	const struct ds_series *c = ds_find_series(&back.keys[0].pexecs[1], "cycles");
	assert_non_null(c);
	assert_int_equal(c->n, 7);
	assert_true(c->v[6] == 1e8 + 6);
	const struct ds_series *g = ds_find_series(&back.keys[0].pexecs[0], "gc.time");
	assert_non_null(g);
	assert_true(isnan(g->v[3]) && g->v[2] == 0.002);
	free(p1);
	free(p2);
	ds_free(&ds);
	ds_free(&back);
	ds_free(&back2);
	kerr_release(&e);
}

static void test_csv_roundtrip(void **state)
{
	(void)state;
	struct dataset ds, back = { 0 };
	struct kerr e = KERR_INIT;
	sample(&ds);
	char *p = tpath("r.csv");
	assert_int_equal(export_csv(&ds, p, &e), 0);
	assert_int_equal(imp_detect(p), IMP_CSV);
	assert_int_equal(imp_load(p, &back, &e), 0);
	same_times(&ds, &back, 1);
	/* the header and a crash cell as warmup_stats writes them */
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(read_file(p, &sb, &e), 0);
	assert_true(!strncmp(sb.buf, "pexec_idx,bench,0,1,2,3,4,5,6\n", 30));
	assert_non_null(strstr(sb.buf, "\n2,fannkuch:pypy:default-python,"));
	assert_non_null(strstr(sb.buf, ",crash\n"));
	sb_release(&sb);
	free(p);
	ds_free(&ds);
	ds_free(&back);
}

static void test_krun_handwritten(void **state)
{
	(void)state;
	const char *j = "{\"wallclock_times\": {\"b:vm:v\": [[0.5, 0.25, 1], [], [2]],"
			" \"a:vm:v\": [[1e-3]]},"
			" \"pexec_flags\": {\"b:vm:v\": [\"C\", \"E\", \"C\"], \"a:vm:v\": [\"C\"]},"
			" \"core_cycle_counts\": {\"b:vm:v\": [[[1, 2, 3], [10, 20, 30]], [], [[5]]]},"
			" \"audit\": {\"uname\": \"Linux box1 5.4\"}}";
	struct dataset ds = { 0 };
	struct kerr e = KERR_INIT;
	assert_int_equal(imp_krun_buf("x.json", j, strlen(j), &ds, &e), 0);
	assert_int_equal(ds.nkeys, 2);
	assert_string_equal(ds.keys[0].key, "a:vm:v"); /* sorted */
	struct ds_key *b = ds_find_key(&ds, "b:vm:v");
	assert_int_equal(b->npexecs, 3);
	assert_int_equal(b->pexecs[1].status, DS_FAILED);
	assert_int_equal(b->pexecs[0].n, 3);
	assert_true(b->pexecs[0].wall[1] == 0.25);
	/* one series per core, as Krun measured them */
	const struct ds_series *c0 = ds_find_series(&b->pexecs[0], "cycles.core0");
	const struct ds_series *c1 = ds_find_series(&b->pexecs[0], "cycles.core1");
	assert_non_null(c0);
	assert_non_null(c1);
	assert_true(c0->v[0] == 1 && c0->v[2] == 3 && c1->v[0] == 10 && c1->v[2] == 30);
	assert_null(ds_find_series(&b->pexecs[0], "cycles"));
	assert_string_equal(ds.machine, "box1");
	ds_free(&ds);
	kerr_release(&e);
}

static void expect_error(int krun, const char *text, const char *needle)
{
	struct dataset ds = { 0 };
	struct kerr e = KERR_INIT;
	int r = krun ? imp_krun_buf("in.json", text, strlen(text), &ds, &e)
		     : imp_csv_buf("in.csv", text, strlen(text), &ds, &e);
	assert_int_equal(r, -1);
	if (!strstr(sb_str(&e.msg), needle))
		fail_msg("error '%s' does not contain '%s'", sb_str(&e.msg), needle);
	ds_free(&ds);
	kerr_release(&e);
}

static void test_bad_input(void **state)
{
	(void)state;
	expect_error(1, "{\"wallclock_times\": [1]", "wallclock_times: not an object");
	expect_error(1, "{\"wallclock_times\": {\"a:b:c\": [[1,]]}}", "in.json:1:");
	expect_error(1, "{\"wallclock_times\": {\"a:b:c\": [[1]]}", "in.json:1:");
	expect_error(1, "{\"wallclock_times\": {\"a:b:c\": [[1]], \"a:b:c\": [[2]]}}", "key 'a:b:c' is there twice");
	expect_error(1, "[1, 2]", "top level");
	expect_error(1, "0{\"wallclock_times\": {}}", "top level is not an object");
	expect_error(1, "{\"x\": 1}", "wallclock_times: missing");
	expect_error(1, "{\"wallclock_times\": {\"nocolon::\": [[1]]}}", "key 'nocolon::'");
	expect_error(1, "{\"wallclock_times\": {\"a:b:c\": [[1, \"x\"]]}}", "key 'a:b:c': pexec 0: iteration 1");
	expect_error(1, "{\"wallclock_times\": {\"a:b:c\": [[1, -2]]}}", "iteration 1: -2 is not a time");
	{
		struct strbuf t = STRBUF_INIT;
		sb_adds(&t, "{\"wallclock_times\": {\"a:b:");
		for (int i = 0; i < 5000; i++)
			sb_addc(&t, 'x');
		sb_adds(&t, "\": [[1]]}}");
		expect_error(1, t.buf, "in.json:1: wallclock_times: a key longer than 4096 bytes");
		sb_release(&t);
	}
	/* a value's error names its line, as Krun's writer puts one value on a line */
	expect_error(1, "{\n \"wallclock_times\": {\n  \"a:b:c\": [\n   [\n    1,\n    \"x\"\n   ]]}}",
		     "in.json:6: wallclock_times: key 'a:b:c': pexec 0: iteration 1: not a number");
	expect_error(1, "{\"wallclock_times\": {\"a:b:c\": [[1]]}, \"pexec_flags\": {\"a:b:c\": [\"Q\"]}}",
		     "pexec_flags: key 'a:b:c': pexec 0: unknown flag 'Q'");
	/* a per-pexec list longer or shorter than the key's wallclock_times, whichever comes first */
	expect_error(1, "{\"wallclock_times\": {\"a:b:c\": [[1], [2]]}, \"pexec_flags\": {\"a:b:c\": [\"C\", \"C\", \"E\"]}}",
		     "in.json: pexec_flags: key 'a:b:c': 3 pexecs, but 2 in wallclock_times");
	expect_error(1, "{\"pexec_flags\": {\"a:b:c\": [\"C\"]}, \"wallclock_times\": {\"a:b:c\": [[1], [2]]}}",
		     "in.json: pexec_flags: key 'a:b:c': 1 pexecs, but 2 in wallclock_times");
	expect_error(1, "{\"wallclock_times\": {\"a:b:c\": [[1]]}, \"core_cycle_counts\": {\"a:b:c\": [[[5]], [[6]]]}}",
		     "in.json: core_cycle_counts: key 'a:b:c': 2 pexecs, but 1 in wallclock_times");
	expect_error(1, "{\"wallclock_times\": {\"a:b:c\": [[1]]}, \"mperf_counts\": {\"a:b:c\": []}}",
		     "in.json: mperf_counts: key 'a:b:c': 0 pexecs, but 1 in wallclock_times");
	expect_error(1, "{\"wallclock_times\": {}, \"aperf_counts\": {\"a:b:c\": [[[5]]]}}",
		     "in.json: aperf_counts: key 'a:b:c': 1 pexecs, but 0 in wallclock_times");
	expect_error(1, "BZh9garbage", "bzip2");
	expect_error(0, "pexec_idx,bench,0,2\n", "in.csv:1: header column 4: expected iteration 1");
	expect_error(0, "pexec_idx,bench,0,1\n0,a:b:c,0.1,zz\n", "in.csv:2: column 4 (iteration 1): 'zz'");
	expect_error(0, "pexec_idx,bench,0\nx,a:b:c,0.1\n", "in.csv:2: column 1 (pexec_idx)");
	expect_error(0, "", "no header");
	/* a pexec's times or a series given twice: the second would replace the first unseen */
	expect_error(1, "{\"wallclock_times\": {\"b:v:x\": [[1, 2]]}, \"kiln_partial_times\": {\"b:v:x\": [[3]]}}",
		     "in.json:1: kiln_partial_times: key 'b:v:x': pexec 0: times already given in wallclock_times");
	expect_error(1, "{\"kiln_partial_times\": {\"b:v:x\": [[3]]}, \"wallclock_times\": {\"b:v:x\": [[1, 2]]}}",
		     "in.json:1: wallclock_times: key 'b:v:x': pexec 0: times already given in kiln_partial_times");
	expect_error(1, "{\"wallclock_times\": {\"b:v:x\": [[1, 2]]}, \"instr_data\": {\"b:v:x\": [{\"gc\": [1, 2], \"gc\": [3]}]}}",
		     "in.json:1: instr_data: key 'b:v:x': pexec 0: series 'gc' is there twice");
	expect_error(1, "{\"wallclock_times\": {\"b:v:x\": [[1, 2]]}, \"core_cycle_counts\": {\"b:v:x\": [[[5, 6]]]},"
			" \"instr_data\": {\"b:v:x\": [{\"cycles.core0\": [7, 7]}]}}",
		     "in.json:1: instr_data: key 'b:v:x': pexec 0: series 'cycles.core0' is there twice");
	/* nothing of a key or pexec that wallclock_times lacks, whatever the order of the fields */
	expect_error(1, "{\"wallclock_times\": {\"b:v:x\": [[1]]}, \"instr_data\": {\"b:v:x\": [{\"gc\": [1]}, {\"gc\": [2]}]}}",
		     "in.json: instr_data: key 'b:v:x': 2 pexecs, but 1 in wallclock_times");
	expect_error(1, "{\"instr_data\": {\"z:v:x\": [{\"gc\": [1]}]}, \"wallclock_times\": {\"b:v:x\": [[1]]}}",
		     "in.json: instr_data: key 'z:v:x': 1 pexecs, but 0 in wallclock_times");
	expect_error(1, "{\"wallclock_times\": {\"b:v:x\": [[1]]}, \"eta_estimates\": {\"z:v:x\": []}}",
		     "in.json: eta_estimates: key 'z:v:x' is not in wallclock_times");
	expect_error(1, "{\"wallclock_times\": {\"b:v:x\": [[1, 2]]}, \"core_cycle_counts\": {\"b:v:x\": [[[5, 6, 7]]]}}",
		     "in.json:1: core_cycle_counts: key 'b:v:x': pexec 0: core 0: 3 values, but 2 iterations in wallclock_times");
	expect_error(1, "{\"core_cycle_counts\": {\"b:v:x\": [[[5, 6, 7]]]}, \"wallclock_times\": {\"b:v:x\": [[1, 2]]}}",
		     "in.json: core_cycle_counts: key 'b:v:x': pexec 0: core 0: 3 values, but 2 iterations in wallclock_times");
	expect_error(1, "{\"eta_estimates\": {\"b:v:x\": [1, 2]}, \"wallclock_times\": {\"b:v:x\": [[1]]}}",
		     "in.json: eta_estimates: key 'b:v:x': 2 pexecs, but 1 in wallclock_times");
	expect_error(1, "{\"wallclock_times\": {\"b:v:x\": [[1]]}, \"eta_estimates\": {\"b:v:x\": [-1]}}",
		     "in.json:1: eta_estimates: key 'b:v:x': pexec 0: -1 is not a duration in seconds");
	expect_error(1, "{\"wallclock_times\": {\"b:v:x\": [[1]]}, \"eta_estimates\": {\"b:v:x\": [1e999]}}",
		     "in.json:1: eta_estimates: key 'b:v:x': pexec 0: inf is not a duration in seconds");
	/* what stays legal: fewer ETAs than pexecs, a failed pexec's [] of counts */
	{
		const char *j = "{\"wallclock_times\": {\"b:v:x\": [[1, 2], []]}, \"eta_estimates\": {\"b:v:x\": [3]},"
				" \"core_cycle_counts\": {\"b:v:x\": [[[5, 6], []], [[]]]}}";
		struct dataset ds = { 0 };
		struct kerr e = KERR_INIT;
		assert_int_equal(imp_krun_buf("in.json", j, strlen(j), &ds, &e), 0);
		assert_true(ds.keys[0].pexecs[0].duration == 3);
		assert_true(isnan(ds.keys[0].pexecs[1].duration));
		ds_free(&ds);
		kerr_release(&e);
	}
	/* Krun's [] for a pexec whose times kiln_partial_times gives is not a second list */
	{
		const char *j = "{\"wallclock_times\": {\"b:v:x\": [[]]}, \"kiln_partial_times\": {\"b:v:x\": [[3]]}}";
		struct dataset ds = { 0 };
		struct kerr e = KERR_INIT;
		assert_int_equal(imp_krun_buf("in.json", j, strlen(j), &ds, &e), 0);
		assert_int_equal(ds.keys[0].pexecs[0].n, 1);
		ds_free(&ds);
		kerr_release(&e);
	}
	/* a time that whole nanoseconds would store as 0 is refused; 1.4e-9 rounds to 1 ns and is kept */
	expect_error(1, "{\"wallclock_times\": {\"a:b:c\": [[1.4e-9, 4e-10]]}}",
		     "in.json:1: wallclock_times: key 'a:b:c': pexec 0: iteration 1: 4e-10 is below 0.5 ns");
	expect_error(0, "pexec_idx,bench,0,1\n0,a:b:c,1.4e-9,4e-10\n",
		     "in.csv:2: column 4 (iteration 1): '4e-10' is below 0.5 ns");
	/* a bare name and its bench:unknown:default are one key */
	expect_error(0, "pexec_idx,bench,0\n0,b,1\n0,b:unknown:default,2\n",
		     "in.csv:3: column 1 (pexec_idx): pexec 0 of 'b:unknown:default' is already on line 2");
	expect_error(1, "{\"wallclock_times\": {\"b\": [[1]], \"b:unknown:default\": [[2]]}}",
		     "in.json:1: wallclock_times: key 'b:unknown:default' is there twice");
	expect_error(1, "{\"wallclock_times\": {\"b:unknown:default\": [[1]], \"b\": [[2]]}}",
		     "in.json:1: wallclock_times: key 'b' is there twice (as 'b:unknown:default')");
	/* a cell's column is its iteration: nothing may move to another or be dropped */
	expect_error(0, "pexec_idx,bench,0,1,2\n0,b:v:x,1.0,,3.0\n",
		     "in.csv:2: column 5: '3.0': a time after the empty cell of column 4");
	expect_error(0, "pexec_idx,bench,0,1,2\n1,b:v:x,1,2,3,4,5\n",
		     "in.csv:2: column 6: '4': more cells than the header's columns: 5");
	expect_error(0, "pexec_idx,bench,0,1,2\n2,b:v:x,1.0,crash,7.0\n",
		     "in.csv:2: column 5: '7.0': a cell after the 'crash' of column 4");
}

/* an instrumentation file for a pexec wallclock_times does not have is refused, not made a pexec */
static void test_krun_instr_extra_pexec(void **state)
{
	(void)state;
	struct dataset ds, back = { 0 };
	struct kerr e = KERR_INIT;
	sample(&ds);
	char *p = tpath("x.json"), *dir = tpath("x_instr_data");
	assert_int_equal(export_krun(&ds, p, NULL, &e), 0);
	assert_int_equal(export_krun_instr(&ds, p, &e), 0);
	char *f = path_join(dir, "fannkuch__pypy__default-python__3.json.bz2");
	assert_int_equal(write_file(f, "{\"gc\": [1]}", 11, &e), 0);
	assert_int_equal(imp_load(p, &back, &e), -1);
	if (!strstr(sb_str(&e.msg), "key 'fannkuch:pypy:default-python' has no pexec 3 in wallclock_times"))
		fail_msg("error '%s'", sb_str(&e.msg));
	ds_free(&ds);
	ds_free(&back);
	kerr_release(&e);
	free(f);
	free(p);
	free(dir);
}

/* what stays legal: empty cells at the end, "crash" in the cell after the last iteration (kiln's export) */
static void test_csv_padding(void **state)
{
	(void)state;
	const char *c = "pexec_idx,bench,0,1\n0,b:v:x,0.1,0.2,crash\n1,b:v:x,0.1,,,\n2,b:v:x,,crash,\n";
	struct dataset ds = { 0 };
	struct kerr e = KERR_INIT;
	assert_int_equal(imp_csv_buf("w.csv", c, strlen(c), &ds, &e), 0);
	struct ds_key *k = &ds.keys[0];
	assert_int_equal(k->npexecs, 3);
	assert_int_equal(k->pexecs[0].n, 2);
	assert_int_equal(k->pexecs[0].status, DS_FAILED);
	assert_int_equal(k->pexecs[1].n, 1);
	assert_int_equal(k->pexecs[1].status, DS_OK);
	assert_int_equal(k->pexecs[2].n, 0);
	assert_int_equal(k->pexecs[2].status, DS_FAILED);
	ds_free(&ds);
	kerr_release(&e);
}

static void test_csv_crash_and_bare_names(void **state)
{
	(void)state;
	const char *c = "pexec_idx,bench,0,1,2\r\n0,fasta,0.1,0.2,0.3\r\n1,fasta,0.1,crash\r\n\r\n2,fasta,0.1,0.2,\n";
	struct dataset ds = { 0 };
	struct kerr e = KERR_INIT;
	assert_int_equal(imp_csv_buf("w.csv", c, strlen(c), &ds, &e), 0);
	assert_int_equal(ds.nkeys, 1);
	assert_string_equal(ds.keys[0].key, "fasta:unknown:default");
	assert_int_equal(ds.keys[0].npexecs, 3);
	assert_int_equal(ds.keys[0].pexecs[0].status, DS_OK);
	assert_int_equal(ds.keys[0].pexecs[1].status, DS_FAILED);
	assert_int_equal(ds.keys[0].pexecs[1].n, 1);
	assert_int_equal(ds.keys[0].pexecs[2].n, 2);
	ds_free(&ds);
}

/* a Krun file whose JSON has `pad` spaces before its end, bzip2-compressed */
static void padded_krun(size_t pad, struct strbuf *z)
{
	struct strbuf j = STRBUF_INIT;
	sb_adds(&j, "{\"wallclock_times\": {\"a:b:c\": [[0.5, 0.25]]}");
	for (size_t i = 0; i < pad; i++)
		sb_addc(&j, ' ');
	sb_addc(&j, '}');
	assert_int_equal(imp_bzip(j.buf, j.len, z, NULL), 0);
	sb_release(&j);
}

static int load_krun(const struct strbuf *z, struct kerr *e)
{
	struct dataset ds = { 0 };
	int r = imp_krun_buf("z.json.bz2", z->buf, z->len, &ds, e);
	if (r == 0)
		assert_true(ds.nkeys == 1 && ds.keys[0].npexecs == 1 && ds.keys[0].pexecs[0].n == 2);
	ds_free(&ds);
	return r;
}

static void test_bzip2_bounds(void **state)
{
	(void)state;
	struct strbuf z = STRBUF_INIT, two = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	struct imp_bounds b = { 200, 4 << 20, (size_t)2048 << 20 };
	assert_int_equal(imp_inflate_limit(&b, 1000), 4 << 20);         /* the floor */
	assert_int_equal(imp_inflate_limit(&b, 1 << 20), 200 << 20);    /* the ratio */
	assert_int_equal(imp_inflate_limit(&b, 100 << 20), b.max);      /* the cap */
	assert_int_equal(imp_inflate_limit(&b, SIZE_MAX / 2), b.max);   /* no overflow */
	/* 3 MiB of spaces from a few hundred bytes: within the 4 MiB floor, then beyond a 1 MiB one */
	padded_krun(3 << 20, &z);
	assert_true(z.len < 4096);
	assert_int_equal(load_krun(&z, &e), 0);
	setenv("KILN_INFLATE_FLOOR_MB", "1", 1);
	assert_int_equal(load_krun(&z, &e), -1);
	assert_int_equal(e.code, KEXIT_CONFIG);
	assert_non_null(strstr(e.msg.buf, "z.json.bz2: more than 1 MiB once decompressed"));
	struct strbuf out = STRBUF_INIT;
	assert_int_equal(imp_bunzip("z.bz2", z.buf, z.len, &out, &e), -1); /* the buffer form too */
	assert_true(out.len <= ((size_t)1 << 20) + (1 << 20));
	sb_release(&out);
	setenv("KILN_INFLATE_RATIO", "100000", 1);
	assert_int_equal(load_krun(&z, &e), 0);
	setenv("KILN_INPUT_MAX_MB", "2", 1);
	assert_int_equal(load_krun(&z, &e), -1);
	unsetenv("KILN_INFLATE_FLOOR_MB");
	unsetenv("KILN_INFLATE_RATIO");
	unsetenv("KILN_INPUT_MAX_MB");
	/* two streams in a row are one input; anything else after a stream is not */
	padded_krun(10, &z);
	size_t cut = 20;
	struct strbuf a = STRBUF_INIT, bb = STRBUF_INIT;
	const char *j = "{\"wallclock_times\": {\"a:b:c\": [[0.5, 0.25]]}}";
	assert_int_equal(imp_bzip(j, cut, &a, NULL), 0);
	assert_int_equal(imp_bzip(j + cut, strlen(j) - cut, &bb, NULL), 0);
	sb_add(&two, a.buf, a.len);
	sb_add(&two, bb.buf, bb.len);
	assert_int_equal(load_krun(&two, &e), 0);
	sb_adds(&two, "BZ");
	assert_int_equal(load_krun(&two, &e), -1);
	assert_non_null(strstr(e.msg.buf, "data after the end of the bzip2 stream"));
	two.len -= 2 + bb.len / 2;
	assert_int_equal(load_krun(&two, &e), -1);
	assert_true(strstr(e.msg.buf, "truncated bzip2 data") || strstr(e.msg.buf, "corrupt bzip2 data"));
	sb_release(&a);
	sb_release(&bb);
	sb_release(&two);
	sb_release(&z);
	kerr_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_krun_roundtrip),
		cmocka_unit_test(test_csv_roundtrip),
		cmocka_unit_test(test_krun_handwritten),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_csv_padding),
		cmocka_unit_test(test_krun_instr_extra_pexec),
		cmocka_unit_test(test_csv_crash_and_bare_names),
		cmocka_unit_test(test_bzip2_bounds),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
