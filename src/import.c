/*
 * import.c - what kind of file an input is, warmup_stats CSV into a struct
 * dataset, and the writers for the other direction (kiln export).  The Krun
 * reader is import-krun.c (a stream), the bounded input import-input.c.
 *
 * Krun: one JSON object, usually bzip2-compressed, with
 *   wallclock_times   {"bench:vm:variant": [[seconds per iteration] per pexec]}
 *   pexec_flags       {key: ["C" | "E" | "T" ...]}  completed, error, timeout
 *   core_cycle_counts {key: [[[cycles per iteration] per core] per pexec]}  optional,
 *                     likewise aperf_counts and mperf_counts
 *   instr_data        {key: [{name: [value per iteration]} per pexec]}     optional
 *   audit, config     kept by the writer; the reader takes the machine name from audit.uname
 * warmup_stats CSV: a header "pexec_idx,bench,0,1,2,..." then one row per
 * pexec "0,bench:vm:variant,0.1,0.2,..." where a "crash" cell marks a
 * crashed pexec.
 *
 * Outside data is untrusted (and fuzzed): every error names the file, the
 * line or key, and the field.  Keys are sorted so that datasets come out
 * the same whatever order the JSON object had.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "import.h"
#include "store.h"


enum imp_format imp_detect(const char *path)
{
	unsigned char head[16] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n = 0;
	if (f) {
		n = fread(head, 1, sizeof(head), f);
		fclose(f);
	}
	if (n >= 16 && !memcmp(head, "SQLite format 3", 16))
		return IMP_KILN;
	if (n >= 3 && !memcmp(head, "BZh", 3))
		return str_ends_with(path, ".csv.bz2") ? IMP_CSV : IMP_KRUN;
	size_t i = 0;
	while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
		i++;
	if (i < n && head[i] == '{')
		return IMP_KRUN;
	if (str_ends_with(path, ".db"))
		return IMP_KILN;
	if (str_ends_with(path, ".json") || str_ends_with(path, ".json.bz2") || str_ends_with(path, ".bz2"))
		return IMP_KRUN;
	if (str_ends_with(path, ".csv"))
		return IMP_CSV;
	if (n && (head[0] == 'p' || (head[0] >= '0' && head[0] <= '9')))
		return IMP_CSV;
	return IMP_UNKNOWN;
}

/* ---- keys ---- */

/*
 * The keys of a CSV as they are read: each found by name in O(1) (a large
 * CSV has many rows per key), bare benchmark names given the VM and
 * variant asked for, and each key's pexec numbers with the line that gave
 * them, so that a number given twice is refused naming both lines.
 */
struct csv_keys {
	struct strmap names;     /* bench:vm:variant as stored -> index in ds */
	struct strmap pexecs;    /* "index:pexec" -> its entry in lines */
	long *lines;
	const struct imp_names *nm;
	size_t base;             /* keys the dataset had before */
};

/*
 * The key of a row's bench cell.  Looked up by the bench:vm:variant it
 * becomes, not by its text: "b" and "b:unknown:default" are one key, so a
 * pexec number both give is refused naming both lines (the store would
 * otherwise refuse the second key with an error naming no line).
 */
static struct ds_key *csv_key(struct csv_keys *ck, struct dataset *ds, const char *key)
{
	char *b, *v, *var;
	if (ds_split_key(key, &b, &v, &var) < 0)
		return NULL;
	if (!strchr(key, ':') && ck->nm) {
		/* warmup_stats' csv_to_krun_json names them so: bench:VM:default-LANGUAGE */
		if (ck->nm->vm) {
			free(v);
			v = xstrdup(ck->nm->vm);
		}
		if (ck->nm->variant) {
			free(var);
			var = xstrdup(ck->nm->variant);
		}
	}
	char *full = xasprintf("%s:%s:%s", b, v, var);
	long i = strmap_find(&ck->names, full);
	struct ds_key *k;
	if (i >= 0) {
		k = &ds->keys[ck->base + (size_t)i];
	} else {
		strmap_add(&ck->names, full);
		k = ds_add_key(ds, b, v, var);
	}
	free(full);
	free(b);
	free(v);
	free(var);
	return k;
}

/* 0 when pexec idx of key k is new; else the line that already gave it */
static long csv_pexec_seen(struct csv_keys *ck, const struct dataset *ds, const struct ds_key *k, long idx, long line)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%ld:%ld", (long)(k - ds->keys), idx);
	long i = strmap_find(&ck->pexecs, buf);
	if (i >= 0)
		return ck->lines[i];
	size_t j = strmap_add(&ck->pexecs, buf);
	if (!(j & (j - 1)))
		ck->lines = xrealloc(ck->lines, (j ? 2 * j : 1) * sizeof(long));
	ck->lines[j] = line;
	return 0;
}

/* ---- warmup_stats CSV ---- */

/* next cell of line [p, end): returns its copy (quotes stripped), advances *p */
static char *csv_cell(const char **p, const char *end)
{
	const char *s = *p;
	const char *c = memchr(s, ',', (size_t)(end - s));
	const char *e = c ? c : end;
	*p = c ? c + 1 : end + 1;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	if (e - s >= 2 && *s == '"' && e[-1] == '"') {
		s++;
		e--;
	}
	return xstrndup(s, (size_t)(e - s));
}

int imp_csv_buf(const char *name, const char *data, size_t len, struct dataset *ds, struct kerr *e)
{
	return imp_csv_buf_named(name, data, len, NULL, ds, e);
}

/* the header, q..le of line `line`: two names, then the iteration numbers 0, 1, 2, ...; its columns, or -1 */
static long csv_header(const char *name, long line, const char *q, const char *le, struct kerr *e)
{
	long col = 0;
	while (q <= le) {
		char *cell = csv_cell(&q, le);
		if (col >= 2) {
			long it;
			if (!*cell && q > le) {
				free(cell);
				break; /* a trailing comma */
			}
			if (parse_long(cell, &it) || it != col - 2) {
				kerr_setc(e, KEXIT_CONFIG, "%s:%ld: header column %ld: expected iteration %ld, got '%s'", name,
					  line, col + 1, col - 2, esc(ESC_TERM, cell));
				free(cell);
				return -1;
			}
		}
		free(cell);
		col++;
	}
	if (col < 2) {
		kerr_setc(e, KEXIT_CONFIG, "%s:%ld: header: expected pexec_idx,bench,0,1,...", name, line);
		return -1;
	}
	return col;
}

/*
 * A row's times, from its third column (q..le) into px.  A cell's column is
 * its iteration, so nothing may move it: a value after an empty cell (it
 * would slide into the empty one's iteration), a value past the header's
 * last iteration, or a value after "crash" (the marker ends the pexec, and
 * what follows would be dropped) is refused, naming the column.  Empty
 * cells at the end pad a short row; "crash" ends a failed pexec, also in
 * the cell after the last iteration (where kiln's export puts it for a
 * pexec that failed after its last iteration).
 */
static int csv_times(const char *name, long line, const char *q, const char *le, long ncols, struct ds_pexec *px,
		     struct kerr *e)
{
	size_t cap = ncols > 2 ? (size_t)ncols - 2 : 1, n = 0;
	px->wall = xmalloc(cap * sizeof(double));
	long col = 2, empty = 0, crash = 0;
	while (q <= le) {
		char *cell = csv_cell(&q, le);
		col++;
		if (!*cell) {
			if (!empty)
				empty = col;
			free(cell);
			continue;
		}
		const char *why = NULL;
		long at = 0;
		if (crash) {
			why = "a cell after the 'crash' of column";
			at = crash;
		} else if (!strcmp(cell, "crash")) {
			px->status = DS_FAILED;
			crash = col;
			free(cell);
			continue;
		} else if (empty) {
			why = "a time after the empty cell of column";
			at = empty;
		} else if (col > ncols) {
			why = "more cells than the header's columns:";
			at = ncols;
		}
		if (why) {
			kerr_setc(e, KEXIT_CONFIG, "%s:%ld: column %ld: '%s': %s %ld", name, line, col,
				  esc(ESC_TERM, cell), why, at);
			free(cell);
			return -1;
		}
		double v;
		if (!parse_double(cell, &v) && ds_time_subns(v)) {
			kerr_setc(e, KEXIT_CONFIG, "%s:%ld: column %ld (iteration %ld): '%s' " DS_TIME_SUBNS_WHY, name, line, col,
				  col - 3, esc(ESC_TERM, cell));
			free(cell);
			return -1;
		}
		if (parse_double(cell, &v) || !ds_time_ok(v)) {
			kerr_setc(e, KEXIT_CONFIG, "%s:%ld: column %ld (iteration %ld): '%s' is not a time in seconds (0 to 9.2e9)",
				  name, line, col, col - 3, esc(ESC_TERM, cell));
			free(cell);
			return -1;
		}
		if (n == cap) {
			cap *= 2;
			px->wall = xrealloc(px->wall, cap * sizeof(double));
		}
		px->wall[n++] = v;
		free(cell);
	}
	px->n = n;
	if (!n)
		px->status = DS_FAILED;
	return 0;
}

/* a row's pexec (its first two columns, from *q, left at the third) and its key *kp: NULL, e set, if they are wrong */
static struct ds_pexec *csv_row_pexec(const char *name, long line, const char **q, const char *le, struct csv_keys *ck,
				      struct dataset *ds, struct ds_key **kp, struct kerr *e)
{
	char *cell = csv_cell(q, le);
	long idx;
	if (parse_long(cell, &idx) || idx < 0) {
		kerr_setc(e, KEXIT_CONFIG, "%s:%ld: column 1 (pexec_idx): '%s' is not a pexec number", name, line,
			  esc(ESC_TERM, cell));
		free(cell);
		return NULL;
	}
	free(cell);
	cell = *q <= le ? csv_cell(q, le) : xstrdup("");
	struct ds_key *k = csv_key(ck, ds, cell);
	long before = k ? csv_pexec_seen(ck, ds, k, idx, line) : 0;
	if (!k)
		kerr_setc(e, KEXIT_CONFIG, "%s:%ld: column 2 (bench): '%s' is not bench or bench:vm:variant", name, line,
			  esc(ESC_TERM, cell));
	else if (before)
		kerr_setc(e, KEXIT_CONFIG, "%s:%ld: column 1 (pexec_idx): pexec %ld of '%s' is already on line %ld", name,
			  line, idx, esc(ESC_TERM, cell), before);
	free(cell);
	if (!k || before)
		return NULL;
	struct ds_pexec *px = ds_add_pexec(k, idx);
	k->planned_pexecs = (long)k->npexecs;
	*kp = k;
	return px;
}

int imp_csv_buf_named(const char *name, const char *data, size_t len, const struct imp_names *nm, struct dataset *ds,
		      struct kerr *e)
{
	struct csv_keys ck = { STRMAP_INIT, STRMAP_INIT, NULL, nm, ds->nkeys };
	const char *p = data, *end = data + len;
	long line = 0;
	long ncols = -1;
	int rc = -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		line++;
		const char *q = p;
		p = nl ? nl + 1 : end;
		const char *t = q;
		while (t < le && (*t == ' ' || *t == '\t' || *t == '\r'))
			t++;
		if (t == le)
			continue; /* blank line */
		if (memchr(q, '\0', (size_t)(le - q))) {
			kerr_setc(e, KEXIT_CONFIG, "%s:%ld: a NUL byte: not a CSV file", name, line);
			goto out;
		}
		if (ncols < 0) {
			if ((ncols = csv_header(name, line, q, le, e)) < 0)
				goto out;
			continue;
		}
		struct ds_key *k = NULL;
		struct ds_pexec *px = csv_row_pexec(name, line, &q, le, &ck, ds, &k, e);
		if (!px || csv_times(name, line, q, le, ncols, px, e))
			goto out;
		if ((long)px->n > k->iterations)
			k->iterations = (long)px->n;
	}
	if (ncols < 0) {
		kerr_setc(e, KEXIT_CONFIG, "%s: empty: no header line", name);
		goto out;
	}
	rc = 0;
out:
	strmap_clear(&ck.names);
	strmap_clear(&ck.pexecs);
	free(ck.lines);
	return rc;
}

int imp_csv_file(const char *path, struct dataset *ds, struct kerr *e)
{
	return imp_csv_file_named(path, NULL, ds, e);
}

/* a CSV file whole, decompressed when it is bzip2 (by content), within the input bounds */
int imp_csv_file_named(const char *path, const struct imp_names *nm, struct dataset *ds, struct kerr *e)
{
	struct imp_input *in;
	struct strbuf sb = STRBUF_INIT;
	if (imp_input_file(path, &in, e) < 0)
		return -1;
	int r = imp_input_slurp(in, &sb, e);
	imp_input_close(in);
	if (r == 0)
		r = imp_csv_buf_named(path, sb_str(&sb), sb.len, nm, ds, e);
	sb_release(&sb);
	if (r == 0 && !ds->source)
		ds->source = xstrdup(path);
	return r;
}

/* the file's base name without .json.bz2/.json/.csv/.db: the default experiment and machine name */
static char *stem(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	static const char *const sufs[] = { ".json.bz2", ".json.gz", ".json", ".csv", ".kiln.db", ".db", ".bz2", ".data" };
	for (size_t i = 0; i < ARRAY_SIZE(sufs); i++)
		if (str_ends_with(b, sufs[i]) && strlen(b) > strlen(sufs[i]))
			return xstrndup(b, strlen(b) - strlen(sufs[i]));
	return xstrdup(b);
}

int imp_load(const char *path, struct dataset *ds, struct kerr *e)
{
	/* as every command that reads results says it (store_open) */
	if (!file_exists(path))
		return kerr_setc(e, KEXIT_STORE, "%s: no such results file", path);
	int r;
	enum imp_format f = imp_detect(path);
	/* the formats of fmt.h that know their files (hyperfine, pyperf, ReBench) */
	if (f != IMP_KILN && (r = fmt_load(path, ds, e)) <= 0) {
		if (r < 0)
			return -1;
		f = IMP_OTHER;
	}
	switch (f) {
	case IMP_OTHER:
		r = 0;
		break;
	case IMP_KILN:
		r = store_load_dataset(path, ds, e);
		break;
	case IMP_KRUN:
		r = imp_krun_file(path, ds, e);
		break;
	case IMP_CSV:
		r = imp_csv_file(path, ds, e);
		break;
	default:
		return kerr_setc(e, KEXIT_CONFIG,
				 "%s: not a kiln results file, Krun results file (.json, .json.bz2), warmup_stats CSV, "
				 "hyperfine or pyperf JSON or ReBench data file",
				 path);
	}
	if (r < 0)
		return -1;
	/* the machine is what the data says (Krun's, pyperf's, ReBench's host name), else unknown: never the file's name */
	if (!ds->name)
		ds->name = stem(path);
	if (!ds->source)
		ds->source = xstrdup(path);
	return 0;
}

/* ---- writers ---- */

/* write text to path, compressed when the name ends in .bz2 */
static int write_maybe_bz2(const char *path, const char *text, size_t len, struct kerr *e)
{
	if (!str_ends_with(path, ".bz2"))
		return write_file(path, text, len, e);
	struct strbuf z = STRBUF_INIT;
	int r = imp_bzip(text, len, &z, e);
	if (r == 0)
		r = write_file(path, z.buf, z.len, e);
	sb_release(&z);
	return r;
}

int export_csv_text(const struct dataset *ds, struct strbuf *sb, struct kerr *e)
{
	size_t maxn = 0;
	for (size_t i = 0; i < ds->nkeys; i++)
		for (size_t p = 0; p < ds->keys[i].npexecs; p++)
			if (ds->keys[i].pexecs[p].n > maxn)
				maxn = ds->keys[i].pexecs[p].n;
	sb_adds(sb, "pexec_idx,bench");
	for (size_t j = 0; j < maxn; j++)
		sb_addf(sb, ",%zu", j);
	sb_addc(sb, '\n');
	for (size_t i = 0; i < ds->nkeys; i++) {
		const struct ds_key *k = &ds->keys[i];
		for (size_t p = 0; p < k->npexecs; p++) {
			const struct ds_pexec *px = &k->pexecs[p];
			/* warmup_stats splits lines at commas: a key that needs quoting or escaping cannot go there as it is */
			if (strcmp(esc(ESC_CSV, k->key), k->key) || strchr(k->key, '"')) {
				return kerr_set(e, "key '%s' cannot be written to a warmup_stats CSV (it would need quoting "
					       "or escaping)", esc(ESC_TERM, k->key));
			}
			sb_addf(sb, "%ld,%s", px->num, k->key);
			for (size_t j = 0; j < px->n; j++) {
				sb_addc(sb, ',');
				fmt_seconds(sb, px->wall[j]);
			}
			if (px->status != DS_OK || !px->n)
				sb_adds(sb, ",crash");
			sb_addc(sb, '\n');
		}
	}
	return 0;
}

int export_csv(const struct dataset *ds, const char *path, struct kerr *e)
{
	struct strbuf sb = STRBUF_INIT;
	int r = export_csv_text(ds, &sb, e);
	if (r == 0)
		r = write_maybe_bz2(path, sb_str(&sb), sb.len, e);
	else
		kerr_wrap(e, "%s", path);
	sb_release(&sb);
	return r;
}

/* ---- warmup_stats' CSV in fmt.h's table of formats ---- */

static int csv_write(const struct dataset *ds, const struct fmt_extra *x, struct strbuf *out, struct kerr *e)
{
	(void)x;
	return export_csv_text(ds, out, e);
}

const struct kiln_format fmt_csv = {
	.name = "csv",
	.summary = "warmup_stats' CSV: pexec_idx,bench,0,1,... (\"crash\" for failed pexecs)",
	.suffix = ".csv",
	.read = imp_csv_buf,
	.write = csv_write,
};
