/*
 * publish-site.c - `kiln publish`'s driver (publish.h): the history read
 * through its API (history.h), the keys chosen, each key's series and
 * change points, then the site written into a fresh folder beside the
 * destination and renamed into place, replacing the site that was there.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "dataset.h"
#include "exec.h"
#include "publish-int.h"

/* a site's mark: a folder holding it is one kiln publish may replace */
#define PUB_MARK ".kiln-publish"

void pub_opts_init(struct pub_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->reports = PUB_REPORTS_CHANGES;
	o->plots = 3;
}

void pub_opts_release(struct pub_opts *o)
{
	sv_clear(&o->machines);
	sv_clear(&o->keys);
}

const char *pub_what_name(enum pub_what w)
{
	static const char *const n[] = { "steady", "warmup", "class", "cost" };
	return (unsigned)w < PUB_NWHAT ? n[w] : "?";
}

/*
 * A new file of the site, written plainly: the folder is new and nobody
 * reads it before it is complete, synced once (syncfs) and swapped in, so
 * that a file need not be made atomic or durable on its own (one sync for
 * the site, not a journal commit per file)
 */
int pub_write(struct pub_site *s, const char *rel, const struct strbuf *sb, struct kerr *e)
{
	char *path = path_join(s->dir, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	size_t done = 0;
	while (fd >= 0 && done < sb->len) {
		ssize_t w = write(fd, sb->buf + done, sb->len - done);
		if (w < 0 && errno != EINTR)
			break;
		done += w > 0 ? (size_t)w : 0;
	}
	int r = fd >= 0 && done == sb->len ? 0 : -1, err = errno;
	if (fd >= 0 && close(fd) < 0 && r == 0) {
		r = -1;
		err = errno;
	}
	if (r < 0)
		kerr_setc(e, KEXIT_FAIL, "%s: %s", path, strerror(err));
	free(path);
	if (r == 0) {
		s->sum.files++;
		s->sum.bytes += sb->len;
	}
	return r;
}

/* ---- the destination ---- */

/* 1: path is missing, an empty folder or a site kiln publish wrote; 0 with e set: anything else */
static int replaceable(const char *path, struct kerr *e)
{
	struct stat st;
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 1;
		return kerr_setc(e, KEXIT_USAGE, "%s: %s", path, strerror(errno)), 0;
	}
	if (!S_ISDIR(st.st_mode))
		return kerr_setc(e, KEXIT_USAGE, "%s: not a folder (kiln publish writes a folder)", path), 0;
	char *mark = path_join(path, PUB_MARK);
	int marked = lstat(mark, &st) == 0 && S_ISREG(st.st_mode);
	free(mark);
	if (marked)
		return 1;
	DIR *d = opendir(path);
	if (!d)
		return kerr_setc(e, KEXIT_USAGE, "%s: %s", path, strerror(errno)), 0;
	struct dirent *de;
	int empty = 1;
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	if (!empty)
		kerr_setc(e, KEXIT_USAGE, "%s: a folder that is not empty and not a site kiln publish wrote: "
					  "choose another -o (kiln never deletes what it did not write)", path);
	return empty;
}

/* a new folder beside dest: DEST.kiln-new-XXXXXX (on dest's file system, so that rename works) */
static char *scratch_beside(const char *dest, const char *what, struct kerr *e)
{
	char *t = xasprintf("%s.kiln-%s-XXXXXX", dest, what);
	mode_t um = umask(0);
	umask(um);
	if (!mkdtemp(t) || chmod(t, 0777 & ~um) < 0) {
		kerr_setc(e, KEXIT_FAIL, "%s: cannot make a folder beside it: %s", dest, strerror(errno));
		free(t);
		return NULL;
	}
	return t;
}

/* the new site in place of the old one, once on disk: never a moment without a whole site at dest */
static int swap_in(const char *tmp, const char *dest, struct kerr *e)
{
	struct stat st;
	int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || syncfs(dfd) < 0) {
		int err = errno;
		if (dfd >= 0)
			close(dfd);
		return kerr_setc(e, KEXIT_FAIL, "%s: %s", tmp, strerror(err));
	}
	close(dfd);
	if (lstat(dest, &st) < 0) {
		if (rename(tmp, dest) < 0)
			return kerr_setc(e, KEXIT_FAIL, "%s: %s", dest, strerror(errno));
		return 0;
	}
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dest, RENAME_EXCHANGE) == 0)
		return rm_rf(tmp) < 0 ? kerr_setc(e, KEXIT_FAIL, "%s: the old site left there", tmp) : 0;
	/* no atomic exchange on this file system: the old one aside, then the new one in */
	char *old = xasprintf("%s.kiln-old-%ld", dest, (long)getpid());
	int r = 0;
	if (rename(dest, old) < 0 || rename(tmp, dest) < 0)
		r = kerr_setc(e, KEXIT_FAIL, "%s: %s", dest, strerror(errno));
	else
		rm_rf(old);
	free(old);
	return r;
}

/* ---- the keys ---- */

/* "bench:vm:variant" in its parts (a name with more colons: the benchmark keeps the first part) */
static void key_parts(const char *key, char **bench, char **vm, char **variant)
{
	const char *a = strchr(key, ':'), *b = a ? strchr(a + 1, ':') : NULL;
	*bench = xstrndup(key, a ? (size_t)(a - key) : strlen(key));
	*vm = a ? xstrndup(a + 1, b ? (size_t)(b - a - 1) : strlen(a + 1)) : xstrdup("");
	*variant = xstrdup(b ? b + 1 : "");
}

static int key_wanted(const struct pub_opts *o, const char *key)
{
	if (!o->keys.n)
		return 1;
	struct ds_key dk;
	memset(&dk, 0, sizeof(dk));
	key_parts(key, &dk.bench, &dk.vm, &dk.variant);
	dk.key = (char *)key;
	int ok = 0;
	for (size_t i = 0; i < o->keys.n && !ok; i++)
		ok = ds_key_matches(o->keys.v[i], &dk);
	free(dk.bench);
	free(dk.vm);
	free(dk.variant);
	return ok;
}

/*
 * A file name for a key of a machine: its safe characters ([A-Za-z0-9._-],
 * anything else '_', at most 60), then a hash of machine and key, so that
 * names differ whatever the keys are and stay the same from one publish to
 * the next (links to a page hold)
 */
static char *page_name(const char *machine, const char *key)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "k/");
	for (size_t i = 0; key[i] && i < 60; i++) {
		unsigned char ch = (unsigned char)key[i];
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
			 ch == '_' || ch == '-';
		sb_addc(&sb, ok && !(i == 0 && ch == '.') ? (char)ch : '_');
	}
	struct strbuf id = STRBUF_INIT;
	sb_adds(&id, machine);
	sb_addc(&id, '\n');
	sb_adds(&id, key);
	char hex[65];
	hash_hex(id.buf, id.len, hex);
	sb_addf(&sb, "-%.10s.html", hex);
	sb_release(&id);
	return sb_detach(&sb);
}

/* the point's steady-state mean: the key's, else the mean of its pexecs' (struct pub_fig) */
static void steady_of(const struct hist_point *p, struct pub_fig *f)
{
	f->mean = p->mean;
	f->lo = p->lo;
	f->hi = p->hi;
	f->pooled = 0;
	if (isfinite(p->mean))
		return;
	double sum = 0;
	for (size_t j = 0; j < p->n; j++)
		if (isfinite(p->steady[j])) {
			sum += p->steady[j];
			f->pooled++;
		}
	f->mean = f->pooled ? sum / (double)f->pooled : NAN;
	f->lo = f->hi = NAN;
}

/* the time to steady state, the steady-state mean and the most frequent class of each point */
static void key_figures(struct pub_key *k)
{
	k->fig = xcalloc(k->s.n + 1, sizeof(*k->fig));
	for (size_t i = 0; i < k->s.n; i++) {
		const struct hist_point *p = &k->s.p[i];
		struct pub_fig *f = &k->fig[i];
		double *v = xmalloc((p->n + 1) * sizeof(double));
		size_t m = 0;
		for (size_t j = 0; j < p->n; j++)
			if (isfinite(p->tts[j]))
				v[m++] = p->tts[j];
		sort_doubles(v, m);
		f->tts_med = m ? an_percentile_sorted(v, m, 50) : NAN;
		f->tts_lo = m ? an_percentile_sorted(v, m, 5) : NAN;
		f->tts_hi = m ? an_percentile_sorted(v, m, 95) : NAN;
		free(v);
		steady_of(p, f);
		f->major = -1;
		for (int c = 0; c < AN_NPCLASS; c++)
			if (p->counts[c] && (f->major < 0 || p->counts[c] > p->counts[f->major]))
				f->major = c;
	}
	k->report = xcalloc(k->s.n + 1, sizeof(char *));
}

static int add_key(struct pub_site *s, size_t mi, const char *key, struct kerr *e)
{
	struct pub_key k;
	memset(&k, 0, sizeof(k));
	if (history_series(s->h, s->m[mi].id, key, s->c, s->nc, &k.s, e) < 0)
		return -1;
	if (!k.s.n) {
		history_series_free(&k.s);
		return 0;
	}
	k.machine = mi;
	k.key = xstrdup(key);
	char *vm, *variant;
	key_parts(key, &k.bench, &vm, &variant);
	k.column = !*variant || !strncmp(variant, "default-", 8) ? xstrdup(vm) : xasprintf("%s:%s", vm, variant);
	free(vm);
	free(variant);
	k.page = page_name(s->m[mi].name, key);
	key_figures(&k);
	pub_detect(&k);
	s->k = xrealloc(s->k, (s->nk + 1) * sizeof(*s->k));
	s->k[s->nk++] = k;
	return 0;
}

static int machine_wanted(const struct pub_opts *o, const char *name)
{
	for (size_t i = 0; i < o->machines.n; i++)
		if (!strcmp(o->machines.v[i], name))
			return 1;
	return !o->machines.n;
}

static int read_site(struct pub_site *s, struct kerr *e)
{
	const struct pub_opts *o = s->o;
	if (history_commits(s->h, &s->c, &s->nc, e) < 0 || history_machines(s->h, &s->m, &s->nm, e) < 0)
		return -1;
	for (size_t i = 0; i < o->machines.n; i++)
		if (!history_machine_id(s->h, o->machines.v[i]))
			return kerr_setc(e, KEXIT_USAGE, "%s: no machine '%s' in this history", o->history,
					 esc(ESC_TERM, o->machines.v[i]));
	for (size_t mi = 0; mi < s->nm; mi++) {
		if (!machine_wanted(o, s->m[mi].name))
			continue;
		s->sum.machines++;
		struct strvec keys = STRVEC_INIT;
		int r = history_keys(s->h, s->m[mi].id, &keys, e);
		for (size_t i = 0; r == 0 && i < keys.n; i++)
			if (key_wanted(o, keys.v[i]))
				r = add_key(s, mi, keys.v[i], e);
		sv_clear(&keys);
		if (r < 0)
			return -1;
	}
	if (!s->nk && o->keys.n)
		return kerr_setc(e, KEXIT_USAGE, "%s: no key matches the --key patterns", o->history);
	s->sum.keys = s->nk;
	s->sum.commits = s->nc;
	for (size_t i = 0; i < s->nk; i++)
		s->sum.changes += s->k[i].nch;
	return 0;
}

static void site_free(struct pub_site *s)
{
	for (size_t i = 0; i < s->nk; i++) {
		struct pub_key *k = &s->k[i];
		for (size_t j = 0; j < k->s.n; j++)
			free(k->report[j]);
		free(k->report);
		free(k->fig);
		free(k->ch);
		history_series_free(&k->s);
		free(k->key);
		free(k->bench);
		free(k->column);
		free(k->page);
	}
	free(s->k);
	history_commits_free(s->c, s->nc);
	history_machines_free(s->m, s->nm);
	free(s->title);
	if (s->h)
		history_close(s->h);
}

/* ---- writing ---- */

static int write_mark(struct pub_site *s, struct kerr *e)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "kiln publish %s\n", KILN_VERSION);
	int r = pub_write(s, PUB_MARK, &sb, e);
	sb_release(&sb);
	return r;
}

static int write_site(struct pub_site *s, struct kerr *e)
{
	char *k = path_join(s->dir, "k"), *r = path_join(s->dir, "r");
	int rc = mkdir(k, 0755) < 0 || mkdir(r, 0755) < 0 ? kerr_setc(e, KEXIT_FAIL, "%s: %s", s->dir, strerror(errno))
							   : 0;
	free(k);
	free(r);
	if (rc == 0)
		rc = pub_reports(s, e);
	for (size_t i = 0; rc == 0 && i < s->nk; i++)
		rc = page_key(s, i, e);
	if (rc == 0)
		rc = page_overview(s, e);
	if (rc == 0)
		rc = pub_assets(s, e);
	if (rc == 0)
		rc = write_mark(s, e);
	return rc;
}

int publish_site(const struct pub_opts *o, struct pub_summary *sum, struct kerr *e)
{
	memset(sum, 0, sizeof(*sum));
	if (!replaceable(o->out, e))
		return -1;
	struct pub_site s;
	memset(&s, 0, sizeof(s));
	s.o = o;
	s.now_ns = wall_ns();
	int r = history_open(o->history, 0, &s.h, e);
	if (r == 0) {
		char *project = NULL;
		history_meta_get(s.h, "project", &project);
		s.title = o->title ? xstrdup(o->title) : project ? xasprintf("%s: history", project) : xstrdup("kiln history");
		free(project);
		r = read_site(&s, e);
	}
	if (r == 0 && !(s.dir = scratch_beside(o->out, "new", e)))
		r = -1;
	if (r == 0)
		r = write_site(&s, e);
	if (r == 0 && exec_interrupted)
		r = kerr_setc(e, KEXIT_INTERRUPTED, "interrupted: %s left as it was", o->out);
	if (r == 0)
		r = swap_in(s.dir, o->out, e);
	else if (s.dir)
		rm_rf(s.dir);
	*sum = s.sum;
	free(s.dir);
	site_free(&s);
	return r;
}
