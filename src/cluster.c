/*
 * cluster.c - submitting an experiment to Slurm and running its tasks
 * (see cluster.h; the status part is cluster-status.c).
 *
 * Submission takes the results file's lock for its whole length, so no
 * local `kiln run` and no other submission can start meanwhile; it refuses
 * while an earlier round's job is still in the queue, so that a pexec is
 * never out on two nodes at once.  The job script is two lines kiln reads
 * back in `kiln task`; everything a task needs to know beyond its array
 * index is in its shard.
 */
#include "cluster.h"

#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "merge.h"
#include "paths.h"
#include "shard.h"
#include "slurm.h"

/* ---- the kiln build every node must run ---- */

static int file_hash(const char *path, char out[65])
{
	struct strbuf sb = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	int r = read_file(path, &sb, &e);
	if (r == 0)
		hash_hex(sb.buf, sb.len, out);
	sb_release(&sb);
	kerr_release(&e);
	return r;
}

/* every file under root/rel (runners, their helpers), but not what running them leaves (__pycache__) */
static void add_tree(json_t *files, const char *root, const char *rel)
{
	char *dir = path_join(root, rel);
	DIR *d = opendir(dir);
	struct strvec names = STRVEC_INIT;
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, "__pycache__") && !str_ends_with(de->d_name, ".pyc"))
			sv_push(&names, de->d_name);
	if (d)
		closedir(d);
	if (names.n)
		sv_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		char *sub = path_join(rel, names.v[i]);
		char *full = path_join(root, sub);
		char h[65];
		DIR *isdir = opendir(full);
		if (isdir) {
			closedir(isdir);
			add_tree(files, root, sub);
		} else if (file_hash(full, h) == 0) {
			json_object_set_new(files, sub, json_string(h));
		}
		free(sub);
		free(full);
	}
	sv_clear(&names);
	free(dir);
}

/*
 * What must be the same on every node, as JSON: the kiln binary (its
 * plugins' parsers are inside), the C runner and the plugins' runners.
 */
static char *build_manifest(struct kerr *e)
{
	json_t *files = json_object();
	char h[65];
	if (file_hash("/proc/self/exe", h) < 0) {
		json_decref(files);
		kerr_set(e, "cannot read kiln's own executable (/proc/self/exe)");
		return NULL;
	}
	json_object_set_new(files, "kiln", json_string(h));
	char *runner = path_join(kiln_libexecdir(), "kiln-runner-c");
	if (file_hash(runner, h) == 0)
		json_object_set_new(files, "kiln-runner-c", json_string(h));
	free(runner);
	add_tree(files, kiln_datadir(), "plugins");
	json_t *m = json_pack("{s:s,s:o}", "kiln_version", KILN_VERSION, "files", files);
	char *txt = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(m);
	return txt;
}

/* the files whose hashes differ between two manifests, named in diff (at most a few) */
static size_t build_differences(const char *want, const char *have, struct strbuf *diff)
{
	json_t *w = json_loads(want ? want : "", 0, NULL), *h = json_loads(have, 0, NULL);
	json_t *wf = json_object_get(w, "files"), *hf = json_object_get(h, "files");
	size_t n = 0;
	const char *name;
	json_t *v;
	if (!json_is_object(wf)) {
		sb_adds(diff, "the shard names no build");
		n = 1;
	}
	json_object_foreach(wf, name, v) {
		json_t *o = json_object_get(hf, name);
		if (o && json_equal(o, v))
			continue;
		if (n++ < 5)
			sb_addf(diff, "%s%s %s", n > 1 ? "; " : "", name,
				o ? "differs" : "is missing on this node");
	}
	json_object_foreach(hf, name, v)
		if (!json_object_get(wf, name) && n++ < 5)
			sb_addf(diff, "%s%s is only on this node", n > 1 ? "; " : "", name);
	if (n > 5)
		sb_addf(diff, "; %zu more", n - 5);
	json_decref(w);
	json_decref(h);
	return n;
}

/* ---- submission ---- */

/* only what a job name may hold */
static char *job_name(const char *prefix, const char *name)
{
	char *s = xasprintf("%s%s", prefix, name);
	for (char *p = s; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9') && !strchr("._-:", *p))
			*p = '_';
	return s;
}

/* the job script: kiln is its interpreter, so no shell ever reads it */
static int write_job(const char *path, const char *role, const char *results, const char *config, long round,
		     struct kerr *e)
{
	char exe[PATH_MAX];
	if (!kiln_self_path(exe, sizeof(exe)))
		return kerr_set(e, "cannot find kiln's own path (/proc/self/exe)");
	if (strpbrk(exe, " \t\n") || strlen(exe) > 200)
		return kerr_set(e, "kiln's path '%s' has a space or is longer than 200 bytes: Slurm's job script "
			       "cannot name it as its interpreter", exe);
	char *text = xasprintf("#!%s task\n"
			       "# A kiln cluster task, written by `kiln run --slurm`: Slurm runs it with kiln, which\n"
			       "# reads the lines below (no shell is involved).\n"
			       "kiln-task 1\nrole %s\nresults %s\nconfig %s\nround %ld\n",
			       exe, role, results, config, round);
	int r = write_file(path, text, strlen(text), e);
	free(text);
	return r;
}

/* is any earlier round's job still in the queue? Then nothing may be given out again */
static int rounds_idle(struct store *st, struct kerr *e)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(store_db(st), "SELECT round, job FROM cluster_rounds WHERE job IS NOT NULL ORDER BY round",
			       -1, &q, NULL) != SQLITE_OK)
		return kerr_setc(e, KEXIT_STORE, "%s: %s", store_path(st), sqlite3_errmsg(store_db(st)));
	int r = 0;
	while (r == 0 && sqlite3_step(q) == SQLITE_ROW) {
		const char *job = (const char *)sqlite3_column_text(q, 1);
		struct slurm_task *t;
		size_t n;
		if (slurm_tasks(job, &t, &n, e) < 0) {
			r = kerr_wrap(e, "asking Slurm about job %s of round %lld", job, (long long)sqlite3_column_int64(q, 0));
			break;
		}
		for (size_t i = 0; i < n && r == 0; i++)
			if (slurm_state_live(t[i].state))
				r = kerr_setc(e, KEXIT_LOCKED, "round %lld of %s is still in the queue (job %s, task %ld %s): "
					      "wait for it to end, or `scancel %s` first",
					      (long long)sqlite3_column_int64(q, 0), store_path(st), job, t[i].task, t[i].state, job);
		free(t);
	}
	sqlite3_finalize(q);
	return r;
}

/* merge what earlier rounds left, and say what could not be merged */
static int merge_before(struct store *st, int quiet, struct kerr *e)
{
	if (!shard_is_cluster(st))
		return 0;
	struct merge_result mr;
	if (merge_shards(st, NULL, &mr, e) < 0)
		return -1;
	long merged = 0;
	for (size_t i = 0; i < mr.n; i++) {
		merged += mr.v[i].merged;
		if (mr.v[i].refused && file_exists(mr.v[i].path))
			kiln_warn("shard %s not merged: %s; its pexecs are given out again", mr.v[i].name, mr.v[i].why);
	}
	if (merged && !quiet)
		kiln_note("merged %ld pexec(s) from earlier rounds' shards", merged);
	merge_result_free(&mr);
	return 0;
}

/*
 * Each shard was made of the config as it was, and a shard of another
 * config is refused at the merge: a config stored while a round is out
 * would have everything the round measures left out.  So a changed config
 * waits for the round, and what the ended rounds left is merged first.
 */
int cluster_before_config_change(struct store *st, int quiet, struct kerr *e)
{
	if (!shard_is_cluster(st))
		return 0;
	struct kerr qe = KERR_INIT;
	if (rounds_idle(st, &qe) < 0) {
		if (qe.code == KEXIT_LOCKED) {
			kerr_setc(e, KEXIT_LOCKED, "the config changed, but %s: a changed config is stored only once "
				  "the round has ended and its shards are merged (each shard is of the config it was made "
				  "of: one of another config is refused, all it measured left out); the file is as it was",
				  sb_str(&qe.msg));
			kerr_release(&qe);
			return -1;
		}
		kiln_warn("%s: cannot tell whether a cluster round is still out (%s); if one is, its shards will be "
			  "refused as another config's once this config is stored", store_path(st), sb_str(&qe.msg));
	}
	kerr_release(&qe);
	return merge_before(st, quiet, e);
}

struct round {
	long round, tasks;
	char *dir, *results, *config;
	long *ids;        /* pending pexec ids, schedule order */
	size_t n;
};

/* task t's share, round-robin over the schedule: each shard keeps the stored order and gets a mix of keys */
static size_t task_share(const struct round *rd, long t, long *mine)
{
	size_t m = 0;
	for (size_t i = (size_t)t; i < rd->n; i += (size_t)rd->tasks)
		mine[m++] = rd->ids[i];
	return m;
}

static int make_shards(struct store *st, const struct round *rd, const char *sched_hash, const char *build,
		       long *made, struct kerr *e)
{
	long *mine = xmalloc((rd->n / (size_t)rd->tasks + 1) * sizeof(long));
	int r = 0;
	for (long t = 0; t < rd->tasks && r == 0; t++) {
		size_t m = task_share(rd, t, mine);
		char *name = xasprintf("r%ld-t%ld", rd->round, t);
		char *path = shard_path(rd->results, name);
		r = shard_create(st, path, name, mine, m, sched_hash, build, e);
		*made += r == 0;
		free(name);
		free(path);
	}
	free(mine);
	return r;
}

/* which pexecs each shard was given, in the main file (inside the round's transaction) */
static int record_shards(struct store *st, const struct round *rd)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *qs = NULL, *qa = NULL;
	long *mine = xmalloc((rd->n / (size_t)rd->tasks + 1) * sizeof(long));
	int r = sqlite3_prepare_v2(db, "INSERT INTO cluster_shards(name, round, task) VALUES(?,?,?)", -1, &qs, NULL) ==
				SQLITE_OK &&
			sqlite3_prepare_v2(db, "INSERT INTO cluster_assign(shard, pexec_id) VALUES(?,?)", -1, &qa, NULL) ==
				SQLITE_OK
		? 0 : -1;
	for (long t = 0; t < rd->tasks && r == 0; t++) {
		size_t m = task_share(rd, t, mine);
		char *name = xasprintf("r%ld-t%ld", rd->round, t);
		sqlite3_bind_text(qs, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(qs, 2, rd->round);
		sqlite3_bind_int64(qs, 3, t);
		r = sqlite3_step(qs) == SQLITE_DONE ? 0 : -1;
		sqlite3_reset(qs);
		for (size_t i = 0; i < m && r == 0; i++) {
			sqlite3_bind_text(qa, 1, name, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(qa, 2, mine[i]);
			r = sqlite3_step(qa) == SQLITE_DONE ? 0 : -1;
			sqlite3_reset(qa);
		}
		free(name);
	}
	sqlite3_finalize(qs);
	sqlite3_finalize(qa);
	free(mine);
	return r;
}

/* what both jobs get: name, output in the shards' folder, the user's sbatch arguments, the script */
static void job_args(struct strvec *a, const char *prefix, const char *expname, const char *output,
		     const struct round *rd, const struct cluster_opts *co, const char *script)
{
	char *name = job_name(prefix, expname);
	sv_pushf(a, "--job-name=%s", name);
	free(name);
	sv_pushf(a, "--output=%s/%s", rd->dir, output);
	sv_pushf(a, "--chdir=%s", rd->dir);
	for (size_t i = 0; co->sbatch && i < co->sbatch->n; i++)
		sv_push(a, co->sbatch->v[i]);
	sv_push(a, script);
}

/* the array (one task per shard, exclusive nodes) and the job that merges after it */
static int submit_jobs(struct store *st, const struct round *rd, const struct cluster_opts *co, const char *expname,
		       char **job, char **merge_job, struct kerr *e)
{
	char *script = xasprintf("%s/r%ld.job", rd->dir, rd->round);
	char *mscript = xasprintf("%s/r%ld-merge.job", rd->dir, rd->round);
	int r = -1;
	if (write_job(script, "array", rd->results, rd->config, rd->round, e) < 0 ||
	    write_job(mscript, "merge", rd->results, rd->config, rd->round, e) < 0)
		goto out;
	struct strvec a = STRVEC_INIT;
	sv_pushf(&a, "--array=0-%ld", rd->tasks - 1);
	sv_push(&a, "--exclusive");
	sv_push(&a, "--no-requeue");
	char *out = xasprintf("r%ld-t%%a.out", rd->round);
	job_args(&a, "kiln:", expname, out, rd, co, script);
	free(out);
	r = slurm_sbatch(&a, job, e);
	sv_clear(&a);
	if (r < 0)
		goto out;
	sv_pushf(&a, "--dependency=afterany:%s", *job);
	sv_push(&a, "--kill-on-invalid-dep=yes");
	sv_push(&a, "--ntasks=1");
	out = xasprintf("r%ld-merge.out", rd->round);
	job_args(&a, "kiln-merge:", expname, out, rd, co, mscript);
	free(out);
	struct kerr me = KERR_INIT;
	if (slurm_sbatch(&a, merge_job, &me) < 0)
		kiln_warn("the merge job was not submitted (%s): run `kiln merge %s` when job %s ends", sb_str(&me.msg),
			  rd->results, *job);
	kerr_release(&me);
	sv_clear(&a);
	const char *q = "UPDATE cluster_rounds SET job=?1, merge_job=?2 WHERE round=?3";
	sqlite3_stmt *u;
	if (sqlite3_prepare_v2(store_db(st), q, -1, &u, NULL) == SQLITE_OK) {
		sqlite3_bind_text(u, 1, *job, -1, SQLITE_STATIC);
		if (*merge_job)
			sqlite3_bind_text(u, 2, *merge_job, -1, SQLITE_STATIC);
		sqlite3_bind_int64(u, 3, rd->round);
		if (sqlite3_step(u) != SQLITE_DONE)
			kiln_warn("%s: job %s not recorded: %s", rd->results, *job, sqlite3_errmsg(store_db(st)));
		sqlite3_finalize(u);
	}
out:
	free(script);
	free(mscript);
	return r;
}

/* the shard files of the round's first n tasks, which this submission made */
static void remove_shards(const struct round *rd, long n)
{
	for (long t = 0; t < n; t++) {
		char *name = xasprintf("r%ld-t%ld", rd->round, t);
		char *path = shard_path(rd->results, name);
		unlink(path);
		free(path);
		free(name);
	}
}

/* the round's shards, then its record in the main file in one transaction; no shard is left behind on failure */
static int record_round(struct store *st, struct round *rd, const struct cluster_opts *co, const char *sched_hash,
			const char *build, struct kerr *e)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	rd->round = 1;
	if (sqlite3_prepare_v2(db, "SELECT COALESCE(MAX(round), 0) + 1 FROM cluster_rounds", -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW)
			rd->round = (long)sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
	}
	char ts[32];
	iso_time(wall_ns(), ts, sizeof(ts));
	json_t *args = json_array();
	for (size_t i = 0; co->sbatch && i < co->sbatch->n; i++)
		json_array_append_new(args, json_string(co->sbatch->v[i]));
	char *atxt = json_dumps(args, JSON_COMPACT);
	json_decref(args);
	long made = 0;
	int r = make_shards(st, rd, sched_hash, build, &made, e);
	if (r == 0) {
		r = -1;
		if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK &&
		    sqlite3_prepare_v2(db, "INSERT INTO cluster_rounds(round, tasks, submitted, sbatch) VALUES(?,?,?,?)", -1,
				       &q, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(q, 1, rd->round);
			sqlite3_bind_int64(q, 2, rd->tasks);
			sqlite3_bind_text(q, 3, ts, -1, SQLITE_STATIC);
			sqlite3_bind_text(q, 4, atxt, -1, SQLITE_STATIC);
			r = sqlite3_step(q) == SQLITE_DONE ? 0 : -1;
			sqlite3_finalize(q);
		}
		if (r == 0)
			r = record_shards(st, rd);
		if (r == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
			r = -1;
		if (r < 0) {
			kerr_setc(e, KEXIT_STORE, "%s: %s", store_path(st), sqlite3_errmsg(db));
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		}
	}
	if (r < 0)
		remove_shards(rd, made);
	free(atxt);
	return r;
}

/* sbatch refused the array: the round never was (its records, shards and job scripts go) */
static void forget_round(struct store *st, const struct round *rd)
{
	char *q = xasprintf("BEGIN IMMEDIATE;"
			    "DELETE FROM cluster_assign WHERE shard IN (SELECT name FROM cluster_shards WHERE round=%ld);"
			    "DELETE FROM cluster_shards WHERE round=%ld; DELETE FROM cluster_rounds WHERE round=%ld; COMMIT;",
			    rd->round, rd->round, rd->round);
	char *msg = NULL;
	if (sqlite3_exec(store_db(st), q, NULL, NULL, &msg) != SQLITE_OK) {
		kiln_warn("%s: round %ld not forgotten: %s", store_path(st), rd->round, msg ? msg : "?");
		sqlite3_exec(store_db(st), "ROLLBACK", NULL, NULL, NULL);
	}
	sqlite3_free(msg);
	free(q);
	remove_shards(rd, rd->tasks);
	for (int m = 0; m < 2; m++) {
		char *job = xasprintf("%s/r%ld%s.job", rd->dir, rd->round, m ? "-merge" : "");
		unlink(job);
		free(job);
	}
}

/* the pending pexecs of the main file, in schedule order */
static int pending_ids(struct store *st, struct round *rd, char sched_hash[65], struct kerr *e)
{
	struct schedule sc;
	if (store_load_schedule(st, &sc, e) < 0)
		return -1;
	shard_schedule_hash(&sc, sched_hash);
	rd->ids = xcalloc(sc.n + 1, sizeof(long));
	for (size_t i = 0; i < sc.n; i++)
		if (sc.items[i].status == PX_PENDING || sc.items[i].status == PX_RUNNING)
			rd->ids[rd->n++] = sc.items[i].id;
	schedule_free(&sc);
	return 0;
}

/* everything after the results and its schedule are fixed, under the results' lock */
static int submit_locked(struct store *st, struct round *rd, const struct run_opts *o, const struct cluster_opts *co,
			 const char *expname, struct kerr *e)
{
	char *cid = NULL, *build = NULL, *job = NULL, *merge_job = NULL;
	char sched_hash[65];
	int r = -1;
	/* several machines read and write this file: no WAL (store_set_rollback) */
	if (store_set_rollback(st, e) < 0 || shard_init_main(st, &cid, e) < 0 || rounds_idle(st, e) < 0 ||
	    merge_before(st, o->quiet, e) < 0 || store_reset_running(st, e) < 0 || pending_ids(st, rd, sched_hash, e) < 0)
		goto out;
	if (!rd->n) {
		if (!o->quiet)
			kiln_note("%s: every pexec is done; nothing to submit", rd->results);
		r = 0;
		goto out;
	}
	rd->tasks = co->nodes > 0 ? co->nodes : slurm_default_nodes();
	if (rd->tasks < 1)
		rd->tasks = 1;
	if ((size_t)rd->tasks > rd->n)
		rd->tasks = (long)rd->n;
	if (!(build = build_manifest(e)) || (mkdir_p(rd->dir, 0755) < 0 && !file_exists(rd->dir))) {
		if (build)
			kerr_set(e, "%s: cannot make the folder", rd->dir);
		goto out;
	}
	if (record_round(st, rd, co, sched_hash, build, e) < 0)
		goto out;
	if (submit_jobs(st, rd, co, expname, &job, &merge_job, e) < 0) {
		forget_round(st, rd);
		goto out;
	}
	/*
	 * --force: a key's pexecs of a program the results file does not hold
	 * yet are merged from this round's shards, kept apart (merge.c); the
	 * mark is in the results file, not in a shard the nodes write
	 */
	if (o->force) {
		char name[64];
		snprintf(name, sizeof(name), "cluster_force_round_%ld", rd->round);
		if (store_meta_set(st, name, "1", e) < 0)
			goto out;
	}
	if (!o->quiet) {
		kiln_note("round %ld: job %s, %ld task(s) on exclusive nodes, %zu pexec(s) (%zu to %zu each), shards in %s",
			  rd->round, job, rd->tasks, rd->n, rd->n / (size_t)rd->tasks,
			  (rd->n + (size_t)rd->tasks - 1) / (size_t)rd->tasks, rd->dir);
		if (merge_job)
			kiln_note("job %s merges them into %s when the array ends; `kiln status %s` follows it", merge_job,
				  rd->results, rd->results);
	}
	r = 0;
out:
	free(cid);
	free(build);
	free(job);
	free(merge_job);
	return r;
}

int cluster_submit(const char *config, const struct run_opts *o, const struct cluster_opts *co, struct kerr *e)
{
	struct run_opts po = *o;
	po.prepare_only = 1;
	int code = run_experiment(config, &po, e);
	if (code != KEXIT_OK)
		return code;
	struct experiment ex;
	if (config_load(config, kiln_datadir(), 0, &ex, e) < 0)
		return e->code;
	struct round rd;
	memset(&rd, 0, sizeof(rd));
	rd.results = realpath(o->results ? o->results : ex.results, NULL);
	rd.config = xstrdup(ex.path);
	struct store *st = NULL;
	if (!rd.results) {
		code = kerr_setc(e, KEXIT_STORE, "%s: no results file", o->results ? o->results : ex.results);
	} else if (strpbrk(rd.results, "%\n") || strchr(rd.config, '\n')) {
		code = kerr_setc(e, KEXIT_USAGE, "%s: a results or config path with '%%' or a newline cannot be given to "
				 "Slurm", rd.results);
	} else {
		rd.dir = shard_dir(rd.results);
		if (store_open(rd.results, 1, &st, e) < 0 || store_lock(st, e) < 0 ||
		    submit_locked(st, &rd, o, co, ex.name, e) < 0)
			code = e->code ? e->code : KEXIT_FAIL;
	}
	store_close(st);
	free(rd.results);
	free(rd.config);
	free(rd.dir);
	free(rd.ids);
	config_free(&ex);
	return code < 0 ? KEXIT_FAIL : code;
}

/* ---- the tasks Slurm runs ---- */

struct task_script {
	char *role, *results, *config;
	long round;
};

static void task_script_free(struct task_script *ts)
{
	free(ts->role);
	free(ts->results);
	free(ts->config);
}

/* the lines `write_job` wrote: "NAME VALUE" */
static int read_task_script(const char *path, struct task_script *ts, struct kerr *e)
{
	memset(ts, 0, sizeof(*ts));
	struct strbuf sb = STRBUF_INIT;
	if (read_file(path, &sb, e) < 0)
		return -1;
	int r = 0, version = 0;
	if (sb.len > 65536)
		r = kerr_setc(e, KEXIT_CONFIG, "%s: not a kiln task script (%zu bytes)", path, sb.len);
	char *save = NULL;
	for (char *line = r ? NULL : strtok_r(sb.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');
		if (line[0] == '#' || !sp)
			continue;
		*sp = '\0';
		const char *v = sp + 1;
		if (!strcmp(line, "kiln-task"))
			version = atoi(v);
		else if (!strcmp(line, "role") && !ts->role)
			ts->role = xstrdup(v);
		else if (!strcmp(line, "results") && !ts->results)
			ts->results = xstrdup(v);
		else if (!strcmp(line, "config") && !ts->config)
			ts->config = xstrdup(v);
		else if (!strcmp(line, "round") && parse_long(v, &ts->round) < 0)
			r = kerr_setc(e, KEXIT_CONFIG, "%s: round: not a number", path);
	}
	if (r == 0 && (version != 1 || !ts->role || !ts->results || !ts->config || ts->round < 1))
		r = kerr_setc(e, KEXIT_CONFIG, "%s: not a kiln task script (kiln run --slurm writes them)", path);
	sb_release(&sb);
	if (r < 0)
		task_script_free(ts);
	return r;
}

/* the node's name for Slurm (the machine id in reports), else the host name */
static char *this_machine(void)
{
	const char *n = getenv("SLURMD_NODENAME");
	if (n && *n)
		return xstrdup(n);
	struct utsname u;
	return xstrdup(uname(&u) == 0 ? u.nodename : "unknown");
}

static void set_meta(struct store *st, const char *name, const char *value)
{
	struct kerr e = KERR_INIT;
	if (store_meta_set(st, name, value ? value : "", &e) < 0)
		kiln_warn("%s", sb_str(&e.msg));
	kerr_release(&e);
}

/*
 * Before the run: is this the shard's node, and the submitted build?  The
 * task's start is recorded either way; a refusal is its error.
 */
static int task_begin(const char *shard, const char *name, const char *machine, struct kerr *e)
{
	struct store *st;
	if (store_open(shard, 1, &st, e) < 0 || store_lock(st, e) < 0) {
		store_close(st);
		return kerr_wrap(e, "shard %s", name);
	}
	char *have = NULL, *was = NULL, *want = NULL, *build = NULL;
	store_meta_get(st, "shard", &have);
	store_meta_get(st, "machine", &was);
	store_meta_get(st, "kiln_build", &want);
	char ts[32];
	iso_time(wall_ns(), ts, sizeof(ts));
	set_meta(st, "task_started", ts);
	set_meta(st, "task_job", getenv("SLURM_JOB_ID"));
	set_meta(st, "task_array_job", getenv("SLURM_ARRAY_JOB_ID"));
	set_meta(st, "task_index", getenv("SLURM_ARRAY_TASK_ID"));
	set_meta(st, "task_restarts", getenv("SLURM_RESTART_COUNT") ? getenv("SLURM_RESTART_COUNT") : "0");
	struct strbuf diff = STRBUF_INIT;
	int r = 0;
	if (!have || strcmp(have, name))
		r = kerr_setc(e, KEXIT_CONFIG, "%s is not shard %s", shard, name);
	else if (was && *was && strcmp(was, machine))
		r = kerr_setc(e, KEXIT_CONFIG, "shard %s ran on %s; a task on %s cannot go on with it (a shard's pexecs "
			      "all come from one machine): `kiln run CONFIG --slurm` gives its pending pexecs out again",
			      name, was, machine);
	else if (!(build = build_manifest(e)))
		r = -1;
	else if (build_differences(want, build, &diff))
		r = kerr_setc(e, KEXIT_CONFIG, "node %s runs another kiln build than the one the experiment was submitted "
			      "with (%s): install the same kiln on every node", machine, diff.buf);
	else
		set_meta(st, "machine", machine);
	sb_release(&diff);
	free(have);
	free(was);
	free(want);
	free(build);
	store_close(st);
	return r;
}

/*
 * How many of a task's last ended pexecs (newest first) the cancel ended:
 * walking back, each must have failed "killed by signal 15" and ended
 * within CANCEL_LINK_NS of the moment after it (the task's stop for the
 * newest, else the end of the one after it).  A chain of links, not one
 * window from the stop, because the time between them is the machine's
 * (starting the next pexec, Slurm delivering the cancel), which a loaded
 * node stretches; the real race leaves them milliseconds apart.
 */
size_t cluster_cancelled_count(const struct cluster_ended *p, size_t n, int64_t stopped_ns)
{
	int64_t after = stopped_ns;
	size_t k = 0;
	while (k < n && p[k].sigterm && after - p[k].end_ns < CANCEL_LINK_NS) {
		after = p[k].end_ns;
		k++;
	}
	return k;
}

/*
 * The pexecs of this task's run (started at started_ns) that the cancel
 * ended (cluster_cancelled_count, at most 16).  Their ids go in ids; the
 * last one's label and key in label and *key.
 */
static size_t cancelled_tail(struct store *st, int64_t started_ns, int64_t stopped_ns, long ids[16], char *label,
			     size_t label_size, char **key)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(store_db(st), "SELECT p.id, p.wall_start_ns + CAST(p.duration_s * 1e9 AS INTEGER),"
			       " p.status = 'failed' AND p.signal = 15, p.num, k.bench || ':' || k.vm || ':' || k.variant"
			       " FROM pexecs p JOIN keys k ON k.id = p.key_id WHERE p.wall_start_ns >= ?1"
			       " AND p.status != 'pending' AND p.status != 'running' ORDER BY p.wall_start_ns DESC LIMIT 16",
			       -1, &q, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(q, 1, started_ns);
	struct cluster_ended rows[16];
	long nums[16];
	char *keys[16];
	size_t got = 0;
	while (got < 16 && sqlite3_step(q) == SQLITE_ROW) {
		ids[got] = (long)sqlite3_column_int64(q, 0);
		rows[got].end_ns = sqlite3_column_int64(q, 1);
		rows[got].sigterm = sqlite3_column_int(q, 2);
		nums[got] = (long)sqlite3_column_int64(q, 3);
		keys[got] = xstrdup((const char *)sqlite3_column_text(q, 4));
		got++;
	}
	sqlite3_finalize(q);
	size_t n = cluster_cancelled_count(rows, got, stopped_ns);
	if (n) {
		long planned = 0;
		char *pl = NULL;
		if (store_meta_get(st, "pexecs", &pl) < 0 || !pl || parse_long(pl, &planned) < 0)
			planned = 0;
		free(pl);
		schedule_pexec_label(nums[0], planned, label, label_size);
		*key = keys[0];
		keys[0] = NULL;
	}
	for (size_t i = 0; i < got; i++)
		free(keys[i]);
	return n;
}

/*
 * Slurm stops a task by signalling every process of it at once: when the
 * runner's SIGTERM is handled before kiln's own, kiln stores the pexec as
 * failed ("killed by signal 15") just before it stops.  That pexec was the
 * cancel's, not the benchmark's: the last ones of this task that ended so
 * (cancelled_tail) go back to pending (a runner signalled ahead of the
 * cancel and the one the cancel itself reached first are both the
 * cancel's).  The last of them is named in label and *key (NULL: none).
 */
static void task_unfail_cancelled(const char *shard, int64_t started_ns, int64_t stopped_ns, char *label,
				  size_t label_size, char **key)
{
	struct store *st;
	struct kerr e = KERR_INIT;
	*key = NULL;
	if (store_open(shard, 1, &st, &e) == 0) {
		long ids[16];
		size_t n = cancelled_tail(st, started_ns, stopped_ns, ids, label, label_size, key);
		for (size_t i = 0; i < n; i++)
			if (store_unfinish(st, ids[i], &e) < 0) {
				kiln_warn("%s", sb_str(&e.msg));
				kerr_release(&e);
				e = (struct kerr)KERR_INIT;
			}
		store_close(st);
	}
	kerr_release(&e);
}

static void task_end(const char *shard, int code, const struct kerr *re)
{
	struct store *st;
	struct kerr e = KERR_INIT;
	if (store_open(shard, 1, &st, &e) < 0) {
		kiln_warn("shard %s: the task's end is not recorded: %s", shard, sb_str(&e.msg));
		kerr_release(&e);
		return;
	}
	char ts[32], num[16];
	iso_time(wall_ns(), ts, sizeof(ts));
	snprintf(num, sizeof(num), "%d", code);
	set_meta(st, "task_ended", ts);
	set_meta(st, "task_exit", num);
	set_meta(st, "task_error", code == KEXIT_OK ? "" : sb_str(&re->msg));
	store_close(st);
	kerr_release(&e);
}

static int task_array(const struct task_script *ts, struct kerr *e)
{
	const char *idx = getenv("SLURM_ARRAY_TASK_ID");
	long t;
	if (!idx || parse_long(idx, &t) < 0 || t < 0)
		return kerr_setc(e, KEXIT_USAGE, "kiln task: SLURM_ARRAY_TASK_ID is not set: only Slurm runs kiln's tasks");
	char *name = xasprintf("r%ld-t%ld", ts->round, t);
	char *shard = shard_path(ts->results, name);
	char *machine = this_machine();
	int code = KEXIT_OK;
	kiln_note("task %ld of round %ld on %s: shard %s", t, ts->round, machine, shard);
	if (task_begin(shard, name, machine, e) < 0) {
		code = e->code ? e->code : KEXIT_FAIL;
	} else {
		struct run_opts o;
		memset(&o, 0, sizeof(o));
		o.results = shard;
		int64_t started = wall_ns();
		code = run_experiment(ts->config, &o, e);
		if (code == KEXIT_INTERRUPTED) {
			char label[32], *key;
			task_unfail_cancelled(shard, started, wall_ns(), label, sizeof(label), &key);
			/* the cancel's SIGTERM ended the runner before kiln heard its own: said as
			 * when kiln heard it first, not as a stop between two pexecs */
			if (key && !run_is_discarded_error(e))
				run_discarded_error(e, label, key);
			free(key);
		}
	}
	if (file_exists(shard))
		task_end(shard, code, e);
	free(name);
	free(shard);
	free(machine);
	return code;
}

static int task_merge(const struct task_script *ts, struct kerr *e)
{
	struct store *st;
	struct merge_result mr;
	if (store_open(ts->results, 1, &st, e) < 0 || store_lock(st, e) < 0) {
		store_close(st);
		return e->code;
	}
	int code = merge_shards(st, NULL, &mr, e) < 0 ? (e->code ? e->code : KEXIT_STORE) : KEXIT_OK;
	if (code == KEXIT_OK) {
		for (size_t i = 0; i < mr.n; i++)
			if (mr.v[i].refused)
				kiln_warn("%s: not merged: %s", mr.v[i].name, mr.v[i].why);
		kiln_note("%s: %ld of %ld pexecs done", ts->results, mr.done, mr.total);
		code = merge_exit_code(&mr);
		if (code)
			kerr_setc(e, code, "some shards were not merged");
	}
	merge_result_free(&mr);
	store_close(st);
	return code;
}

int cluster_task(const char *script, struct kerr *e)
{
	struct task_script ts;
	if (read_task_script(script, &ts, e) < 0)
		return e->code;
	int code;
	if (!strcmp(ts.role, "array"))
		code = task_array(&ts, e);
	else if (!strcmp(ts.role, "merge"))
		code = task_merge(&ts, e);
	else
		code = kerr_setc(e, KEXIT_CONFIG, "%s: unknown role '%s'", script, ts.role) < 0 ? KEXIT_CONFIG : 0;
	task_script_free(&ts);
	return code;
}
