/*
 * dataset.c - building and freeing the in-memory dataset of dataset.h.
 *
 * Importers (import.c, store.c) grow a dataset key by key and pexec by pexec
 * with the ds_add_* functions; everything is owned by the dataset and freed
 * by ds_free().  Arrays double when full (an imported file may have tens
 * of thousands of keys and a key a hundred thousand pexecs), and pointers
 * handed out by ds_add_* stay valid only until the next ds_add_* on the
 * same parent.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"
#include "util.h"

/*
 * Room for one more element in an array of n: it is reallocated when n is
 * 0 or a power of two, to twice that, so that its capacity never needs a
 * field of its own (an array that shrank keeps at least what this implies).
 */
static void *grow(void *p, size_t n, size_t size)
{
	if (n & (n - 1))
		return p;
	return xrealloc(p, (n ? 2 * n : 1) * size);
}

struct ds_key *ds_add_key(struct dataset *ds, const char *bench, const char *vm, const char *variant)
{
	ds->keys = grow(ds->keys, ds->nkeys, sizeof(*ds->keys));
	struct ds_key *k = &ds->keys[ds->nkeys++];
	memset(k, 0, sizeof(*k));
	k->bench = xstrdup(bench);
	k->vm = xstrdup(vm);
	k->variant = xstrdup(variant);
	k->key = xasprintf("%s:%s:%s", bench, vm, variant);
	return k;
}

struct ds_pexec *ds_add_pexec(struct ds_key *k, long num)
{
	k->pexecs = grow(k->pexecs, k->npexecs, sizeof(*k->pexecs));
	struct ds_pexec *p = &k->pexecs[k->npexecs++];
	memset(p, 0, sizeof(*p));
	p->num = num;
	p->status = DS_OK;
	p->duration = NAN;
	p->start = NAN;
	return p;
}

/* a new series of n values, all NAN until the caller fills them */
struct ds_series *ds_add_series(struct ds_pexec *p, const char *name, const char *unit, size_t n)
{
	p->series = grow(p->series, p->nseries, sizeof(*p->series));
	struct ds_series *s = &p->series[p->nseries++];
	s->name = xstrdup(name);
	s->unit = xstrdup(unit ? unit : "");
	s->n = n;
	s->v = xmalloc((n ? n : 1) * sizeof(double));
	for (size_t i = 0; i < n; i++)
		s->v[i] = NAN;
	return s;
}

void ds_add_scalar(struct ds_pexec *p, const char *name, const char *unit, double value)
{
	p->scalars = grow(p->scalars, p->nscalars, sizeof(*p->scalars));
	struct ds_scalar *s = &p->scalars[p->nscalars++];
	s->name = xstrdup(name);
	s->unit = xstrdup(unit ? unit : "");
	s->value = value;
}

double ds_scalar(const struct ds_pexec *p, const char *name)
{
	for (size_t i = 0; i < p->nscalars; i++)
		if (!strcmp(p->scalars[i].name, name))
			return p->scalars[i].value;
	return NAN;
}

struct ds_key *ds_find_key(const struct dataset *ds, const char *key)
{
	for (size_t i = 0; i < ds->nkeys; i++)
		if (!strcmp(ds->keys[i].key, key))
			return &ds->keys[i];
	return NULL;
}

const struct ds_series *ds_find_series(const struct ds_pexec *p, const char *name)
{
	for (size_t i = 0; i < p->nseries; i++)
		if (!strcmp(p->series[i].name, name))
			return &p->series[i];
	return NULL;
}

static void free_pexec(struct ds_pexec *p)
{
	free(p->wall);
	for (size_t i = 0; i < p->nseries; i++) {
		free(p->series[i].name);
		free(p->series[i].unit);
		free(p->series[i].v);
	}
	free(p->series);
	for (size_t i = 0; i < p->nscalars; i++) {
		free(p->scalars[i].name);
		free(p->scalars[i].unit);
	}
	free(p->scalars);
	free(p->machine);
	free(p->error);
	free(p->instr_error);
}

static void free_key(struct ds_key *k)
{
	for (size_t j = 0; j < k->npexecs; j++)
		free_pexec(&k->pexecs[j]);
	free(k->pexecs);
	free(k->bench);
	free(k->vm);
	free(k->variant);
	free(k->key);
	free(k->machine);
	free(k->program_note);
}

int ds_key_matches(const char *pat, const struct ds_key *k)
{
	/* a key split by machine: KEY@MACHINE as a whole, or its parts as any key's */
	if (k->machine && strchr(pat, '@'))
		return star_match(pat, k->key);
	const char *c1 = strchr(pat, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (c2 && strchr(c2 + 1, ':')) {
		char *base = xasprintf("%s:%s:%s", k->bench, k->vm, k->variant);
		int m = star_match(pat, base);
		free(base);
		return m;
	}
	char *b = c1 ? xstrndup(pat, (size_t)(c1 - pat)) : xstrdup(pat);
	char *v = c1 ? (c2 ? xstrndup(c1 + 1, (size_t)(c2 - c1 - 1)) : xstrdup(c1 + 1)) : xstrdup("*");
	int m = star_match(b, k->bench) && star_match(v, k->vm) && star_match(c2 ? c2 + 1 : "*", k->variant);
	free(b);
	free(v);
	return m;
}

size_t ds_keep_keys(struct dataset *ds, const struct strvec *pats)
{
	if (!pats || !pats->n)
		return ds->nkeys;
	size_t j = 0;
	for (size_t i = 0; i < ds->nkeys; i++) {
		int keep = 0;
		for (size_t q = 0; q < pats->n && !keep; q++)
			keep = ds_key_matches(pats->v[q], &ds->keys[i]);
		if (keep)
			ds->keys[j++] = ds->keys[i];
		else
			free_key(&ds->keys[i]);
	}
	return ds->nkeys = j;
}

static const char *pexec_machine(const struct dataset *ds, const struct ds_pexec *p)
{
	return p->machine ? p->machine : ds->machine ? ds->machine : "unknown";
}

size_t ds_machines(const struct dataset *ds, struct strvec *names)
{
	for (size_t i = 0; i < ds->nkeys; i++)
		for (size_t j = 0; j < ds->keys[i].npexecs; j++) {
			const char *m = pexec_machine(ds, &ds->keys[i].pexecs[j]);
			size_t h = 0;
			while (h < names->n && strcmp(names->v[h], m))
				h++;
			if (h == names->n)
				sv_push(names, m);
		}
	if (names->n > 1)
		sv_sort(names);
	return names->n;
}

/* what a key split from k keeps of k's plan: its iterations and what was left out of it */
static void ds_key_plan(struct ds_key *nk, const struct ds_key *k)
{
	nk->iterations = k->iterations;
	nk->warmup_pexecs = k->warmup_pexecs;
	nk->warmup_iterations = k->warmup_iterations;
}

/* key k's pexecs that ran on machine m, copied into a new key KEY@m of out (which takes them over) */
static void copy_machine_pexecs(const struct dataset *ds, const struct ds_key *k, const char *m, struct dataset *out)
{
	struct ds_key *nk = NULL;
	for (size_t j = 0; j < k->npexecs; j++) {
		const struct ds_pexec *p = &k->pexecs[j];
		if (strcmp(pexec_machine(ds, p), m))
			continue;
		if (!nk) {
			nk = ds_add_key(out, k->bench, k->vm, k->variant);
			free(nk->key);
			nk->key = xasprintf("%s:%s:%s@%s", k->bench, k->vm, k->variant, m);
			nk->machine = xstrdup(m);
			ds_key_plan(nk, k);
			nk->program = k->program;
			nk->program_note = k->program_note ? xstrdup(k->program_note) : NULL;
		}
		*ds_add_pexec(nk, p->num) = *p;
		nk->planned_pexecs++;
	}
}

size_t ds_split_machines(struct dataset *ds, int pool)
{
	struct strvec names = STRVEC_INIT;
	size_t n = ds_machines(ds, &names);
	if (n > 1 && pool) {
		struct strbuf all = STRBUF_INIT;
		for (size_t i = 0; i < n; i++)
			sb_addf(&all, "%s%s", i ? "+" : "", names.v[i]);
		free(ds->machine);
		ds->machine = sb_detach(&all);
	} else if (n > 1) {
		struct dataset out;
		memset(&out, 0, sizeof(out));
		for (size_t m = 0; m < n; m++)
			for (size_t i = 0; i < ds->nkeys; i++)
				copy_machine_pexecs(ds, &ds->keys[i], names.v[m], &out);
		for (size_t i = 0; i < ds->nkeys; i++)
			if (!ds->keys[i].npexecs) { /* nothing finished yet: on no machine */
				struct ds_key *nk = ds_add_key(&out, ds->keys[i].bench, ds->keys[i].vm, ds->keys[i].variant);
				ds_key_plan(nk, &ds->keys[i]);
				nk->planned_pexecs = ds->keys[i].planned_pexecs;
			}
		/* every pexec now belongs to exactly one new key: free the old keys' shells only */
		for (size_t i = 0; i < ds->nkeys; i++) {
			free(ds->keys[i].pexecs);
			ds->keys[i].pexecs = NULL;
			ds->keys[i].npexecs = 0;
			free_key(&ds->keys[i]);
		}
		free(ds->keys);
		ds->keys = out.keys;
		ds->nkeys = out.nkeys;
	}
	sv_clear(&names);
	return n;
}

/* the programs among k's pexecs, ascending, in progs (at most max) */
static size_t key_programs(const struct ds_key *k, long *progs, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < k->npexecs; i++) {
		long p = k->pexecs[i].program;
		size_t j = 0;
		while (j < n && progs[j] != p)
			j++;
		if (j == n && n < max)
			progs[n++] = p;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && progs[j - 1] > progs[j]; j--) {
			long t = progs[j];
			progs[j] = progs[j - 1];
			progs[j - 1] = t;
		}
	return n;
}

/* move the pexecs of program p from key ki to a new key VARIANT#p */
static void split_off(struct dataset *ds, size_t ki, long p)
{
	char *variant = xasprintf("%s#%ld", ds->keys[ki].variant, p);
	struct ds_key *nk = ds_add_key(ds, ds->keys[ki].bench, ds->keys[ki].vm, variant);
	free(variant);
	struct ds_key *k = &ds->keys[ki];
	nk->planned_pexecs = k->planned_pexecs;
	ds_key_plan(nk, k);
	nk->program = p;
	size_t keep = 0;
	for (size_t i = 0; i < k->npexecs; i++) {
		if (k->pexecs[i].program != p) {
			k->pexecs[keep++] = k->pexecs[i];
			continue;
		}
		nk->pexecs = xrealloc(nk->pexecs, (nk->npexecs + 1) * sizeof(*nk->pexecs));
		nk->pexecs[nk->npexecs++] = k->pexecs[i];
	}
	k->npexecs = keep;
}

/* keys [from, ds->nkeys) moved to just after key `at` */
static void move_after(struct dataset *ds, size_t at, size_t from)
{
	size_t n = ds->nkeys - from;
	struct ds_key *tmp = xmalloc(n * sizeof(*tmp));
	memcpy(tmp, &ds->keys[from], n * sizeof(*tmp));
	memmove(&ds->keys[at + 1 + n], &ds->keys[at + 1], (from - at - 1) * sizeof(*tmp));
	memcpy(&ds->keys[at + 1], tmp, n * sizeof(*tmp));
	free(tmp);
}

size_t ds_split_programs(struct dataset *ds)
{
	size_t split = 0;
	for (size_t ki = 0; ki < ds->nkeys; ki++) {
		/* as many as its pexecs: a program past any fixed count would stay averaged in */
		size_t np = ds->keys[ki].npexecs;
		long *progs = xmalloc((np ? np : 1) * sizeof(*progs));
		size_t n = key_programs(&ds->keys[ki], progs, np);
		if (n)
			ds->keys[ki].program = progs[0];
		if (n < 2) {
			free(progs);
			continue;
		}
		split++;
		struct strbuf names = STRBUF_INIT;
		sb_adds(&names, ds->keys[ki].key);
		size_t first_new = ds->nkeys;
		for (size_t i = 1; i < n; i++) {
			split_off(ds, ki, progs[i]);
			sb_addf(&names, ", %s", ds->keys[ds->nkeys - 1].key);
		}
		/* what the loader knows of how the programs differ follows the summary */
		char *why = ds->keys[ki].program_note;
		char *note = xasprintf("%s ran %zu programs (its provenance changed and kiln run --force went on): shown "
				       "apart as %s, never averaged%s%s", ds->keys[ki].key, n, names.buf, why ? "; " : "",
				       why ? why : "");
		free(why);
		for (size_t j = first_new; j < ds->nkeys; j++)
			ds->keys[j].program_note = xstrdup(note);
		ds->keys[ki].program_note = note;
		sb_release(&names);
		move_after(ds, ki, first_new);
		free(progs);
		ki += n - 1;
	}
	return split;
}

void ds_free(struct dataset *ds)
{
	if (!ds)
		return;
	for (size_t i = 0; i < ds->nkeys; i++)
		free_key(&ds->keys[i]);
	free(ds->keys);
	free(ds->name);
	free(ds->source);
	free(ds->machine);
	free(ds->keep_name);
	free(ds->keep_text);
	memset(ds, 0, sizeof(*ds));
}

/* "bench:vm:variant" (the variant may itself contain ':'); a bare name gets vm "unknown" */
int ds_split_key(const char *key, char **b, char **v, char **var)
{
	const char *c1 = strchr(key, ':');
	if (!c1) {
		if (!*key)
			return -1;
		*b = xstrdup(key);
		*v = xstrdup("unknown");
		*var = xstrdup("default");
		return 0;
	}
	const char *c2 = strchr(c1 + 1, ':');
	if (c1 == key || !c2 || c2 == c1 + 1 || !c2[1])
		return -1;
	*b = xstrndup(key, (size_t)(c1 - key));
	*v = xstrndup(c1 + 1, (size_t)(c2 - c1 - 1));
	*var = xstrdup(c2 + 1);
	/* said once a process: keys of more than three parts are what a tool added a VM and variant to twice */
	static int said;
	if (strchr(c2 + 1, ':') && !said++)
		kiln_warn("key '%s' has more than three parts (bench:vm:variant): the rest is read as its variant '%s'; "
			  "warmup_stats' csv_to_krun_json makes such keys when its -l/-v add a VM and variant to kiln's "
			  "keys, which have them", esc(ESC_TERM, key), esc(ESC_TERM, c2 + 1));
	return 0;
}
