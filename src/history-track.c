/*
 * history-track.c - `kiln track`: an experiment measured at each commit of
 * a range, into the history (docs/kiln-track.md).
 *
 * Per commit: a clean checkout in the history's work folder
 * (<history>.work/src, history-git.c), the config read again with `{src}`
 * standing for that folder, then `kiln run`'s own path (run_experiment_ex:
 * the VM's build steps, the probes, provenance, pexec by pexec commits)
 * into a results file of that commit (<history>.work/runs/HASH.kiln.db),
 * which is folded into the history once it is complete and then removed.
 * A build that fails is recorded and the next commit goes on; an interrupt
 * leaves the commit's run `running` and its results file in place, so the
 * same command resumes it at its first pending pexec.  With --interleave,
 * a window of commits is measured together instead, in rounds
 * (history-window.c), through the same begin, measure and end steps.
 */
#include "history-track.h"
#include "history-track-int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "config.h"
#include "exec.h"
#include "history-git.h"
#include "history-int.h"
#include "idcache.h"
#include "paths.h"
#include "run.h"

void track_opts_init(struct track_opts *o)
{
	memset(o, 0, sizeof(*o));
	an_opts_default(&o->an);
	o->order = TRACK_SPREAD;
}

/* ---- the machine ---- */

static char *first_line_with(const char *path, const char *prefix)
{
	struct strbuf sb = STRBUF_INIT;
	char *v = NULL;
	if (read_file(path, &sb, NULL) == 0) {
		for (const char *p = sb_str(&sb); p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
			if (strncmp(p, prefix, strlen(prefix)))
				continue;
			const char *c = strchr(p, ':');
			if (!c)
				break;
			c++;
			while (*c == ' ' || *c == '\t')
				c++;
			v = xstrndup(c, strcspn(c, "\n"));
			break;
		}
	}
	sb_release(&sb);
	return v;
}

/* what makes this machine the one whose series these are (docs/history.md#machines) */
char *track_machine_identity(void)
{
	json_t *id = json_object();
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	json_object_set_new(id, "hostname", json_string(esc(ESC_JSON, host)));
	char *cpu = first_line_with("/proc/cpuinfo", "model name");
	json_object_set_new(id, "cpu_model", cpu ? json_string(esc(ESC_JSON, cpu)) : json_null());
	free(cpu);
	json_object_set_new(id, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	char *mem = first_line_with("/proc/meminfo", "MemTotal");
	long kb = 0;
	if (mem) {
		mem[strcspn(mem, " ")] = '\0';
		parse_long(mem, &kb);
	}
	free(mem);
	json_object_set_new(id, "memory_kb", json_integer(kb));
	struct strbuf mid = STRBUF_INIT;
	if (read_file("/etc/machine-id", &mid, NULL) == 0 && mid.len) {
		char h[65];
		hash_hex(mid.buf, mid.len, h);
		json_object_set_new(id, "machine_id", json_string(h));
	}
	sb_release(&mid);
	char *s = json_dumps(id, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(id);
	return s;
}

/* the parts of two identities that must agree for one series: CPU model, CPUs, memory */
int track_identity_differs(const char *a, const char *b, struct strbuf *why)
{
	json_t *ja = json_loads(a ? a : "{}", 0, NULL), *jb = json_loads(b ? b : "{}", 0, NULL);
	static const char *const keys[] = { "cpu_model", "cpus", "memory_kb" };
	int n = 0;
	for (size_t i = 0; ja && jb && i < ARRAY_SIZE(keys); i++) {
		json_t *x = json_object_get(ja, keys[i]), *y = json_object_get(jb, keys[i]);
		if (x && y && !json_equal(x, y)) {
			char *sx = json_dumps(x, JSON_ENCODE_ANY), *sy = json_dumps(y, JSON_ENCODE_ANY);
			sb_addf(why, "%s%s %s -> %s", n++ ? ", " : "", keys[i], sx, sy);
			free(sx);
			free(sy);
		}
	}
	json_decref(ja);
	json_decref(jb);
	return n > 0;
}

/* ---- which commits ---- */

/* n of the commits spread evenly over the list, its first and last kept */
static void keep_steps(struct strvec *hashes, long steps)
{
	if (steps <= 0 || (size_t)steps >= hashes->n)
		return;
	struct strvec kept = STRVEC_INIT;
	size_t n = hashes->n;
	for (long i = 0; i < steps; i++) {
		size_t at = steps == 1 ? n - 1 : (size_t)llround((double)i * (double)(n - 1) / (double)(steps - 1));
		if (!kept.n || strcmp(kept.v[kept.n - 1], hashes->v[at]))
			sv_push(&kept, hashes->v[at]);
	}
	sv_clear(hashes);
	*hashes = kept;
}

/*
 * The revisions of a file, one a line ('#' comments, blank lines skipped),
 * each resolved; a commit named again (its hash and a branch, two tags)
 * is kept once: git log gives a commit named twice once, and the commits'
 * records would no longer be read in the file's order
 */
static int hashes_from_file(const char *repo, const char *path, struct strvec *hashes, struct kerr *e)
{
	struct strbuf sb = STRBUF_INIT;
	if (read_file(path, &sb, e) < 0)
		return -1;
	struct strmap seen = STRMAP_INIT;
	int r = 0;
	long line = 0;
	for (char *p = sb.buf; r == 0 && p && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		line++;
		while (isspace((unsigned char)*p))
			p++;
		size_t n = strlen(p);
		while (n && isspace((unsigned char)p[n - 1]))
			p[--n] = '\0';
		if (n && *p != '#') {
			char *h = NULL;
			if (hgit_resolve(repo, p, &h, e) < 0)
				r = kerr_wrap(e, "%s:%ld", path, line);
			else if (strmap_find(&seen, h) < 0) {
				strmap_add(&seen, h);
				sv_push(hashes, h);
			}
			free(h);
		}
		p = nl ? nl + 1 : NULL;
	}
	strmap_clear(&seen);
	sb_release(&sb);
	return r;
}

/* the hash of the deepest commit this machine tracked, NULL: none */
static char *last_tracked(struct history *h, long machine)
{
	struct hist_run *runs;
	size_t n;
	char *hash = NULL;
	if (history_runs(h, machine, &runs, &n, NULL) < 0)
		return NULL;
	long cid = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(runs[i].kind, "track") && strcmp(runs[i].status, "running"))
			cid = runs[i].commit_id; /* runs come in depth order: the last is the deepest */
	history_runs_free(runs, n);
	struct hist_commit *c;
	size_t nc;
	if (cid && history_commits(h, &c, &nc, NULL) == 0) {
		for (size_t i = 0; i < nc; i++)
			if (c[i].id == cid)
				hash = xstrdup(c[i].hash);
		history_commits_free(c, nc);
	}
	return hash;
}

/* the meta name under which an unfinished --new track of the machine keeps where it started */
static char *new_from_name(long machine)
{
	return xasprintf("track_new_from %ld", machine);
}

/*
 * Where --new starts: where an earlier --new track of this machine that
 * did not finish its range started (it was interrupted, stopped by an
 * error or by --max-commits: with --order spread it measures the newest
 * commit second, and starting after that would leave the rest of its range
 * unmeasured for good), else after the newest commit the machine tracked;
 * NULL: neither
 */
static char *new_start(const struct track_opts *o, struct history *h, long machine)
{
	char *name = new_from_name(machine), *from = NULL, *hash = NULL;
	history_meta_get(h, name, &from);
	free(name);
	if (from) {
		/* a start the repository no longer has (history rewritten): after the newest tracked commit */
		struct kerr ignore = KERR_INIT;
		if (!history_hash_ok(from) || hgit_resolve(o->repo, from, &hash, &ignore) < 0) {
			kiln_warn("the --new track that began after %.12s did not finish, and the repository has no such "
				  "commit now: starting after the newest commit tracked", esc(ESC_TERM, from));
			free(from);
			from = NULL;
		}
		kerr_release(&ignore);
		free(hash);
	}
	return from ? from : last_tracked(h, machine);
}

/* the commits the options name, oldest first; *new_from: where --new starts (malloc'd), else NULL */
static int track_commits(const struct track_opts *o, struct history *h, long machine, struct strvec *hashes,
			 char **new_from, struct kerr *e)
{
	*new_from = NULL;
	if (o->hashes_file)
		return hashes_from_file(o->repo, o->hashes_file, hashes, e);
	const char *to = o->range ? o->range : "HEAD";
	char *from = NULL, *tip = NULL;
	const char *dots = o->range ? strstr(o->range, "..") : NULL;
	int r;
	if (dots && !o->new_only) {
		from = xstrndup(o->range, (size_t)(dots - o->range));
		tip = xstrdup(dots[2] ? dots + 2 : "HEAD");
	} else {
		tip = xstrdup(to);
		if (o->new_only && !(from = new_start(o, h, machine))) {
			free(tip);
			return kerr_setc(e, KEXIT_USAGE, "--new tracks what came after the newest commit this machine tracked, "
					 "and it has tracked none yet: give a range (A..B) first");
		}
		if (o->new_only)
			*new_from = xstrdup(from);
	}
	if (!dots && !o->new_only) {
		/* one revision: that commit */
		char *hash = NULL;
		r = hgit_resolve(o->repo, tip, &hash, e);
		if (r == 0)
			sv_push(hashes, hash);
		free(hash);
	} else {
		r = hgit_range(o->repo, from && *from ? from : NULL, tip, hashes, e);
	}
	free(from);
	free(tip);
	if (r == 0)
		keep_steps(hashes, o->steps);
	return r;
}

/*
 * The order the commits are measured in.  oldest: as the history goes.
 * spread: the ends first, then each gap halved in turn (the order of
 * --steps 2, 3, 5, 9...): a slow drift of the machine over the hours of a
 * long track then spreads over the series as noise instead of laying a
 * trend or a step along it, and an interrupted track has covered the range.
 */
void track_measure_order(size_t n, enum track_order order, size_t *idx)
{
	size_t k = 0;
	if (order == TRACK_OLDEST || n < 3) {
		for (size_t i = 0; i < n; i++)
			idx[i] = i;
		return;
	}
	idx[k++] = 0;
	idx[k++] = n - 1;
	/* breadth first over the gaps: a queue of [lo, hi] whose ends are measured */
	size_t *q = xmalloc((4 * n + 4) * sizeof(size_t)), head = 0, tail = 0; /* each midpoint adds two gaps */
	q[tail++] = 0, q[tail++] = n - 1;
	while (head < tail) {
		size_t lo = q[head++], hi = q[head++];
		if (hi - lo < 2)
			continue;
		size_t mid = lo + (hi - lo) / 2;
		idx[k++] = mid;
		q[tail++] = lo, q[tail++] = mid;
		q[tail++] = mid, q[tail++] = hi;
	}
	free(q);
}

/* ---- one commit ---- */

/* the work folder's paths may go into the config's text: only characters that need no quoting */
int track_plain_path(const char *p)
{
	for (; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("/._+-", *p))
			return 0;
	return 1;
}

/* the config's text with every {src} replaced by the checkout */
static char *config_for(const char *text, const char *src)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = text; *p;) {
		const char *m = strstr(p, "{src}");
		if (!m) {
			sb_adds(&sb, p);
			break;
		}
		sb_add(&sb, p, (size_t)(m - p));
		sb_adds(&sb, src);
		p = m + 5;
	}
	return sb_detach(&sb);
}

/* --benchmarks and --key: only the keys they name run */
static int restrict_keys(struct experiment *ex, const struct track_opts *o, struct kerr *e)
{
	if (!o->benchmarks.n && !o->keys.n)
		return 0;
	for (size_t b = 0; b < ex->nbenchs; b++)
		for (size_t v = 0; v < ex->nvms; v++) {
			struct ds_key k = { .bench = ex->benchs[b].name, .vm = ex->vms[v].name,
					    .variant = ex->vms[v].variant };
			int in = !o->benchmarks.n && !o->keys.n;
			for (size_t i = 0; i < o->benchmarks.n && !in; i++)
				in = star_match(o->benchmarks.v[i], k.bench);
			for (size_t i = 0; i < o->keys.n && !in; i++)
				in = ds_key_matches(o->keys.v[i], &k);
			if (in)
				sv_pushf(&ex->keys_only, "%s:%s:%s", k.bench, k.vm, k.variant);
		}
	if (!ex->keys_only.n)
		return kerr_setc(e, KEXIT_USAGE, "--benchmarks/--key match no key of %s", ex->path);
	return 0;
}

/* SHA-256 of the VMs' executables as built (each hashed, the hashes hashed), NULL when one is missing */
char *track_binary_hash(const struct experiment *ex)
{
	struct strbuf all = STRBUF_INIT;
	int ok = 1;
	for (size_t v = 0; v < ex->nvms && ok; v++) {
		if (ex->vms[v].missing || !ex->vms[v].resolved)
			continue;
		char h[65];
		ok = idc_sha256(ex->vms[v].resolved, h, NULL) == 0;
		sb_addf(&all, "%s %s\n", ex->vms[v].name, h);
	}
	char out[65];
	hash_hex(sb_str(&all), all.len, out);
	sb_release(&all);
	return ok ? xstrdup(out) : NULL;
}

/* the run of this commit left running by an interrupted track, else a new one; -1 error */
static long run_for(struct track_job *j, long cid, int *resumed, struct kerr *e)
{
	struct hist_run *runs;
	size_t n;
	*resumed = 0;
	if (history_runs(j->h, j->machine, &runs, &n, e) < 0)
		return -1;
	long id = 0;
	for (size_t i = 0; i < n; i++)
		if (runs[i].commit_id == cid && !strcmp(runs[i].kind, "track") && !strcmp(runs[i].status, "running"))
			id = runs[i].id;
	history_runs_free(runs, n);
	if (id) {
		*resumed = 1;
		return id;
	}
	return history_begin_run(j->h, cid, j->machine, "track", j->session, j->config_hash, e);
}

/* has this machine a finished track run of the commit? */
static int tracked(struct track_job *j, long cid)
{
	struct hist_run *runs;
	size_t n;
	int yes = 0;
	if (history_runs(j->h, j->machine, &runs, &n, NULL) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		yes |= runs[i].commit_id == cid && !strcmp(runs[i].kind, "track") && strcmp(runs[i].status, "running");
	history_runs_free(runs, n);
	return yes;
}

static void remove_results(const char *path)
{
	static const char *const suf[] = { "", "-wal", "-shm", "-journal" };
	for (size_t i = 0; i < ARRAY_SIZE(suf); i++) {
		char *p = xasprintf("%s%s", path, suf[i]);
		unlink(p);
		free(p);
	}
	char *log = store_sibling(path, ".kiln.log");
	unlink(log);
	free(log);
}

int track_experiment(const struct track_opts *o, const char *text, const char *src, struct experiment *ex,
		     struct kerr *e)
{
	char *t = config_for(text, src);
	memset(ex, 0, sizeof(*ex));
	int code = KEXIT_OK;
	if (config_parse(o->config, t, strlen(t), kiln_datadir(), CONFIG_CHECK_AFTER_BUILD, ex, e) < 0)
		code = e->code ? e->code : KEXIT_CONFIG;
	else if (restrict_keys(ex, o, e) < 0)
		code = KEXIT_USAGE;
	free(t);
	return code;
}

/* parse the config for the checkout src and run it into tc's results file; a KEXIT_* code */
int track_measure(struct track_job *j, struct track_commit *tc, const char *src, const struct track_pace *pace)
{
	struct experiment ex;
	int code = track_experiment(j->o, j->text, src, &ex, &tc->me);
	if (code == KEXIT_OK) {
		struct run_opts ro;
		memset(&ro, 0, sizeof(ro));
		ro.results = tc->results;
		ro.quiet = 1;
		ro.build_failed = &tc->build_failed;
		if (pace) {
			ro.order = ORDER_ROUNDS;
			ro.max_pexecs = pace->max_pexecs;
			ro.pending_left = pace->left;
		}
		int64_t t0 = mono_ns();
		code = run_experiment_ex(&ex, j->o->config, &ro, &tc->me);
		tc->took += (double)(mono_ns() - t0) / 1e9;
		if (!tc->build_failed) {
			free(tc->binary);
			tc->binary = track_binary_hash(&ex);
		}
	}
	config_free(&ex);
	return code;
}

int track_begin(struct track_job *j, const struct hist_commit *c, struct track_commit *tc, struct kerr *e)
{
	memset(tc, 0, sizeof(*tc));
	tc->me = (struct kerr)KERR_INIT;
	tc->c = c;
	long cid = history_put_commit(j->h, c, e);
	if (cid < 0)
		return -1;
	if (tracked(j, cid) && !j->o->repeat) {
		j->skipped++;
		return 0;
	}
	int resumed;
	if ((tc->rid = run_for(j, cid, &resumed, e)) < 0)
		return -1;
	tc->results = xasprintf("%s/%s-%ld.kiln.db", j->runs, c->hash, tc->rid);
	if (!resumed)
		remove_results(tc->results);
	return 1;
}

void track_commit_release(struct track_commit *tc)
{
	kerr_release(&tc->me);
	free(tc->binary);
	free(tc->results);
	memset(tc, 0, sizeof(*tc));
}

/* a failed build: recorded, the next commit goes on */
static int end_build_failed(struct track_job *j, struct track_commit *tc, struct kerr *e)
{
	j->failed++;
	if (!j->o->quiet)
		kiln_warn("%.12s: the build failed (recorded, skipped; the history keeps all it said): %.300s",
			  tc->c->hash, sb_str(&tc->me.msg));
	int r = history_end_run(j->h, tc->rid, "build-failed", tc->took, NULL, sb_str(&tc->me.msg), e) < 0 ? e->code : KEXIT_OK;
	remove_results(tc->results);
	return r;
}

/*
 * Measured, but not all of it: said now, or it reads as a whole commit the
 * morning after.  Its results file stays: the failed pexecs' output is there
 */
static void warn_partial(struct track_job *j, struct track_commit *tc, int code)
{
	j->partial++;
	if (j->o->quiet)
		return;
	size_t n = run_failed_pexecs(code, &tc->me);
	if (n)
		kiln_warn("%.12s: measured with errors: %zu pexec(s) failed (the others are recorded; `kiln status "
			  "--failures %s` says why)", tc->c->hash, n, tc->results);
	else
		kiln_warn("%.12s: measured with errors (the pexecs that ran are recorded; results kept in %s): %.300s",
			  tc->c->hash, tc->results, sb_str(&tc->me.msg));
}

/* the session failed before any pexec ran (a key's setup, say): failed, not measured with nothing */
static int end_nothing_ran(struct track_job *j, struct track_commit *tc, struct kerr *e)
{
	j->failed++;
	if (!j->o->quiet)
		kiln_warn("%.12s: the run failed before any pexec (recorded, skipped): %.300s", tc->c->hash,
			  sb_str(&tc->me.msg));
	return history_end_run(j->h, tc->rid, "failed", tc->took, NULL, sb_str(&tc->me.msg), e) < 0 ? e->code : KEXIT_OK;
}

/* done, some pexecs failed at worst: every finished pexec goes in */
static int end_measured(struct track_job *j, struct track_commit *tc, int code, struct kerr *e)
{
	if (history_fold(j->h, tc->rid, tc->results, &j->o->an, e) < 0)
		return e->code ? e->code : KEXIT_STORE;
	if (code != KEXIT_OK && history_run_pexecs(j->h, tc->rid) == 0)
		return end_nothing_ran(j, tc, e);
	if (history_end_run(j->h, tc->rid, "ok", tc->took, tc->binary, code == KEXIT_OK ? NULL : sb_str(&tc->me.msg), e) < 0)
		return e->code ? e->code : KEXIT_STORE;
	if (code != KEXIT_OK)
		warn_partial(j, tc, code);
	else if (!j->o->keep_results)
		remove_results(tc->results);
	j->built++;
	j->measured++;
	sv_push(&j->sum->hashes, tc->c->hash);
	j->spent_s += tc->took;
	return KEXIT_OK;
}

int track_end(struct track_job *j, struct track_commit *tc, int code, struct kerr *e)
{
	const char *hash = tc->c->hash;
	/*
	 * Stays running: the same track resumes it.  An interrupt that hit a
	 * session's child (the sanity check: Ctrl-C reaches the whole process
	 * group) makes the session fail, not stop: the commit is still
	 * interrupted, not done with what it had
	 */
	if (code == KEXIT_INTERRUPTED || exec_interrupted)
		return kerr_setc(e, KEXIT_INTERRUPTED, "interrupted at %.12s; the same `kiln track` resumes it", hash),
		       KEXIT_INTERRUPTED;
	if (tc->build_failed)
		return end_build_failed(j, tc, e);
	if (code == KEXIT_OK || (code == KEXIT_FAIL && file_exists(tc->results)))
		return end_measured(j, tc, code, e);
	if (code == KEXIT_CONFIG || code == KEXIT_USAGE || code == KEXIT_STORE || code == KEXIT_LOCKED) {
		/*
		 * the config, the machine or kiln's work folder, not the commit:
		 * every other commit would fail the same way, so the track stops,
		 * and this commit stays running (its error kept) for the same
		 * track to measure once the cause is gone, not recorded as failed
		 */
		kerr_setc(e, code, "%s", sb_str(&tc->me.msg));
		history_stop_run(j->h, tc->rid, sb_str(&tc->me.msg), NULL);
		return code;
	}
	j->failed++;
	if (!j->o->quiet)
		kiln_warn("%.12s: the run failed (recorded, skipped): %s", hash, sb_str(&tc->me.msg));
	return history_end_run(j->h, tc->rid, "failed", tc->took, NULL, sb_str(&tc->me.msg), e) < 0 ? e->code : KEXIT_OK;
}

/* one commit: checkout, build and run, fold; KEXIT_OK to go on (a failed build included), else stop */
static int track_one(struct track_job *j, const struct hist_commit *c, struct kerr *e)
{
	struct track_commit tc;
	int b = track_begin(j, c, &tc, e);
	if (b <= 0)
		return b < 0 ? e->code : KEXIT_OK;
	int code;
	if (hgit_checkout(j->o->repo, j->src, c->hash, &tc.me) < 0)
		code = KEXIT_STORE; /* the repository or the work folder: every commit would fail so */
	else
		code = track_measure(j, &tc, j->src, NULL);
	int r = track_end(j, &tc, code, e);
	track_commit_release(&tc);
	return r;
}

/* ---- the whole track ---- */

char *track_history_path(const struct track_opts *o)
{
	if (o->history)
		return abspath(o->history);
	size_t n = strlen(o->config);
	if (str_ends_with(o->config, ".yaml"))
		n -= 5;
	else if (str_ends_with(o->config, ".yml"))
		n -= 4;
	char *p = xasprintf("%.*s.history.db", (int)n, o->config);
	char *a = abspath(p);
	free(p);
	return a;
}

static int job_open(struct track_job *j, const struct track_opts *o, struct kerr *e)
{
	j->o = o;
	struct strbuf sb = STRBUF_INIT;
	if (read_file(o->config, &sb, e) < 0)
		return KEXIT_CONFIG;
	j->text = sb_detach(&sb);
	if (!strstr(j->text, "{src}"))
		kiln_warn("%s does not use {src}: every commit runs the same VM (docs/kiln-track.md)", o->config);
	hash_hex(j->text, strlen(j->text), j->config_hash);
	char *abs = track_history_path(o);
	j->work = xasprintf("%s.work", abs);
	j->src = path_join(j->work, "src");
	j->runs = path_join(j->work, "runs");
	int r = KEXIT_OK;
	if (!track_plain_path(j->src))
		r = (kerr_setc(e, KEXIT_USAGE, "%s: the checkout's path goes into the config as {src}: choose a history "
			      "path of letters, digits and / . _ + - only", j->src), KEXIT_USAGE);
	else if (mkdir_p(j->runs, 0755) < 0)
		r = (kerr_setc(e, KEXIT_STORE, "%s: %s", j->runs, strerror(errno)), KEXIT_STORE);
	else if (history_open(abs, 1, &j->h, e) < 0)
		r = e->code;
	free(abs);
	return r;
}

/* the history's config: the first track records it; a changed one is refused unless --force */
static int job_config(struct track_job *j, struct kerr *e)
{
	char *old = NULL;
	history_meta_get(j->h, "config_hash", &old);
	int r = KEXIT_OK;
	if (old && strcmp(old, j->config_hash) && !j->o->force)
		r = (kerr_setc(e, KEXIT_CONFIG, "%s: the config changed since this history began: series measured with "
			       "two configs are not one series (--force tracks on; docs/kiln-track.md)", j->o->config),
		     KEXIT_CONFIG);
	else if (history_meta_set(j->h, "config", j->text, e) < 0 ||
		 history_meta_set(j->h, "config_hash", j->config_hash, e) < 0)
		r = e->code;
	free(old);
	/* the clock of the figures: chosen by the first track, changed only by --reanalyse */
	char *clock = NULL;
	history_meta_get(j->h, "clock", &clock);
	if (r == KEXIT_OK && clock && j->o->clock && strcmp(clock, j->o->clock))
		r = (kerr_setc(e, KEXIT_USAGE, "%s: its figures are of the %s clock: `kiln track --reanalyse %s --clock %s` "
			      "makes them again", history_path(j->h), clock, history_path(j->h), j->o->clock), KEXIT_USAGE);
	else if (r == KEXIT_OK && !clock && history_meta_set(j->h, "clock", j->o->clock ? j->o->clock : "wall", e) < 0)
		r = e->code;
	free(clock);
	return r;
}

long track_machine(struct history *h, const char *machine, struct kerr *e)
{
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	const char *name = machine ? machine : host[0] ? host : "localhost";
	char *id = track_machine_identity(), *old = NULL;
	long mid = history_put_machine(h, name, id, &old, e);
	struct strbuf why = STRBUF_INIT;
	if (mid > 0 && old && track_identity_differs(old, id, &why))
		kiln_warn("machine '%s' is not the machine this history knows by that name (%s): its new results "
			  "are not one series with its old ones; give it another --machine name", esc(ESC_TERM, name),
			  sb_str(&why));
	sb_release(&why);
	free(id);
	free(old);
	return mid;
}

static int job_machine(struct track_job *j, struct kerr *e)
{
	j->machine = track_machine(j->h, j->o->machine, e);
	return j->machine > 0 ? KEXIT_OK : e->code;
}

void track_eta(struct strbuf *sb, double per, double units)
{
	if (!(per > 0))
		return;
	sb_adds(sb, "  ETA ");
	fmt_duration(sb, per * units);
}

static void progress_line(const struct track_job *j, size_t k, size_t n, const struct hist_commit *c)
{
	if (j->o->quiet)
		return;
	struct strbuf eta = STRBUF_INIT;
	track_eta(&eta, j->measured ? j->spent_s / (double)j->measured : 0, (double)(n - k));
	char *subj = history_short(c->subject, 60);
	fprintf(stderr, "kiln track: [%zu/%zu] %.12s %s%s\n", k + 1, n, c->hash, subj, sb_str(&eta));
	free(subj);
	sb_release(&eta);
}

static void window_line(const struct track_job *j, size_t k, size_t n, const struct hist_commit *cs, size_t len)
{
	if (j->o->quiet)
		return;
	struct strbuf eta = STRBUF_INIT;
	track_eta(&eta, j->measured ? j->spent_s / (double)j->measured : 0, (double)((n - k) * len));
	fprintf(stderr, "kiln track: [window %zu/%zu] %zu commits %.12s..%.12s, interleaved%s\n", k + 1, n, len,
		cs[0].hash, cs[len - 1].hash, sb_str(&eta));
	sb_release(&eta);
}

static int interrupted(struct kerr *e)
{
	return exec_interrupted ? (kerr_setc(e, KEXIT_INTERRUPTED, "interrupted; the same `kiln track` resumes"),
				   KEXIT_INTERRUPTED) : KEXIT_OK;
}

/*
 * Which of cs[0..n) this machine has tracked already (a finished track
 * run): skipped, unless --repeat (NULL then).  --max-commits counts the
 * others, so that the same command goes on where the last one stopped
 */
static unsigned char *tracked_already(struct track_job *j, const struct hist_commit *cs, size_t n)
{
	if (j->o->repeat)
		return NULL;
	unsigned char *done = xcalloc(n + 1, 1);
	struct hist_run *runs;
	size_t nr;
	if (history_runs(j->h, j->machine, &runs, &nr, NULL) < 0)
		return done;
	long *ids = xcalloc(nr + 1, sizeof(long));
	size_t ni = 0;
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(runs[i].kind, "track") && strcmp(runs[i].status, "running"))
			ids[ni++] = runs[i].commit_id;
	history_runs_free(runs, nr);
	for (size_t i = 0; i < n && ni; i++) {
		long cid = history_commit_id(j->h, cs[i].hash);
		for (size_t k = 0; cid > 0 && k < ni && !done[i]; k++)
			done[i] = ids[k] == cid;
	}
	free(ids);
	return done;
}

/* the commits cs[0..n) one at a time, in the order of --order; --max-commits of those not tracked yet */
static int measure_each(struct track_job *j, const struct hist_commit *cs, size_t n, struct kerr *e)
{
	size_t *idx = xcalloc(n + 1, sizeof(size_t));
	track_measure_order(n, j->o->order, idx);
	unsigned char *done = tracked_already(j, cs, n);
	size_t todo = 0;
	for (size_t i = 0; i < n; i++)
		todo += !done || !done[i];
	j->skipped += n - todo;
	size_t m = j->o->max_commits > 0 && (size_t)j->o->max_commits < todo ? (size_t)j->o->max_commits : todo;
	j->cut = m < todo;
	int code = KEXIT_OK;
	for (size_t i = 0, k = 0; code == KEXIT_OK && i < n && k < m; i++) {
		if (done && done[idx[i]])
			continue;
		if ((code = interrupted(e)) == KEXIT_OK) {
			progress_line(j, k++, m, &cs[idx[i]]);
			code = track_one(j, &cs[idx[i]], e);
		}
	}
	free(done);
	free(idx);
	return code;
}

/*
 * --interleave W: windows of W consecutive commits (the last may be
 * shorter), the windows in the order of --order, each measured in rounds
 * (history-window.c); --max-commits counts the commits not tracked yet,
 * rounded up to whole windows; a window tracked whole is skipped
 */
static int measure_windows(struct track_job *j, const struct hist_commit *cs, size_t n, struct kerr *e)
{
	size_t w = j->o->interleave == TRACK_INTERLEAVE_ALL || (size_t)j->o->interleave > n ? n : (size_t)j->o->interleave;
	if (!w)
		return KEXIT_OK;
	size_t nw = (n + w - 1) / w;
	size_t *idx = xcalloc(nw + 1, sizeof(size_t)), *todo = xcalloc(nw + 1, sizeof(size_t));
	track_measure_order(nw, j->o->order, idx);
	unsigned char *done = tracked_already(j, cs, n);
	for (size_t i = 0; i < n; i++)
		todo[i / w] += !done || !done[i];
	/* the windows to measure now: those with a commit to measure, until --max-commits of them are begun */
	size_t m = 0, begun = 0;
	for (size_t k = 0; k < nw; k++) {
		if (!todo[k])
			j->skipped += k + 1 < nw ? w : n - k * w;
		if (todo[idx[k]] && (j->o->max_commits <= 0 || begun < (size_t)j->o->max_commits))
			begun += todo[idx[k]], m++;
		else if (todo[idx[k]])
			j->cut = 1;
	}
	int code = KEXIT_OK;
	for (size_t k = 0, q = 0; code == KEXIT_OK && k < nw && q < m; k++) {
		size_t at = idx[k] * w, len = at + w <= n ? w : n - at;
		if (!todo[idx[k]])
			continue;
		if ((code = interrupted(e)) == KEXIT_OK) {
			window_line(j, q++, m, &cs[at], len);
			code = track_window(j, &cs[at], len, e);
		}
	}
	free(done);
	free(todo);
	free(idx);
	return code;
}

int track_run(const struct track_opts *o, struct track_summary *sum, struct kerr *e)
{
	memset(sum, 0, sizeof(*sum));
	sum->hashes = (struct strvec)STRVEC_INIT;
	struct track_job j;
	memset(&j, 0, sizeof(j));
	j.sum = sum;
	sum->history = track_history_path(o);
	int code = job_open(&j, o, e);
	if (code == KEXIT_OK)
		code = job_config(&j, e);
	if (code == KEXIT_OK)
		code = job_machine(&j, e);
	struct strvec hashes = STRVEC_INIT;
	struct hist_commit *cs = NULL;
	char *new_from = NULL, *new_name = new_from_name(j.machine);
	if (code == KEXIT_OK && (track_commits(o, j.h, j.machine, &hashes, &new_from, e) < 0 ||
				 hgit_info(o->repo, &hashes, &cs, e) < 0))
		code = e->code ? e->code : KEXIT_FAIL;
	/* --new: where it started, kept until its whole range is done, for the same command to go on from (new_start) */
	if (code == KEXIT_OK && new_from && history_meta_set(j.h, new_name, new_from, e) < 0)
		code = e->code ? e->code : KEXIT_STORE;
	if (code == KEXIT_OK)
		code = o->interleave > 1 || o->interleave == TRACK_INTERLEAVE_ALL ? measure_windows(&j, cs, hashes.n, e)
										   : measure_each(&j, cs, hashes.n, e);
	if (code == KEXIT_OK && new_from && !j.cut && history_meta_del(j.h, new_name, e) < 0)
		code = e->code ? e->code : KEXIT_STORE;
	free(new_from);
	free(new_name);
	sum->commits = hashes.n;
	sum->measured = j.measured;
	sum->failed = j.failed;
	sum->partial = j.partial;
	sum->skipped = j.skipped;
	if (cs)
		for (size_t i = 0; i < hashes.n; i++)
			hgit_commit_release(&cs[i]);
	free(cs);
	sv_clear(&hashes);
	history_close(j.h);
	if (code == KEXIT_OK && !o->keep_results)
		rmdir(j.runs);
	free(j.work);
	free(j.src);
	free(j.runs);
	free(j.text);
	return code;
}
