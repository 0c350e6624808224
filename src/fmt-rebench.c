/*
 * fmt-rebench.c - ReBench's .data files (its -df results), read.
 *
 *   #!/path/rebench ...                       comment lines start with '#'
 *   # Environment: {"hostName": "bencher16", ...}
 *   invocation  iteration  value  unit  criterion  benchmark  executor  suite  extraArgs  cores  inputSize  varValue  machine
 *   1           1          1920.0 ms    total      binary_trees  bt_rc  binary_trees  ...
 *
 * Tab-separated, columns found by the header's names.  A row is one value
 * of one criterion: "total" is the iteration's time (its unit ms, s, us or
 * ns), any other criterion (MaxRSS, a GC time...) becomes a per-iteration
 * series of that name and unit.  A run's key is the one kiln's own run of
 * the same rebench.conf gives it (convert-rebench.c), so that `kiln diff`
 * pairs them: BENCHMARK[VAR=VALUE,...]:VM:SUITE, VM the executor (or
 * EXECUTOR.SUITE when the file has the executor with several suites), and
 * a variable (input, variable, cores, tag) named when the benchmark's runs
 * on that executor and suite have more than one value of it; ':' becomes
 * '_'.  An invocation is a pexec (numbered from 0), an iteration an
 * iteration (from 1 in the file); every iteration of an invocation must
 * have its time.
 */
#include "fmt.h"

#include "config.h"
#include "convert.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { C_INV, C_IT, C_VAL, C_UNIT, C_CRIT, C_BENCH, C_EXEC, C_SUITE, C_ARGS, C_CORES, C_INPUT, C_VAR, C_MACH, C_TAG,
       NCOL };
static const char *const col_names[NCOL] = {
	"invocation", "iteration", "value", "unit", "criterion", "benchmark", "executor", "suite",
	"extraArgs", "cores", "inputSize", "varValue", "machine", "tag",
};
#define NREQUIRED 8 /* invocation .. suite */
#define MAX_FIELDS 64

static int sniff(const char *text, size_t len)
{
	/* a header line "invocation\titeration\t..." before any data, after comments */
	size_t i = 0;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		if (n && text[i] != '#')
			return n >= 21 && !memcmp(text + i, "invocation\titeration\t", 21);
		i += n + 1;
	}
	return 0;
}

/* the tab-separated fields of line into f (pointers into it, at most MAX_FIELDS) */
static size_t split_tabs(char *line, char **f)
{
	size_t n = 0;
	for (char *p = line;; ) {
		char *t = strchr(p, '\t');
		if (n < MAX_FIELDS)
			f[n++] = p;
		if (!t)
			break;
		*t = '\0';
		p = t + 1;
	}
	return n;
}

/* seconds per unit of a ReBench time, 0 when not a time */
static double unit_seconds(const char *u)
{
	static const struct { const char *u; double s; } t[] = {
		{ "ns", 1e-9 }, { "us", 1e-6 }, { "µs", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(u, t[i].u))
			return t[i].s;
	return 0;
}

struct rb {
	const char *name;
	struct dataset *ds;
	int col[NCOL];      /* field index of each column, -1 absent */
	long line;
	long rows;
	struct kerr *e;
	struct strmap keys; /* bench:vm:variant of each key read -> its index from base: a row's key found in O(1) */
	size_t base;        /* keys the dataset had before */
	struct strmap units; /* "KEY-INDEX\x1fCRITERION" -> index in unit_of: a criterion's unit, across invocations */
	struct strvec unit_of;
};

static int row_err(struct rb *r, const char *col, const char *what, const char *v)
{
	return kerr_setc(r->e, KEXIT_CONFIG, "%s:%ld: column %s: '%s' %s", r->name, r->line, col, esc(ESC_TERM, v), what);
}

/* the header: which field holds which column */
static int header(struct rb *r, char **f, size_t n)
{
	for (int c = 0; c < NCOL; c++) {
		r->col[c] = -1;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(f[i], col_names[c]))
				r->col[c] = (int)i;
		if (c < NREQUIRED && r->col[c] < 0)
			return kerr_setc(r->e, KEXIT_CONFIG, "%s:%ld: header: no column '%s'", r->name, r->line, col_names[c]);
	}
	return 0;
}

static const char *field(struct rb *r, char **f, size_t n, int c)
{
	return r->col[c] >= 0 && (size_t)r->col[c] < n ? f[r->col[c]] : "";
}

/*
 * While reading, a run's benchmark part holds its name and its variables'
 * values, "NAME\x1fINPUT\x1fVARIABLE\x1fCORES\x1fTAG"; name_keys() gives
 * the keys their names once every run is read.
 */
static const int var_cols[] = { C_INPUT, C_VAR, C_CORES, C_TAG };
static const char *const var_names[] = { "input", "variable", "cores", "tag" };

/* a part of a run: the separator in a file's own text is a '_' (else a name could start with it and be empty) */
static void add_part(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		sb_addc(sb, *s == '\x1f' ? '_' : *s);
}

static char *run_of(struct rb *r, char **f, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	add_part(&sb, field(r, f, n, C_BENCH));
	for (size_t i = 0; i < ARRAY_SIZE(var_cols); i++) {
		const char *v = field(r, f, n, var_cols[i]);
		/* ReBench writes no tag as None, one core as 1 (a column an older ReBench lacks: its default) */
		sb_addc(&sb, '\x1f');
		add_part(&sb, var_cols[i] == C_TAG && !strcmp(v, "None") ? "" : var_cols[i] == C_CORES && !*v ? "1" : v);
	}
	return sb_detach(&sb);
}

/* the parts of a key's run (bench: NAME and its variables) */
static size_t run_parts(const char *bench, char **part)
{
	char *s = xstrdup(bench);
	size_t n = 0;
	for (char *p = s, *sep; n < 5; p = sep + 1) {
		part[n++] = p;
		if (!(sep = strchr(p, '\x1f')))
			break;
		*sep = '\0';
	}
	return n;
}

/* text that names a tuple of strings unambiguously, whatever bytes they hold: each as LENGTH:TEXT */
static void tuple_add(struct strbuf *sb, const char *s)
{
	sb_addf(sb, "%zu:%s", strlen(s), s);
}

/*
 * Every key its name: the variables with more than one value in its group
 * (its name, executor and suite) labelled, the VM as kiln names it.  Each
 * group's variables and each executor's suites are counted once, in maps,
 * so naming is linear in the keys (a search over every key for each key,
 * and its suites, took 16 s for 2000 executors).
 */
static int name_keys(struct rb *r)
{
	struct dataset *ds = r->ds;
	size_t nk = ds->nkeys - r->base;
	if (!nk)
		return 0; /* nothing to name (and ds->keys may be NULL: no offset to add to it) */
	struct ds_key *keys = ds->keys + r->base;
	char *(*parts)[5] = xcalloc(nk + 1, sizeof(*parts));
	size_t *group = xcalloc(nk + 1, sizeof(*group)), *vmi = xcalloc(nk + 1, sizeof(*vmi));
	struct strmap groups = STRMAP_INIT, pairs = STRMAP_INIT, vmnames = STRMAP_INIT;
	/* per group, the first key's index and which variables have another value; per executor its suites */
	size_t *first = xcalloc(nk + 1, sizeof(*first));
	unsigned char *several = xcalloc(nk + 1, 1);
	int *nsuites = xcalloc(nk + 1, sizeof(*nsuites));
	struct strbuf t = STRBUF_INIT;
	for (size_t i = 0; i < nk; i++) {
		struct ds_key *k = &keys[i];
		size_t np = run_parts(k->bench, parts[i]);
		for (size_t v = np; v < 5; v++)
			parts[i][v] = NULL;
		sb_reset(&t);
		tuple_add(&t, k->vm);
		tuple_add(&t, k->variant);
		tuple_add(&t, parts[i][0]);
		long g = strmap_find(&groups, sb_str(&t));
		if (g < 0) {
			g = (long)strmap_add(&groups, sb_str(&t));
			first[g] = i;
		}
		group[i] = (size_t)g;
		for (size_t v = 1; v < 5; v++) {
			const char *a = parts[first[g]][v], *b = parts[i][v];
			if (a && b && strcmp(a, b))
				several[g] |= (unsigned char)(1u << v);
		}
		long m = strmap_find(&vmnames, k->vm);
		if (m < 0)
			m = (long)strmap_add(&vmnames, k->vm);
		vmi[i] = (size_t)m;
		sb_reset(&t);
		tuple_add(&t, k->vm);
		tuple_add(&t, k->variant);
		if (strmap_find(&pairs, sb_str(&t)) < 0) {
			strmap_add(&pairs, sb_str(&t));
			nsuites[m]++;
		}
	}
	char **names = xcalloc(nk + 1, sizeof(*names)), **vms = xcalloc(nk + 1, sizeof(*vms));
	for (size_t i = 0; i < nk; i++) {
		struct ds_key *k = &keys[i];
		struct strbuf name = STRBUF_INIT, labels = STRBUF_INIT;
		sb_adds(&name, parts[i][0]);
		for (size_t v = 1; v < 5; v++) {
			if (!parts[i][v] || !(several[group[i]] & (1u << v)))
				continue;
			char *l = config_var_label(parts[i][v]);
			sb_addf(&labels, "%s%s=%s", labels.len ? "," : "", var_names[v - 1], l);
			free(l);
		}
		if (labels.len)
			sb_addf(&name, "[%s]", labels.buf);
		names[i] = sb_detach(&name);
		sb_release(&labels);
		vms[i] = rebench_vm_name(k->vm, k->variant, nsuites[vmi[i]]);
	}
	int rc = 0;
	struct strmap done = STRMAP_INIT;
	for (size_t i = 0; i < nk; i++) {
		struct ds_key *k = &keys[i];
		free(k->bench);
		free(k->vm);
		free(k->key);
		k->bench = names[i];
		k->vm = vms[i];
		k->key = xasprintf("%s:%s:%s", k->bench, k->vm, k->variant);
		if (rc == 0 && strmap_find(&done, k->key) >= 0)
			rc = kerr_setc(r->e, KEXIT_CONFIG, "%s: two runs are both named %s", r->name, esc(ESC_TERM, k->key));
		strmap_add(&done, k->key);
	}
	for (size_t i = 0; i < nk; i++)
		free(parts[i][0]);
	free(parts);
	free(group);
	free(vmi);
	free(first);
	free(several);
	free(nsuites);
	free(names);
	free(vms);
	sb_release(&t);
	strmap_clear(&groups);
	strmap_clear(&pairs);
	strmap_clear(&vmnames);
	strmap_clear(&done);
	return rc;
}

/* the pexec of invocation num in k (the last one first: rows come in order) */
static struct ds_pexec *pexec_of(struct ds_key *k, long num)
{
	for (size_t i = k->npexecs; i-- > 0;)
		if (k->pexecs[i].num == num)
			return &k->pexecs[i];
	if ((long)k->npexecs >= FMT_MAX_PEXECS)
		return NULL;
	return ds_add_pexec(k, num);
}

/* v[idx] = x, v grown (NAN-filled) to at least idx + 1 */
static void put(double **v, size_t *n, size_t idx, double x)
{
	if (idx >= *n) {
		*v = xrealloc(*v, (idx + 1) * sizeof(double));
		for (size_t i = *n; i <= idx; i++)
			(*v)[i] = NAN;
		*n = idx + 1;
	}
	(*v)[idx] = x;
}

/* a row's run as the file names it, for messages (the key's name is only made once every row is read) */
static char *run_text(struct rb *r, char **f, size_t n)
{
	char *b = xstrdup(esc(ESC_TERM, field(r, f, n, C_BENCH))), *x = xstrdup(esc(ESC_TERM, field(r, f, n, C_EXEC)));
	char *t = xasprintf("%s on %s (suite %s)", b, x, esc(ESC_TERM, field(r, f, n, C_SUITE)));
	free(b);
	free(x);
	return t;
}

/*
 * A criterion's unit in a key's invocation: the one its earlier invocations
 * gave it.  The store keeps a unit per pexec's series, but a key's series
 * are read as one quantity (MaxRSS in kB in one invocation and in MB in the
 * next would be averaged as one); refused naming the line
 */
static int row_twice(struct rb *r, char **f, size_t n, long ni, long nt, const char *what);
static int unit_across(struct rb *r, size_t key, const char *crit, const char *unit, char **f, size_t n, long ni, long nt)
{
	char *uk = xasprintf("%zu\x1f%s", key, crit);
	long u = strmap_find(&r->units, uk);
	int rc = 0;
	if (u < 0) {
		strmap_add(&r->units, uk);
		sv_push(&r->unit_of, unit);
	} else if (strcmp(r->unit_of.v[u], unit)) {
		char *what = xasprintf("column unit: '%s' in '%s', but in '%s' in an earlier invocation", esc(ESC_TERM, crit),
				       esc(ESC_TERM, unit), esc(ESC_TERM, r->unit_of.v[u]));
		rc = row_twice(r, f, n, ni, nt, what);
		free(what);
	}
	free(uk);
	return rc;
}

/* a criterion given twice for an iteration (what) */
static int row_twice(struct rb *r, char **f, size_t n, long ni, long nt, const char *what)
{
	char *t = run_text(r, f, n);
	kerr_setc(r->e, KEXIT_CONFIG, "%s:%ld: invocation %ld iteration %ld of %s: %s", r->name, r->line, ni, nt, t, what);
	free(t);
	return -1;
}

static int data_row(struct rb *r, char **f, size_t n)
{
	const char *inv = field(r, f, n, C_INV), *it = field(r, f, n, C_IT), *val = field(r, f, n, C_VAL);
	const char *unit = field(r, f, n, C_UNIT), *crit = field(r, f, n, C_CRIT);
	long ni, nt;
	double v;
	/* every iteration has a row of its own: none may be numbered past the rows there are */
	if (parse_long(inv, &ni) || ni < 1 || ni > FMT_MAX_PEXECS || ni > r->rows)
		return row_err(r, "invocation", "is not an invocation number (1, 2, ... at most the rows so far)", inv);
	if (parse_long(it, &nt) || nt < 1 || nt > FMT_MAX_VALUES || nt > r->rows)
		return row_err(r, "iteration", "is not an iteration number (1, 2, ... at most the rows so far)", it);
	if (parse_double(val, &v) || !isfinite(v))
		return row_err(r, "value", "is not a number", val);
	if (!*crit)
		return row_err(r, "criterion", "is empty", crit);
	if (!*field(r, f, n, C_BENCH))
		return kerr_setc(r->e, KEXIT_CONFIG, "%s:%ld: columns benchmark, executor and suite must name a key "
				 "(none empty, at most %ld keys)", r->name, r->line, FMT_MAX_KEYS);
	char *variant = xstrdup(field(r, f, n, C_SUITE));
	char *bench = run_of(r, f, n), *vm = xstrdup(field(r, f, n, C_EXEC));
	for (char *p = bench; *p; p++)
		*p = *p == ':' ? '_' : *p;
	for (char *p = vm; *p; p++)
		*p = *p == ':' ? '_' : *p;
	for (char *p = variant; *p; p++)
		*p = *p == ':' ? '_' : *p;
	struct ds_key *k = NULL;
	if (*bench && *vm && *variant) {
		/* found in the map, not by a search of every key for every row */
		char *full = xasprintf("%s:%s:%s", bench, vm, variant);
		long i = strmap_find(&r->keys, full);
		if (i >= 0) {
			k = &r->ds->keys[r->base + (size_t)i];
		} else if ((long)(r->ds->nkeys - r->base) < FMT_MAX_KEYS) {
			strmap_add(&r->keys, full);
			k = ds_add_key(r->ds, bench, vm, variant);
		}
		free(full);
	}
	free(bench);
	free(vm);
	free(variant);
	if (!k)
		return kerr_setc(r->e, KEXIT_CONFIG, "%s:%ld: columns benchmark, executor and suite must name a key "
				 "(none empty, at most %ld keys)", r->name, r->line, FMT_MAX_KEYS);
	struct ds_pexec *p = pexec_of(k, ni - 1);
	if (!p)
		return kerr_setc(r->e, KEXIT_CONFIG, "%s:%ld: more than %ld invocations", r->name, r->line, FMT_MAX_PEXECS);
	if (!strcmp(crit, "total")) {
		double s = unit_seconds(unit);
		if (!s)
			return row_err(r, "unit", "is not a unit of time (ns, us, ms, s)", unit);
		if (ds_time_subns(v * s))
			return row_err(r, "value", DS_TIME_SUBNS_WHY, val);
		if (!ds_time_ok(v * s))
			return row_err(r, "value", "is not a time kiln can store (0 to 9.2e9 s)", val);
		if ((size_t)nt <= p->n && !isnan(p->wall[nt - 1]))
			return row_twice(r, f, n, ni, nt, "a second 'total'");
		put(&p->wall, &p->n, (size_t)nt - 1, v * s);
		if (nt > k->iterations)
			k->iterations = nt;
		return 0;
	}
	struct ds_series *se = (struct ds_series *)ds_find_series(p, crit);
	if (!se) {
		if (p->nseries >= 1000)
			return kerr_setc(r->e, KEXIT_CONFIG, "%s:%ld: more than 1000 criteria", r->name, r->line);
		if (unit_across(r, (size_t)(k - (r->ds->keys + r->base)), crit, unit, f, n, ni, nt) < 0)
			return -1;
		se = ds_add_series(p, crit, unit, 0);
	}
	/* a series has one unit, an iteration one value of it: another would be misread or replace the first */
	if (strcmp(se->unit, unit) || ((size_t)nt <= se->n && !isnan(se->v[nt - 1]))) {
		char *what = strcmp(se->unit, unit)
				     ? xasprintf("column unit: '%s' in '%s', but in '%s' on an earlier row", esc(ESC_TERM, crit),
						 esc(ESC_TERM, unit), esc(ESC_TERM, se->unit))
				     : xasprintf("a second '%s'", esc(ESC_TERM, crit));
		row_twice(r, f, n, ni, nt, what);
		free(what);
		return -1;
	}
	put(&se->v, &se->n, (size_t)nt - 1, v);
	return 0;
}

/* every invocation has a time for each of its iterations */
static int check_complete(struct rb *r)
{
	for (size_t i = 0; i < r->ds->nkeys; i++) {
		struct ds_key *k = &r->ds->keys[i];
		for (size_t p = 0; p < k->npexecs; p++) {
			struct ds_pexec *px = &k->pexecs[p];
			size_t need = px->n ? px->n : 1;
			for (size_t s = 0; s < px->nseries; s++)
				if (px->series[s].n > need)
					need = px->series[s].n;
			for (size_t j = 0; j < need; j++)
				if (j >= px->n || isnan(px->wall[j]))
					return kerr_setc(r->e, KEXIT_CONFIG, "%s: %s invocation %ld: no 'total' for iteration %zu",
							 r->name, esc(ESC_TERM, k->key), px->num + 1, j + 1);
			/* a criterion some iterations lack: NAN there, as everywhere in kiln */
			for (size_t s = 0; s < px->nseries; s++)
				if (px->series[s].n < px->n) {
					double last = NAN;
					put(&px->series[s].v, &px->series[s].n, px->n - 1, last);
				}
		}
		k->planned_pexecs = (long)k->npexecs;
	}
	return 0;
}

/* "# Environment: {json}": the machine's name */
static void environment(struct dataset *ds, const char *line)
{
	static const char tag[] = "# Environment: ";
	if (ds->machine || strncmp(line, tag, sizeof(tag) - 1))
		return;
	json_t *env = json_loads(line + sizeof(tag) - 1, 0, NULL);
	const char *h = json_string_value(json_object_get(env, "hostName"));
	if (h && *h)
		ds->machine = xstrdup(h);
	json_decref(env);
}

static int rb_read(const char *name, const char *text, size_t len, struct dataset *ds, struct kerr *e)
{
	struct rb r = { .name = name, .ds = ds, .e = e, .keys = STRMAP_INIT, .base = ds->nkeys };
	int have_header = 0, rc = 0;
	const char *p = text, *end = text + len;
	char *f[MAX_FIELDS];
	while (rc == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		r.line++;
		char *line = xstrndup(p, n);
		p += n + 1;
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (strlen(line) != n)
			rc = kerr_setc(e, KEXIT_CONFIG, "%s:%ld: a NUL byte: not a ReBench data file", name, r.line);
		else if (line[0] == '#')
			environment(ds, line);
		else if (!n)
			;
		else if (++r.rows > FMT_MAX_VALUES)
			rc = kerr_setc(e, KEXIT_CONFIG, "%s:%ld: more than %ld rows", name, r.line, FMT_MAX_VALUES);
		else if (!have_header) {
			rc = header(&r, f, split_tabs(line, f));
			have_header = 1;
		} else
			rc = data_row(&r, f, split_tabs(line, f));
		free(line);
	}
	if (rc == 0 && !have_header)
		rc = kerr_setc(e, KEXIT_CONFIG, "%s: no header line (invocation, iteration, value, ...)", name);
	strmap_clear(&r.keys);
	strmap_clear(&r.units);
	sv_clear(&r.unit_of);
	return rc < 0 || name_keys(&r) < 0 ? -1 : check_complete(&r);
}

const struct kiln_format fmt_rebench = {
	.name = "rebench",
	.summary = "ReBench's .data files (read): a key per run, named as kiln's run of the same rebench.conf names it",
	.suffix = ".data",
	.sniff = sniff,
	.read = rb_read,
};
