/*
 * dataset.c - building and freeing the in-memory dataset of dataset.h.
 *
 * Importers (import.c, store.c) grow a dataset key by key and pexec by pexec
 * with the ds_add_* functions; everything is owned by the dataset and freed
 * by ds_free().  Arrays grow one element at a time with realloc: datasets
 * have hundreds of keys at most, and pointers handed out by ds_add_* stay
 * valid only until the next ds_add_* on the same parent.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"
#include "util.h"

struct ds_key *ds_add_key(struct dataset *ds, const char *bench, const char *vm, const char *variant)
{
	ds->keys = xrealloc(ds->keys, (ds->nkeys + 1) * sizeof(*ds->keys));
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
	k->pexecs = xrealloc(k->pexecs, (k->npexecs + 1) * sizeof(*k->pexecs));
	struct ds_pexec *p = &k->pexecs[k->npexecs++];
	memset(p, 0, sizeof(*p));
	p->num = num;
	p->status = DS_OK;
	return p;
}

/* a new series of n values, all NAN until the caller fills them */
struct ds_series *ds_add_series(struct ds_pexec *p, const char *name, const char *unit, size_t n)
{
	p->series = xrealloc(p->series, (p->nseries + 1) * sizeof(*p->series));
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
	p->scalars = xrealloc(p->scalars, (p->nscalars + 1) * sizeof(*p->scalars));
	struct ds_scalar *s = &p->scalars[p->nscalars++];
	s->name = xstrdup(name);
	s->unit = xstrdup(unit ? unit : "");
	s->value = value;
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
}

size_t ds_keep_keys(struct dataset *ds, const char *pat)
{
	size_t j = 0;
	for (size_t i = 0; i < ds->nkeys; i++) {
		if (star_match(pat, ds->keys[i].key))
			ds->keys[j++] = ds->keys[i];
		else
			free_key(&ds->keys[i]);
	}
	return ds->nkeys = j;
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
	memset(ds, 0, sizeof(*ds));
}
