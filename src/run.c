/*
 * run.c - the run loop of DESIGN.md's flow:
 *
 *   config ─▶ schedule (stored before the first pexec) ─▶ for each pending
 *   pexec: build the runner's argv/env (plugin) ─▶ exec_run with the result
 *   stream read as it arrives (stream.c) ─▶ the plugin's parser turns
 *   KILN_INSTR_DIR into records ─▶ one durable transaction (store.c).
 *
 * Resuming is the same loop: the stored schedule is loaded, pexecs left
 * `running` by a crash go back to pending, and the loop takes the first
 * pending one.  SIGINT/SIGTERM stop the pexec in flight, which stays
 * pending, and kiln exits 130.
 */
#include "run.h"

#include <dirent.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "exec.h"
#include "pexec.h"
#include "platform.h"
#include "plugin.h"
#include "record.h"
#include "store.h"
#include "stream.h"

static void on_signal(int sig)
{
	(void)sig;
	exec_interrupted = 1;
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	exec_signals_changed();
}

/* --quick results go beside the experiment's own: <stem>.quick.kiln.db */
static char *quick_results(const char *results)
{
	if (str_ends_with(results, ".kiln.db"))
		return store_sibling(results, ".quick.kiln.db");
	return xasprintf("%s.quick", results);
}

/* ---- progress ---- */

struct progress {
	int tty, quiet;
	size_t total, done_before, done;
	int64_t t0, last_print;
	double pexec_s_sum;
	long iters_sum;
};

static void fmt_dur(double s, char *buf, size_t n)
{
	if (s < 0 || s != s)
		snprintf(buf, n, "?");
	else if (s < 60)
		snprintf(buf, n, "%.0fs", s);
	else if (s < 3600)
		snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, n, "%dh%02dm", (int)s / 3600, ((int)s % 3600) / 60);
}

static void progress_show(struct progress *p, const char *key, const char *label, const char *what, int force)
{
	if (p->quiet)
		return;
	int64_t now = mono_ns();
	if (!p->tty && !force && now - p->last_print < 5000000000LL)
		return;
	p->last_print = now;
	size_t k = p->done_before + p->done;
	double avg = p->done ? p->pexec_s_sum / (double)p->done : -1;
	double rate = p->pexec_s_sum > 0 ? (double)p->iters_sum / p->pexec_s_sum : 0;
	char eta[32];
	fmt_dur(avg < 0 ? -1 : avg * (double)(p->total - k), eta, sizeof(eta));
	if (p->tty)
		fprintf(stderr, "\r\033[K");
	fprintf(stderr, "[%zu/%zu] %s #%s %s", k, p->total, key, label, what);
	if (rate > 0)
		fprintf(stderr, "  %.0f it/s", rate);
	fprintf(stderr, "  ETA %s%s", eta, p->tty ? "" : "\n");
	fflush(stderr);
}

static void progress_end(struct progress *p)
{
	if (!p->quiet && p->tty)
		fprintf(stderr, "\r\033[K");
}

/* ---- one pexec ---- */

struct run_state {
	const struct experiment *ex;
	const struct schedule *sc;
	struct store *st;
	const struct run_opts *o;
	struct progress prog;
	size_t failed, tainted;
	struct platform plat;
	int plat_open;
	struct puser user;
	int have_user;
	char (*env_hash)[65];    /* per key: the first pexec's env hash */
	char (*session_hash)[65]; /* per key: this session's env hash (computed once) */
	char *cwd;               /* runners start in the config's folder */
	const char *results;     /* the results file */
};

static int result_stream_cb(void *ctx, const char *data, size_t n)
{
	return stream_feed(ctx, data, n) < 0 ? 1 : 0;
}

static const struct vm_conf *find_vm(const struct experiment *ex, const char *name)
{
	for (size_t i = 0; i < ex->nvms; i++)
		if (!strcmp(ex->vms[i].name, name))
			return &ex->vms[i];
	return NULL;
}

static const struct bench_conf *find_bench(const struct experiment *ex, const char *name)
{
	for (size_t i = 0; i < ex->nbenchs; i++)
		if (!strcmp(ex->benchs[i].name, name))
			return &ex->benchs[i];
	return NULL;
}

/* run one argv list of pre/post commands (flattened, "" separated) */
static int run_hooks(const struct strvec *cmds, const char *what, struct kerr *e)
{
	size_t i = 0;
	while (i < cmds->n) {
		struct strvec argv = STRVEC_INIT;
		while (i < cmds->n && *cmds->v[i])
			sv_push(&argv, cmds->v[i++]);
		i++;
		struct exec_result r;
		int rc = exec_simple(sv_array(&argv), 600, &r, e);
		if (rc == 0 && (!r.exited || r.status))
			rc = kerr_set(e, "%s command `%s` failed (%s %d): %s", what, argv.v[0],
				      r.exited ? "exit status" : "signal", r.exited ? r.status : r.signal, sb_str(&r.err));
		else if (rc < 0)
			kerr_wrap(e, "%s command", what);
		exec_result_release(&r);
		sv_clear(&argv);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* the stats parser on a file, when the VM asked for it */
static int parse_with(const char *plugin, const char *path, struct rec_sink *sink, struct kerr *e)
{
	const struct kiln_plugin *p = plugin_find(plugin);
	if (!p || !p->parse)
		return kerr_set(e, "no parser '%s' built into this kiln", plugin);
	return p->parse(path, sink, e);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Turn what the pexec left behind into records: generic *.kiln.jsonl files,
 * the plugin's own files, a stats dump (stderr or file), an external parser.
 * The first error is kept in instr_err; records parsed before it stand.
 */
static void collect_instr(const struct pexec_key *k, const char *label, const char *dir,
			  const struct exec_result *res, struct rec_list *recs, struct strbuf *instr_err)
{
	const struct vm_conf *vm = k->pc.vm;
	struct rec_sink sink = rec_list_sink(recs);
	struct kerr e = KERR_INIT;
	DIR *d = opendir(dir);
	struct strvec files = STRVEC_INIT;
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')
				sv_push(&files, de->d_name);
		closedir(d);
	}
	if (files.n)
		qsort(files.v, files.n, sizeof(char *), cmp_names);
	for (size_t i = 0; i < files.n; i++) {
		const char *name = files.v[i];
		char *path = path_join(dir, name);
		int r = 0, tried = 1;
		if (star_match("*.kiln.jsonl", name))
			r = rec_parse_jsonl_file(path, &sink, &e);
		else if (vm->pl && vm->pl->parse && vm->pl->parse_glob && star_match(vm->pl->parse_glob, name))
			r = vm->pl->parse(path, &sink, &e);
		else if (vm->stats_from && !strcmp(vm->stats_from, "file") && plugin_find("stats") &&
			 star_match(plugin_find("stats")->parse_glob, name))
			r = parse_with("stats", path, &sink, &e);
		else
			tried = 0;
		(void)tried;
		if (r < 0 && !instr_err->len)
			sb_addf(instr_err, "%s", sb_str(&e.msg));
		free(path);
	}
	sv_clear(&files);
	if (vm->stats_from && !strcmp(vm->stats_from, "stderr") && res->err.len) {
		char *path = path_join(dir, ".stderr");
		if (write_file(path, res->err.buf, res->err.len, &e) < 0 ||
		    parse_with("stats", path, &sink, &e) < 0) {
			if (!instr_err->len)
				sb_addf(instr_err, "stats from stderr: %s", sb_str(&e.msg));
		}
		free(path);
	}
	if (vm->parser.n) {
		struct strvec argv = STRVEC_INIT;
		struct plugin_ctx pc = k->pc;
		pc.instr_dir = dir;
		for (size_t i = 0; i < vm->parser.n; i++) {
			struct strbuf sb = STRBUF_INIT;
			plugin_subst(&pc, label, vm->parser.v[i], &sb);
			sv_push(&argv, sb.buf);
			sb_release(&sb);
		}
		struct exec_result pr;
		if (exec_simple(sv_array(&argv), 600, &pr, &e) < 0) {
			if (!instr_err->len)
				sb_addf(instr_err, "parser: %s", sb_str(&e.msg));
		} else {
			if ((!pr.exited || pr.status) && !instr_err->len)
				sb_addf(instr_err, "parser `%s` failed: %s", argv.v[0], sb_str(&pr.err));
			if (rec_parse_jsonl(argv.v[0], pr.out.buf ? pr.out.buf : "", pr.out.len, &sink, &e) < 0 &&
			    !instr_err->len)
				sb_addf(instr_err, "%s", sb_str(&e.msg));
			exec_result_release(&pr);
		}
		sv_clear(&argv);
	}
	kerr_release(&e);
}

/*
 * keep_log: what the VM wrote into the instrumentation folder survives the
 * pexec, zstd-compressed, in <results>.logs/<key>/<pexec>/ (the records
 * parsed from it are in the results either way).  A failure only warns:
 * the measurements matter more than the raw log.
 */
static void keep_logs(const struct run_state *rs, const struct pexec_key *k, const char *label, const char *instr)
{
	char *dest = xasprintf("%s.logs/%s/%s", rs->results, k->key, label);
	struct kerr e = KERR_INIT;
	DIR *d = opendir(instr);
	if (!d || mkdir_p(dest, 0755) < 0) {
		kiln_warn("keep_log: cannot keep the logs of %s pexec %s in %s", k->key, label, dest);
		goto out;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || star_match("*.zst", de->d_name))
			continue;
		char *src = path_join(instr, de->d_name);
		struct stat stt;
		/* small files (calibration, records) stay readable as they are */
		int small = stat(src, &stt) == 0 && stt.st_size < 4096;
		char *zsrc = small ? xstrdup(src) : xasprintf("%s.zst", src);
		char *to = xasprintf("%s/%s%s", dest, de->d_name, small ? "" : ".zst");
		if ((!small && zstd_compress_file(src, &e) < 0) || rename(zsrc, to) < 0)
			kiln_warn("keep_log: %s: %s", src, e.msg.len ? e.msg.buf : strerror(errno));
		free(src);
		free(zsrc);
		free(to);
	}
out:
	if (d)
		closedir(d);
	kerr_release(&e);
	free(dest);
}

enum { ONE_OK, ONE_FAILED, ONE_TAINTED, ONE_INTERRUPTED, ONE_FATAL };

/* platform.notify; a notify command that fails only warns: the run goes on */
KILN_PRINTF(3, 4)
static void run_notify(const struct experiment *ex, const char *event, const char *fmt, ...)
{
	if (!ex->platform.notify.n)
		return;
	struct strbuf msg = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (platform_notify(&ex->platform, event, msg.buf, &e) < 0)
		kiln_warn("notify: %s", sb_str(&e.msg));
	sb_release(&msg);
	kerr_release(&e);
}

/*
 * The env log hash of a pexec, equal across the pexecs of a key: the
 * per-pexec instrumentation folder may appear inside other variables
 * (PYPYLOG=...:<dir>/pypylog), so it is replaced by a fixed word first.
 */
static void pexec_env_hash(const struct strvec *env, const char *instr, const struct exec_opts *eo, char out[65])
{
	struct strvec norm = STRVEC_INIT;
	size_t il = instr ? strlen(instr) : 0;
	for (size_t i = 0; i < env->n; i++) {
		struct strbuf sb = STRBUF_INIT;
		const char *p = env->v[i], *hit;
		while (il && (hit = strstr(p, instr))) {
			sb_add(&sb, p, (size_t)(hit - p));
			sb_adds(&sb, "$KILN_INSTR_DIR");
			p = hit + il;
		}
		sb_adds(&sb, p);
		sv_push(&norm, sb.buf);
		sb_release(&sb);
	}
	platform_env_hash(sv_array(&norm), eo, out);
	sv_clear(&norm);
}

/*
 * One pexec.  `marked`: it is already marked running (by the previous
 * pexec's commit); `next_id`: the pexec after it, which this commit marks
 * running, so that each pexec costs one transaction; `rerun`: an earlier
 * attempt in this session stored rows that the commit replaces (a pending
 * or crashed pexec has none: commits are atomic).
 */
static int run_one(struct run_state *rs, const struct sched_item *it, struct pexec_key *k, int marked,
		   long next_id, int rerun, struct kerr *e)
{
	const struct experiment *ex = rs->ex;
	int whole = k->whole;
	char label[32];
	schedule_pexec_label(it->num, rs->sc->pexecs, label, sizeof(label));
	const char *keyname = k->key;
	int outcome = ONE_FATAL;

	if ((!marked && store_mark_running(rs->st, it->id, e) < 0) || run_hooks(&ex->pre_exec, "pre_execution", e) < 0)
		return ONE_FATAL;
	char *instr = NULL;
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	if (pexec_prepare(ex, k, label, rs->have_user ? &rs->user : NULL, &instr, &env, e) < 0) {
		sv_clear(&env);
		return ONE_FATAL;
	}
	k->pc.instr_dir = instr;
	if (plugin_build(&k->pc, label, &argv, &env, e) < 0) {
		kerr_wrap(e, "%s", keyname);
		goto out;
	}

	struct stream s;
	stream_init(&s, k->pc.iterations);
	struct exec_opts eo;
	memset(&eo, 0, sizeof(eo));
	struct strbuf cpus = STRBUF_INIT;
	pexec_opts(ex, k->whole, &cpus, &eo);
	eo.argv = sv_array(&argv);
	eo.envp = sv_array(&env);
	eo.on_stream = result_stream_cb;
	eo.stream_ctx = &s;
	eo.cwd = rs->cwd;
	if (rs->have_user) {
		eo.set_user = 1;
		eo.uid = rs->user.uid;
		eo.gid = rs->user.gid;
		eo.cwd = rs->user.home;
	}

	/* the machine: wait for it to be ready, note what could change */
	if (rs->plat_open) {
		struct strbuf plog = STRBUF_INIT;
		int pr0 = platform_before_pexec(&rs->plat, &plog, e);
		if (pr0 < 0) {
			sb_release(&plog);
			sb_release(&cpus);
			stream_release(&s);
			kerr_wrap(e, "platform check before %s pexec %s", keyname, label);
			outcome = ONE_FATAL;
			goto out;
		}
		if (pr0 > 0 && !rs->o->quiet) {
			progress_end(&rs->prog);
			kiln_warn("%s", sb_str(&plog));
		}
		sb_release(&plog);
	}
	/* the env log hash: one per key and session, from what kiln controls */
	char env_hash[65];
	if (!rs->session_hash[it->key][0])
		pexec_env_hash(&env, instr, &eo, rs->session_hash[it->key]);
	memcpy(env_hash, rs->session_hash[it->key], sizeof(env_hash));

	progress_show(&rs->prog, keyname, label, "running", 0);
	int64_t wall0 = wall_ns();
	struct exec_result res;
	struct kerr xe = KERR_INIT;
	int xr = exec_run(&eo, &res, &xe);
	sb_release(&cpus);

	if (exec_interrupted) {
		/* discarded: the pexec goes back to pending */
		outcome = ONE_INTERRUPTED;
		struct kerr ignore = KERR_INIT;
		store_reset_running(rs->st, &ignore);
		kerr_release(&ignore);
		kerr_setc(e, KEXIT_INTERRUPTED, "interrupted: pexec %s of %s discarded, it stays pending", label, keyname);
		exec_result_release(&res);
		stream_release(&s);
		kerr_release(&xe);
		goto out;
	}

	struct pexec_result pr;
	memset(&pr, 0, sizeof(pr));
	struct rec_list recs = REC_LIST_INIT;
	struct strbuf err = STRBUF_INIT, instr_err = STRBUF_INIT, unavail = STRBUF_INIT;
	int64_t one_wall;
	pr.wall_start_ns = wall0;
	pr.duration_s = (double)(res.end_ns - res.start_ns) / 1e9;
	pr.exit_status = res.status;
	pr.signal = res.signal;
	pr.user_s = res.user_s;
	pr.sys_s = res.sys_s;
	pr.maxrss_kb = res.maxrss_kb;
	pr.personality = res.personality;
	pr.out = res.out.buf;
	pr.out_len = res.out.len;
	pr.err = res.err.buf;
	pr.err_len = res.err.len;
	pr.status = PX_OK;

	if (xr < 0) {
		pr.status = PX_FAILED;
		sb_addf(&err, "%s", sb_str(&xe.msg));
	} else if (res.timed_out) {
		pr.status = PX_TIMEOUT;
		sb_addf(&err, "timed out after %g s; the process group was killed", ex->limits.timeout_s);
	} else if (!res.exited || res.status) {
		pr.status = PX_FAILED;
		if (res.exited)
			sb_addf(&err, "exit status %d", res.status);
		else
			sb_addf(&err, "killed by signal %d (%s)", res.signal, strsignal(res.signal));
	}
	if (!whole) {
		int sr = stream_finish(&s);
		if (sr < 0 && pr.status == PX_OK) {
			pr.status = PX_FAILED;
			sb_addf(&err, "%s", s.error.buf);
		} else if (sr < 0 && !res.timed_out) {
			sb_addf(&err, "; %s", s.error.buf);
		}
		pr.wall_ns = s.wall;
		pr.n = s.n;
		pr.counter_names = s.counter_names;
		pr.ncounters = s.ncounters;
		pr.counters = s.counters;
		pr.clock = s.clock;
		for (size_t u = 0; u < s.unavailable.n; u++)
			sb_addf(&unavail, "%s%s", u ? "," : "", s.unavailable.v[u]);
		pr.unavailable = unavail.buf;
		collect_instr(k, label, instr, &res, &recs, &instr_err);
		if (k->pc.vm->keep_log)
			keep_logs(rs, k, label, instr);
	} else {
		one_wall = res.end_ns - res.start_ns;
		if (xr == 0 && !res.timed_out) {
			pr.wall_ns = &one_wall;
			pr.n = 1;
		}
	}
	struct strbuf taint = STRBUF_INIT;
	if (rs->plat_open && platform_after_pexec(&rs->plat, &taint) > 0 && pr.status == PX_OK)
		pr.status = PX_TAINTED;
	if (!rs->env_hash[it->key][0]) {
		memcpy(rs->env_hash[it->key], env_hash, sizeof(env_hash));
	} else if (strcmp(rs->env_hash[it->key], env_hash)) {
		sb_addf(&taint, "%sthe pexec's environment or limits differ from the first pexec of this key",
			taint.len ? "; " : "");
		if (pr.status == PX_OK)
			pr.status = PX_TAINTED;
	}
	pr.taint = taint.len ? taint.buf : NULL;
	pr.env_hash = env_hash;
	if (ex->platform.aslr == ASLR_OFF && pr.status == PX_OK &&
	    (res.personality < 0 || !(res.personality & ADDR_NO_RANDOMIZE))) {
		pr.status = PX_FAILED;
		sb_addf(&err, "ASLR off was asked for but the child's personality is %#x", res.personality);
	}
	pr.error = err.len ? err.buf : NULL;
	pr.instr_error = instr_err.len ? instr_err.buf : NULL;
	pr.records = &recs;
	pr.next_id = next_id;
	pr.rerun = rerun;

	if (run_hooks(&ex->post_exec, "post_execution", e) < 0) {
		outcome = ONE_FATAL;
	} else if (store_commit_pexec(rs->st, it->id, &pr, e) < 0) {
		outcome = ONE_FATAL;
	} else {
		outcome = pr.status == PX_OK ? ONE_OK : pr.status == PX_TAINTED ? ONE_TAINTED : ONE_FAILED;
		rs->prog.done++;
		rs->prog.pexec_s_sum += pr.duration_s;
		rs->prog.iters_sum += (long)pr.n;
		if (outcome == ONE_FAILED) {
			rs->failed++;
			if (!rs->o->quiet) {
				progress_end(&rs->prog);
				kiln_warn("%s pexec %s %s: %s", keyname, label, pexec_status_name(pr.status), pr.error);
			}
			run_notify(ex, "failure", "%s pexec %s %s: %s", keyname, label, pexec_status_name(pr.status), pr.error);
		} else if (outcome == ONE_TAINTED) {
			rs->tainted++;
			if (!rs->o->quiet) {
				progress_end(&rs->prog);
				kiln_warn("%s pexec %s tainted: %s", keyname, label, pr.taint);
			}
			run_notify(ex, "taint", "%s pexec %s tainted: %s", keyname, label, pr.taint);
		} else if (pr.instr_error && !rs->o->quiet) {
			progress_end(&rs->prog);
			kiln_warn("%s pexec %s: instrumentation: %s", keyname, label, pr.instr_error);
		}
		if (!rs->o->quiet) {
			char what[64];
			snprintf(what, sizeof(what), "%s %zu it %.2fs", pexec_status_name(pr.status), pr.n, pr.duration_s);
			progress_show(&rs->prog, keyname, label, what, outcome == ONE_FAILED);
		}
	}
	rec_list_clear(&recs);
	sb_release(&err);
	sb_release(&taint);
	sb_release(&instr_err);
	sb_release(&unavail);
	exec_result_release(&res);
	stream_release(&s);
	kerr_release(&xe);
out:
	if (instr)
		rm_rf(instr);
	free(instr);
	sv_clear(&argv);
	sv_clear(&env);
	return outcome;
}

/* ---- the whole run ---- */

static int config_diff(const struct experiment *ex, const char *old_text, struct kerr *e)
{
	char a[] = "/tmp/kiln-old-config.XXXXXX";
	int fd = mkstemp(a);
	struct strbuf msg = STRBUF_INIT;
	if (fd >= 0) {
		ssize_t w = write(fd, old_text, strlen(old_text));
		(void)w;
		close(fd);
		char *argv[] = { "diff", "-u", "--label", "stored config", "--label", ex->path, a, ex->path, NULL };
		struct exec_result r;
		struct kerr ie = KERR_INIT;
		if (exec_simple(argv, 10, &r, &ie) == 0) {
			sb_add(&msg, r.out.buf ? r.out.buf : "", r.out.len);
			exec_result_release(&r);
		}
		kerr_release(&ie);
		unlink(a);
	}
	kerr_setc(e, KEXIT_CONFIG,
		  "%s: the config changed since these results were started; run with --force to continue "
		  "anyway, or use another results file\n%s", ex->path, sb_str(&msg));
	sb_release(&msg);
	return -1;
}

static void print_dry_run(const struct experiment *ex, const struct schedule *sc, const char *results)
{
	printf("# experiment %s: %zu keys x %ld pexecs = %zu pexecs, results %s\n", ex->name, sc->nkeys,
	       sc->pexecs, sc->n, results);
	for (size_t i = 0; i < sc->n; i++) {
		char label[32];
		schedule_pexec_label(sc->items[i].num, sc->pexecs, label, sizeof(label));
		char *k = schedule_key_name(&sc->keys[sc->items[i].key]);
		printf("%zu\t%s\t%s\t%ld iterations\n", i, k, label, sc->keys[sc->items[i].key].iterations);
		free(k);
	}
}


/*
 * kiln shares the machine with the benchmark: once set up (config, audit,
 * sanity checks, plugins prepared), give back what only the start needed.
 * Freed heap goes back to the system, and the code pages the start touched
 * are unmapped from kiln (MADV_DONTNEED on executable mappings: code is
 * never written, so it comes back unchanged from the page cache, which
 * keeps it; shared pages of libc go too, which MADV_PAGEOUT would skip).
 * Other read-only mappings are left alone: relocated data (RELRO) is a
 * private copy that DONTNEED would throw away; MADV_PAGEOUT (5.4+) pages
 * out what of them is clean and only kiln's.  The pexec loop faults back
 * in the little it uses.
 */
static void run_shed_memory(void)
{
	malloc_trim(0);
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8];
		unsigned long off;
		int inode = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %d", &lo, &hi, perms, &off, &inode) != 5 || !inode)
			continue;
		if (perms[1] == 'w') /* private writable pages are not clean */
			continue;
		if (perms[2] == 'x' && perms[3] == 'p')
			madvise((void *)lo, hi - lo, MADV_DONTNEED);
#ifdef MADV_PAGEOUT
		else
			madvise((void *)lo, hi - lo, MADV_PAGEOUT);
#endif
	}
	fclose(f);
}

/* the audit of the machine now, stored under `name` (and the host name) */
static int record_audit(struct store *st, const struct experiment *ex, const char *name, struct kerr *e)
{
	struct doctor_opts dopt = { .busy_sample_s = 0.2 };
	json_t *a = platform_audit(ex, &dopt);
	char *txt = json_dumps(a, JSON_COMPACT);
	json_t *u = json_object_get(a, "uname");
	json_t *h = u ? json_object_get(u, "nodename") : NULL;
	int r = store_audit_set(st, name, txt, e);
	if (r == 0 && json_is_string(h))
		r = store_audit_set(st, "hostname", json_string_value(h), e);
	free(txt);
	json_decref(a);
	return r;
}

/*
 * Before the first pexec of this session: the machine's state goes into the
 * audit (first session only), --tune, the benchmark user and the sanity
 * child (the limits a pexec gets, checked inside a child), then the watch.
 */
static int run_prepare_machine(struct run_state *rs, const char *config, const char *results,
			       json_t **tuned, struct kerr *e)
{
	const struct experiment *ex = rs->ex;
	struct store *st = rs->st;
	char *have = NULL;
	store_audit_get(st, "start", &have);
	if (!have && record_audit(st, ex, "start", e) < 0)
		return -1;
	free(have);
	if (rs->o->tune) {
		if (geteuid() != 0)
			return kerr_setc(e, KEXIT_USAGE, "--tune changes /sys settings and needs root");
		struct strbuf log = STRBUF_INIT;
		if (platform_tune(NULL, tuned, &log, e) < 0) {
			sb_release(&log);
			return -1;
		}
		if (!rs->o->quiet && log.len)
			kiln_note("tuned:\n%s", log.buf);
		char *txt = json_dumps(*tuned, JSON_COMPACT);
		store_audit_set(st, "tune_saved", txt, NULL);
		free(txt);
		sb_release(&log);
	}
	if (ex->platform.user) {
		if (geteuid() != 0)
			return kerr_setc(e, KEXIT_CONFIG, "%s: platform.user needs kiln to run as root", config);
		if (platform_user_ensure(ex->platform.user, &rs->user, e) < 0 ||
		    platform_user_fresh_home(&rs->user, e) < 0)
			return -1;
		rs->have_user = 1;
	}
	if (ex->platform.user || ex->platform.pin_cpus.n || ex->platform.has_nice || ex->limits.heap_mb ||
	    ex->limits.stack_mb) {
		/* Krun's dummy-benchmark check: what a pexec gets, verified inside a child */
		struct exec_opts eo;
		memset(&eo, 0, sizeof(eo));
		struct strvec env = STRVEC_INIT;
		sv_setenv(&env, "PATH", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
		if (rs->have_user)
			sv_setenv(&env, "HOME", rs->user.home);
		struct strbuf cpus = STRBUF_INIT;
		pexec_opts(ex, 1, &cpus, &eo);
		eo.timeout_s = 60;
		eo.envp = sv_array(&env);
		struct sanity_expect x;
		memset(&x, 0, sizeof(x));
		if (rs->have_user) {
			eo.set_user = 1;
			eo.uid = rs->user.uid;
			eo.gid = rs->user.gid;
			eo.cwd = rs->user.home;
			x.check_uid = 1;
			x.uid = rs->user.uid;
			x.gid = rs->user.gid;
			x.probe = results;
			x.home = rs->user.home;
		}
		x.cpus = eo.cpus;
		x.check_nice = eo.set_nice;
		x.nice = eo.nice;
		x.as_mb = ex->limits.heap_mb;
		x.stack_mb = ex->limits.stack_mb;
		json_t *rep = NULL;
		int r = platform_sanity(&eo, &x, &rep, e);
		if (rep) {
			char *txt = json_dumps(rep, JSON_COMPACT);
			store_audit_set(st, "sanity", txt, NULL);
			free(txt);
			json_decref(rep);
		}
		sb_release(&cpus);
		sv_clear(&env);
		if (r < 0)
			return kerr_wrap(e, "sanity check of the pexec environment");
	}
	if (platform_open(&rs->plat, &ex->platform, e) < 0)
		return -1;
	rs->plat_open = 1;
	return 0;
}

static void run_release_machine(struct run_state *rs, json_t *tuned)
{
	if (rs->plat_open)
		platform_close(&rs->plat);
	rs->plat_open = 0;
	if (tuned) {
		struct strbuf log = STRBUF_INIT;
		struct kerr e = KERR_INIT;
		if (platform_restore(NULL, tuned, &log, &e) < 0)
			kiln_error("restoring tuned settings: %s (run `kiln doctor --restore`)", sb_str(&e.msg));
		else if (!rs->o->quiet && log.len)
			kiln_note("restored:\n%s", log.buf);
		sb_release(&log);
		kerr_release(&e);
		json_decref(tuned);
	}
	if (rs->have_user)
		platform_user_release(&rs->user);
	rs->have_user = 0;
}

/*
 * --reboot: one pexec per boot.  While pexecs remain, make sure the unit
 * that resumes at boot is installed, count the boot against the bound, and
 * reboot; when none remain, remove the unit and the counter.
 */
static int run_reboot_step(const struct experiment *ex, const char *config, const char *results,
			   size_t pending, struct kerr *e)
{
	char *counter = xasprintf("%s.boots", results);
	int r = 0;
	if (!pending) {
		platform_reboot_remove(NULL, NULL);
		platform_boot_reset(counter);
		free(counter);
		return 0;
	}
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	char *cfg = realpath(config, NULL);
	long count, max = ex->platform.max_reboots ? ex->platform.max_reboots : (long)pending + 10;
	if (platform_boot_count(counter, max, &count, e) < 0) {
		/* the bound is reached: nothing may start kiln at the next boot either */
		platform_reboot_remove(NULL, NULL);
		r = -1;
	} else if (platform_reboot_install(NULL, exe, cfg ? cfg : config, e) < 0 ||
		   platform_reboot(ex->platform.reboot_command.n ? &ex->platform.reboot_command : NULL, e) < 0) {
		r = -1;
	}
	free(cfg);
	free(counter);
	return r;
}

int run_experiment(const char *config, const struct run_opts *o, struct kerr *e)
{
	struct experiment ex;
	if (config_load(config, kiln_datadir(), 1, &ex, e) < 0)
		return e->code;
	int code = KEXIT_OK;
	struct store *st = NULL;
	struct schedule sc;
	memset(&sc, 0, sizeof(sc));
	struct pexec_key *kc = NULL;
	char *results = NULL;
	int forced = 0;
	long ran = 0, marked_id = 0;
	struct run_state rs;
	memset(&rs, 0, sizeof(rs));

	if (o->results)
		results = xstrdup(o->results);
	else if (o->quick)
		results = quick_results(ex.results);
	else
		results = xstrdup(ex.results);

	for (size_t i = 0; i < ex.nvms; i++)
		if (ex.vms[i].missing && !o->quiet)
			kiln_note("VM '%s' is optional and '%s' was not found: its keys are skipped", ex.vms[i].name,
				  ex.vms[i].path ? ex.vms[i].path : ex.vms[i].pl && ex.vms[i].pl->vm_default ? ex.vms[i].pl->vm_default : "?");
	schedule_plan(&ex, o->order, o->quick ? 1 : 0, o->quick ? 3 : 0, &sc);
	if (!sc.n) {
		kerr_setc(e, KEXIT_CONFIG, "%s: nothing to run (every key is skipped)", config);
		code = KEXIT_CONFIG;
		goto out;
	}
	if (o->dry_run) {
		print_dry_run(&ex, &sc, results);
		goto out;
	}
	if (o->quick && file_exists(results)) {
		/* a quick run starts afresh, but never over a real experiment's results */
		char *q = NULL;
		struct store *old;
		if (store_open(results, 0, &old, e) == 0) {
			store_meta_get(old, "quick", &q);
			store_close(old);
		}
		if (!q || strcmp(q, "1")) {
			free(q);
			kerr_setc(e, KEXIT_USAGE, "%s holds results that are not from --quick: not overwriting them", results);
			code = KEXIT_USAGE;
			goto out;
		}
		free(q);
		char *wal = xasprintf("%s-wal", results), *shm = xasprintf("%s-shm", results);
		unlink(results);
		unlink(wal);
		unlink(shm);
		free(wal);
		free(shm);
	}

	if (store_open(results, 1, &st, e) < 0 || store_lock(st, e) < 0 ||
	    store_set_durable(st, ex.durable_power, e) < 0) {
		code = e->code;
		goto out;
	}
	if (store_has_experiment(st)) {
		char *hash = NULL;
		store_meta_get(st, "config_hash", &hash);
		if (hash && strcmp(hash, ex.hash)) {
			if (!o->force) {
				char *old = NULL;
				store_meta_get(st, "config_text", &old);
				config_diff(&ex, old ? old : "", e);
				free(old);
				free(hash);
				code = e->code;
				goto out;
			}
			kiln_warn("the config changed; --force continues the stored schedule (its keys, pexecs and "
				  "iterations) with the new config's settings");
			forced = 1;
		}
		free(hash);
		schedule_free(&sc);
		int retried = store_retry(st, o->retry_failed, o->retry_tainted, e);
		if (retried < 0 || store_load_schedule(st, &sc, e) < 0) {
			code = e->code;
			goto out;
		}
		if (retried > 0 && !o->quiet)
			kiln_note("%d pexec(s) %s will run again", retried,
				  o->retry_failed && o->retry_tainted ? "that failed, timed out or were tainted"
				  : o->retry_failed ? "that failed or timed out" : "that were tainted");
		int reset = store_reset_running(st, e);
		if (reset > 0 && !o->quiet)
			kiln_note("%d pexec(s) left running by an interrupted run will be rerun", reset);
	} else {
		/* the stored schedule is the one that runs, fresh or resumed */
		if (store_init(st, &ex, &sc, sched_order_name(o->order), e) < 0 ||
		    (o->quick && store_meta_set(st, "quick", "1", e) < 0)) {
			code = e->code;
			goto out;
		}
		schedule_free(&sc);
		if (store_load_schedule(st, &sc, e) < 0) {
			code = e->code;
			goto out;
		}
	}

	/* every key's context, and its plugin's preparation, before anything runs */
	kc = xcalloc(sc.nkeys, sizeof(*kc));
	for (size_t k = 0; k < sc.nkeys; k++) {
		const struct vm_conf *vm = find_vm(&ex, sc.keys[k].vm);
		const struct bench_conf *b = find_bench(&ex, sc.keys[k].bench);
		if (!vm || !b) {
			kerr_setc(e, KEXIT_CONFIG, "%s: key %s:%s is in the stored schedule but not in the config",
				  config, sc.keys[k].bench, sc.keys[k].vm);
			code = KEXIT_CONFIG;
			goto out;
		}
		pexec_key_init(&kc[k], &ex, vm, b, sc.keys[k].iterations, 0);
		if (vm->pl && vm->pl->prepare && vm->pl->prepare(&kc[k].pc, e) < 0) {
			kerr_wrap(e, "preparing %s:%s", b->name, vm->name);
			code = e->code;
			goto out;
		}
	}

	if (forced) {
		/* keys all found and prepared: keep the earlier config beside the new one */
		char *old = NULL, *oldhash = NULL;
		store_meta_get(st, "config_text", &old);
		store_meta_get(st, "config_hash", &oldhash);
		char name[64];
		for (int n = 1;; n++) {
			char *have = NULL;
			snprintf(name, sizeof(name), "config_text_before_force_%d", n);
			if (store_meta_get(st, name, &have) < 0 || !have)
				break;
			free(have);
		}
		if (store_meta_set(st, name, old ? old : "", e) < 0 ||
		    store_meta_set(st, "config_text", ex.text, e) < 0 || store_meta_set(st, "config_hash", ex.hash, e) < 0) {
			free(old);
			free(oldhash);
			code = e->code;
			goto out;
		}
		free(old);
		free(oldhash);
	}

	memset(&rs, 0, sizeof(rs));
	rs.ex = &ex;
	rs.sc = &sc;
	rs.st = st;
	rs.o = o;
	rs.prog.tty = isatty(2);
	rs.prog.quiet = o->quiet;
	rs.prog.total = sc.n;
	for (size_t i = 0; i < sc.n; i++)
		if (sc.items[i].status != PX_PENDING && sc.items[i].status != PX_RUNNING)
			rs.prog.done_before++;

	exec_become_subreaper();
	install_signals();
	rs.env_hash = xcalloc(sc.nkeys, sizeof(*rs.env_hash));
	rs.session_hash = xcalloc(sc.nkeys, sizeof(*rs.session_hash));
	/* a resumed run compares its pexecs with the first ones, whenever they ran */
	for (size_t k = 0; k < sc.nkeys; k++)
		store_key_env_hash(st, sc.keys[k].id, rs.env_hash[k]);
	rs.cwd = path_dirname(ex.path);
	rs.results = results;
	json_t *tuned = NULL;
	if (run_prepare_machine(&rs, config, results, &tuned, e) < 0) {
		code = e->code ? e->code : KEXIT_FAIL;
		goto finish;
	}
	if (store_prepare(st, e) < 0) {
		code = e->code ? e->code : KEXIT_STORE;
		goto finish;
	}
	run_shed_memory();
	for (size_t i = 0; i < sc.n && code == KEXIT_OK; i++) {
		struct sched_item *it = &sc.items[i];
		if (it->status != PX_PENDING && it->status != PX_RUNNING)
			continue;
		if (exec_interrupted) {
			kerr_setc(e, KEXIT_INTERRUPTED, "interrupted; `kiln run %s` resumes", config);
			code = KEXIT_INTERRUPTED;
			break;
		}
		if ((o->max_pexecs && ran >= o->max_pexecs) || (o->reboot && ran >= 1))
			break;
		/* the pexec after this one, marked running by this one's commit */
		long next_id = 0;
		if (!o->reboot && !(o->max_pexecs && ran + 1 >= o->max_pexecs))
			for (size_t j = i + 1; j < sc.n; j++)
				if (sc.items[j].status == PX_PENDING || sc.items[j].status == PX_RUNNING) {
					next_id = sc.items[j].id;
					break;
				}
		/* a tainted pexec is rerun at once when the config asks, a bounded number of times */
		int r, tries = 0;
		do
			r = run_one(&rs, it, &kc[it->key], marked_id == it->id,
				    ex.platform.rerun_tainted ? 0 : next_id, tries > 0, e);
		while (r == ONE_TAINTED && ex.platform.rerun_tainted && ++tries < 3 && !exec_interrupted);
		marked_id = ex.platform.rerun_tainted ? 0 : next_id;
		ran++;
		if (r == ONE_INTERRUPTED || r == ONE_FATAL)
			code = e->code ? e->code : KEXIT_FAIL;
		else
			it->status = r == ONE_OK ? PX_OK : r == ONE_TAINTED ? PX_TAINTED : PX_FAILED;
	}
finish:
	/* nothing runs once the loop is left: the pexec marked next is pending again */
	if (st)
		store_reset_running(st, NULL);
	run_release_machine(&rs, tuned);
	progress_end(&rs.prog);
	if (code == KEXIT_OK) {
		size_t pending = 0;
		for (size_t i = 0; i < sc.n; i++)
			if (sc.items[i].status == PX_PENDING || sc.items[i].status == PX_RUNNING)
				pending++;
		if (!pending && ran) {
			char ts[32];
			iso_time(wall_ns(), ts, sizeof(ts));
			store_meta_set(st, "ended", ts, NULL);
			/* the machine at the end, beside its state at the start */
			record_audit(st, &ex, "end", NULL);
		}
		if (!o->quiet)
			kiln_note("%s: %zu pexecs done, %zu failed, %zu tainted, %zu pending", results,
				  sc.n - pending - rs.failed - rs.tainted, rs.failed, rs.tainted, pending);
		if (!pending && ran) {
			run_notify(&ex, "complete", "%s complete: %zu pexecs, %zu failed, %zu tainted", results, sc.n,
				   rs.failed, rs.tainted);
		}
		if (o->reboot && run_reboot_step(&ex, config, results, pending, e) < 0)
			code = e->code ? e->code : KEXIT_FAIL;
		if (rs.failed) {
			kerr_setc(e, KEXIT_FAIL,
				  "%zu pexec(s) failed: `kiln status --failures %s` lists them, "
				  "`kiln run %s --retry-failed` runs them again",
				  rs.failed, results, config);
			code = KEXIT_FAIL;
		}
	}
out:
	free(rs.env_hash);
	free(rs.session_hash);
	free(rs.cwd);
	if (kc)
		for (size_t k = 0; k < sc.nkeys; k++)
			pexec_key_release(&kc[k]);
	free(kc);
	schedule_free(&sc);
	store_close(st);
	free(results);
	config_free(&ex);
	return code;
}
