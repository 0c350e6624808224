/*
 * cluster-status.c - the cluster part of `kiln status` (cluster.h): per
 * task of the last round, its node, Slurm's state for it, its shard's
 * progress and ETA, and why it did not run or stopped; overall, the pexecs
 * done (merged or still in shards) and the time left.
 *
 * A task's progress is read from its shard, which its kiln commits pexec by
 * pexec; Slurm is asked only for what the shard cannot know (pending, why,
 * the node lost).  The shard's own record (meta task_*) outlives Slurm's
 * memory of the job, which without accounting is MinJobAge (minutes).
 */
#include "cluster.h"

#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shard.h"
#include "slurm.h"

/* text from a shard or from Slurm, as a JSON string (valid UTF-8) */
static json_t *jtext(const char *s)
{
	return json_string(esc(ESC_JSON, s));
}

static long count(struct store *st, const char *q, const char *bind)
{
	sqlite3_stmt *s;
	long n = 0;
	if (sqlite3_prepare_v2(store_db(st), q, -1, &s, NULL) != SQLITE_OK)
		return 0;
	if (bind)
		sqlite3_bind_text(s, 1, bind, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

/* the last line of what Slurm's task wrote (its .out file): why a task that never ran kiln failed */
static char *last_line(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char buf[2048];
	off_t size = lseek(fd, 0, SEEK_END);
	off_t from = size > (off_t)sizeof(buf) - 1 ? size - (off_t)sizeof(buf) + 1 : 0;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, from);
	close(fd);
	if (n <= 0)
		return NULL;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	char *start = strrchr(buf, '\n');
	start = start ? start + 1 : buf;
	return *start ? xstrdup(start) : NULL;
}

static const struct slurm_task *find_task(const struct slurm_task *t, size_t n, long task)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].task == task)
			return &t[i];
	return NULL;
}

/* why the task is not running, or what is left of it, for the user: NULL when there is nothing to say */
static char *task_note(const struct slurm_task *sl, const struct shard_info *si, long pending, const char *config,
		       const char *out)
{
	const char *state = sl ? sl->state : "";
	if (sl && slurm_state_live(state)) {
		if (!strcmp(state, "PENDING") && strcmp(sl->reason, "None"))
			return xasprintf("waiting: %s", sl->reason);
		return NULL;
	}
	struct strbuf sb = STRBUF_INIT;
	if (si->error && *si->error) {
		const char *nl = strchr(si->error, '\n');
		sb_add(&sb, si->error, nl ? (size_t)(nl - si->error) : strlen(si->error));
	} else if (!si->started) {
		char *tail = last_line(out);
		sb_addf(&sb, "kiln never started on the node%s%s", tail ? ": " : "", tail ? tail : "");
		free(tail);
	} else if (!si->ended) {
		int why = sl && *sl->reason && strcmp(sl->reason, "None"); /* Slurm's "None": no reason */
		sb_addf(&sb, "the task ended without kiln recording its end (%s%s%s)", *state ? state : "killed",
			why ? ": " : "", why ? sl->reason : "");
	}
	if (pending > 0)
		sb_addf(&sb, "%s%ld pexec(s) left pending: `kiln run %s --slurm` gives them out again", sb.len ? "; " : "",
			pending, config);
	return sb.len ? sb_detach(&sb) : NULL;
}

/* the pexecs a shard finished that the main file does not hold yet */
static long unmerged(struct store *main, const char *name, const struct shard_info *si)
{
	long merged = count(main, "SELECT COUNT(*) FROM cluster_assign WHERE shard=?1 AND merged != 0", name);
	long fin = si->n[PX_OK] + si->n[PX_FAILED] + si->n[PX_TIMEOUT] + si->n[PX_TAINTED];
	return fin > merged ? fin - merged : 0;
}

static json_t *task_json(struct store *main, long round, long t, const struct slurm_task *sl, const char *config,
			 double mean, double *eta_max, long *extra)
{
	const char *results = store_path(main);
	char *name = xasprintf("r%ld-t%ld", round, t);
	char *path = shard_path(results, name);
	char *dir = shard_dir(results);
	char *out = xasprintf("%s/%s.out", dir, name);
	struct shard_info si;
	shard_read(path, &si);
	long fin = si.n[PX_OK] + si.n[PX_FAILED] + si.n[PX_TIMEOUT] + si.n[PX_TAINTED];
	long pending = si.n[PX_PENDING] + si.n[PX_RUNNING];
	double own = fin ? si.seconds / (double)fin : mean;
	int live = sl && slurm_state_live(sl->state);
	double eta = live && own > 0 ? own * (double)pending : NAN;
	if (isfinite(eta) && eta > *eta_max)
		*eta_max = eta;
	*extra += unmerged(main, name, &si);
	json_t *o = json_object();
	json_object_set_new(o, "task", json_integer(t));
	json_object_set_new(o, "shard", jtext(name));
	json_object_set_new(o, "node", si.machine ? jtext(si.machine)
					   : sl && *sl->node ? jtext(sl->node) : json_null());
	json_object_set_new(o, "state", sl ? jtext(sl->state) : json_null());
	json_object_set_new(o, "reason", sl && *sl->reason ? jtext(sl->reason) : json_null());
	json_object_set_new(o, "exit", sl && *sl->exit ? jtext(sl->exit) : json_null());
	json_object_set_new(o, "pexecs", json_integer(si.total));
	json_object_set_new(o, "done", json_integer(fin));
	json_object_set_new(o, "ok", json_integer(si.n[PX_OK]));
	json_object_set_new(o, "failed", json_integer(si.n[PX_FAILED] + si.n[PX_TIMEOUT]));
	json_object_set_new(o, "tainted", json_integer(si.n[PX_TAINTED]));
	json_object_set_new(o, "pending", json_integer(pending));
	json_object_set_new(o, "eta_s", isfinite(eta) ? json_real(eta) : json_null());
	json_object_set_new(o, "kiln_exit", si.exit >= 0 ? json_integer(si.exit) : json_null());
	json_object_set_new(o, "error", si.error && *si.error ? jtext(si.error) : json_null());
	if (!si.readable)
		json_object_set_new(o, "unreadable", jtext(si.why ? si.why : "?"));
	char *note = task_note(sl, &si, pending, config, out);
	json_object_set_new(o, "note", note ? jtext(note) : json_null());
	free(note);
	shard_info_free(&si);
	free(name);
	free(path);
	free(dir);
	free(out);
	return o;
}

/* pexecs finished in shards of earlier rounds that no merge has folded in yet */
static long older_unmerged(struct store *main, long round)
{
	sqlite3_stmt *q;
	long n = 0;
	if (sqlite3_prepare_v2(store_db(main), "SELECT DISTINCT a.shard FROM cluster_assign a JOIN cluster_shards s ON"
			       " s.name = a.shard WHERE a.merged = 0 AND s.round < ?1", -1, &q, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(q, 1, round);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(q, 0);
		char *path = shard_path(store_path(main), name);
		struct shard_info si;
		shard_read(path, &si);
		n += unmerged(main, name, &si);
		shard_info_free(&si);
		free(path);
	}
	sqlite3_finalize(q);
	return n;
}

/* Slurm's view of a job's tasks; a note when it cannot be had */
static void job_tasks(const char *job, struct slurm_task **t, size_t *n, json_t *o)
{
	*t = NULL;
	*n = 0;
	struct kerr e = KERR_INIT;
	if (job && slurm_tasks(job, t, n, &e) < 0)
		json_object_set_new(o, "slurm_error", jtext(sb_str(&e.msg)));
	kerr_release(&e);
}

json_t *cluster_status(struct store *main)
{
	if (!shard_is_cluster(main))
		return NULL;
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(store_db(main), "SELECT round, tasks, job, merge_job, submitted FROM cluster_rounds"
			       " ORDER BY round DESC LIMIT 1", -1, &q, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_finalize(q);
		return NULL;
	}
	long round = (long)sqlite3_column_int64(q, 0), tasks = (long)sqlite3_column_int64(q, 1);
	char *job = sqlite3_column_text(q, 2) ? xstrdup((const char *)sqlite3_column_text(q, 2)) : NULL;
	char *mjob = sqlite3_column_text(q, 3) ? xstrdup((const char *)sqlite3_column_text(q, 3)) : NULL;
	json_t *o = json_pack("{s:I,s:I,s:o,s:o,s:s}", "round", (json_int_t)round, "tasks", (json_int_t)tasks, "job",
			      job ? jtext(job) : json_null(), "merge_job", mjob ? jtext(mjob) : json_null(),
			      "submitted", sqlite3_column_text(q, 4) ? (const char *)sqlite3_column_text(q, 4) : "");
	sqlite3_finalize(q);
	char *config = NULL;
	store_meta_get(main, "config_path", &config);
	long total = count(main, "SELECT COUNT(*) FROM pexecs", NULL);
	long merged = count(main, "SELECT COUNT(*) FROM pexecs WHERE status IN ('ok','failed','timeout','tainted')", NULL);
	double secs = 0;
	if (sqlite3_prepare_v2(store_db(main), "SELECT TOTAL(duration_s) FROM pexecs", -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW)
			secs = sqlite3_column_double(q, 0);
		sqlite3_finalize(q);
	}
	struct slurm_task *st, *mt;
	size_t nst, nmt;
	job_tasks(job, &st, &nst, o);
	job_tasks(mjob, &mt, &nmt, o);
	json_object_set_new(o, "merge_state", nmt ? jtext(mt[0].state) : json_null());
	double eta = 0;
	long extra = older_unmerged(main, round);
	json_t *ta = json_array();
	for (long t = 0; t < tasks; t++)
		json_array_append_new(ta, task_json(main, round, t, find_task(st, nst, t), config ? config : "CONFIG",
						    merged ? secs / (double)merged : 0, &eta, &extra));
	json_object_set_new(o, "task_list", ta);
	json_object_set_new(o, "pexecs", json_integer(total));
	json_object_set_new(o, "merged", json_integer(merged));
	json_object_set_new(o, "finished", json_integer(merged + extra));
	json_object_set_new(o, "remaining", json_integer(total - merged - extra));
	json_object_set_new(o, "eta_s", total - merged - extra > 0 && eta > 0 ? json_real(eta) : json_null());
	free(st);
	free(mt);
	free(job);
	free(mjob);
	free(config);
	return o;
}

static const char *jstr(const json_t *o, const char *k, const char *dflt)
{
	const json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : dflt;
}

static long jint(const json_t *o, const char *k)
{
	return (long)json_integer_value(json_object_get(o, k));
}

static void eta_text(const json_t *v, char *buf, size_t n)
{
	if (!json_is_number(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.0fs", json_number_value(v));
}

void cluster_status_print(FILE *f, const json_t *cs)
{
	fprintf(f, "\ncluster: round %ld, job %s (%ld task(s)), submitted %s; merge job %s %s\n", jint(cs, "round"),
		esc(ESC_TERM, jstr(cs, "job", "?")), jint(cs, "tasks"), esc(ESC_TERM, jstr(cs, "submitted", "?")),
		esc(ESC_TERM, jstr(cs, "merge_job", "-")), esc(ESC_TERM, jstr(cs, "merge_state", "")));
	if (json_object_get(cs, "slurm_error"))
		fprintf(f, "Slurm did not answer: %s\n", esc(ESC_TERM, jstr(cs, "slurm_error", "")));
	fprintf(f, "%-5s %-12s %-11s %9s %6s %7s %6s  %s\n", "task", "node", "state", "done", "failed", "pending", "ETA",
		"note");
	size_t i;
	const json_t *t;
	json_array_foreach(json_object_get(cs, "task_list"), i, t) {
		char done[32], eta[32];
		snprintf(done, sizeof(done), "%ld/%ld", jint(t, "done"), jint(t, "pexecs"));
		eta_text(json_object_get(t, "eta_s"), eta, sizeof(eta));
		fprintf(f, "%-5ld %-12s %-11s %9s %6ld %7ld %6s  %s\n", jint(t, "task"), esc(ESC_TERM, jstr(t, "node", "-")),
			esc(ESC_TERM, jstr(t, "state", "?")), done, jint(t, "failed"), jint(t, "pending"), eta,
			esc(ESC_TERM, jstr(t, "unreadable", jstr(t, "note", ""))));
	}
	char eta[32];
	eta_text(json_object_get(cs, "eta_s"), eta, sizeof(eta));
	fprintf(f, "overall: %ld of %ld pexecs done (%ld merged into the results), ETA %s\n", jint(cs, "finished"),
		jint(cs, "pexecs"), jint(cs, "merged"), eta);
}
