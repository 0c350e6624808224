/*
 * run-pexec.c - one pexec of `kiln run`, in the order of DESIGN.md's flow:
 *
 *   prepare (the user's processes ended, a fresh home and instrumentation
 *   folder, argv and env) ─▶ the machine checks ─▶ spawn and read the
 *   result stream ─▶ what the pexec came to (exit, stream, timeout) ─▶ its
 *   instrumentation, read by the unprivileged collector (privsep.h) ─▶
 *   taints ─▶ one transaction ─▶ progress and notices.
 *
 * Each step is a function over `struct one`, the pexec in flight.
 */
#include "run-state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "gauge.h"
#include "plugin.h"
#include "privsep.h"
#include "record.h"
#include "safefs.h"
#include "stream.h"

void run_notify(const struct experiment *ex, const char *event, const char *fmt, ...)
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

/* the pexec in flight */
struct one {
	struct run_state *rs;
	const struct sched_item *it;
	struct pexec_key *k;
	char label[32];
	char *instr;                  /* KILN_INSTR_DIR, NULL: none */
	const char *slot;             /* a duet's: its own folder in the machine's instrumentation folder, NULL: none */
	int fresh_done;               /* a duet's second: the machine was renewed for both by the first */
	struct strvec argv, env;
	struct strbuf cpus;
	struct stream s;
	int have_stream;
	struct gauge g;               /* a gauge VM: the iterations its program prints */
	int have_gauge;
	struct exec_opts eo;
	struct exec_result res;
	int xr;                       /* exec_run's return */
	struct kerr xe;
	int64_t wall0, suspend0;      /* wall clock and boot-minus-monotonic at the start */
	struct pexec_result pr;
	struct ps_result coll;
	struct strbuf err, taint, unavail;
	int64_t one_wall;
};

extern char **environ;

static size_t pending_count(const struct schedule *sc)
{
	size_t n = 0;
	for (size_t i = 0; i < sc->n; i++)
		n += sc->items[i].status == PX_PENDING || sc->items[i].status == PX_RUNNING;
	return n;
}

/* the step's environment: kiln's (pre/post_execution) or the VM's, then the KILN_* variables */
static void step_env(const struct run_state *rs, const struct step *st, struct strvec *env)
{
	const struct vm_conf *vm = st->pc ? st->pc->vm : st->vm;
	if (vm && !st->kiln_side)
		pexec_vm_env(vm, rs->have_user ? &rs->user : NULL, env);
	else
		for (char **p = environ; p && *p; p++)
			sv_push(env, *p);
	char buf[32];
	sv_setenv(env, "KILN_STEP", st->what);
	sv_setenv(env, "KILN_RESULTS", rs->results);
	sv_setenv(env, "KILN_CONFIG", rs->ex->path);
	snprintf(buf, sizeof(buf), "%zu", pending_count(rs->sc));
	sv_setenv(env, "KILN_PENDING", buf);
	if (vm) {
		sv_setenv(env, "KILN_VM", vm->name);
		sv_setenv(env, "KILN_VARIANT", vm->variant);
	}
	if (st->pc) {
		const struct plugin_ctx *pc = st->pc;
		char *key = xasprintf("%s:%s:%s", pc->bench->name, vm->name, vm->variant);
		sv_setenv(env, "KILN_BENCHMARK", pc->bench->name);
		sv_setenv(env, "KILN_KEY", key);
		sv_setenv(env, "KILN_PARAM", pc->param);
		snprintf(buf, sizeof(buf), "%ld", pc->iterations);
		sv_setenv(env, "KILN_ITERATIONS", buf);
		sv_setenv(env, "KILN_BENCH_DIR", pc->bench_dir);
		free(key);
	}
	if (st->label)
		sv_setenv(env, "KILN_PEXEC", st->label);
}

/* one command's argv: a key's or VM's step gets its placeholders substituted */
static void step_argv(const struct step *st, const struct strvec *cmds, size_t *i, struct strvec *argv)
{
	struct bench_conf none = { .name = "", .param = "" };
	struct plugin_ctx vc = { .vm = st->vm, .bench = &none, .param = "", .bench_dir = "",
				 .vm_path = st->vm ? st->vm->resolved : NULL };
	const struct plugin_ctx *pc = st->kiln_side ? NULL : st->pc ? st->pc : st->vm ? &vc : NULL;
	for (; *i < cmds->n && *cmds->v[*i]; (*i)++) {
		struct strbuf w = STRBUF_INIT;
		if (pc)
			plugin_subst(pc, st->label, cmds->v[*i], &w);
		else
			sb_adds(&w, cmds->v[*i]);
		sv_push(argv, sb_str(&w));
		sb_release(&w);
	}
	(*i)++;
}

int run_step(struct run_state *rs, const struct strvec *cmds, const struct step *st, struct kerr *e)
{
	size_t i = 0;
	int theirs = !st->kiln_side; /* a VM's or benchmark's step runs as the benchmark user */
	while (i < cmds->n) {
		struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
		step_argv(st, cmds, &i, &argv);
		step_env(rs, st, &env);
		struct exec_opts eo;
		exec_opts_plain(&eo, sv_array(&argv), sv_array(&env), 600);
		eo.search = 1;
		if (theirs) {
			const char *cwd = st->pc ? config_cwd(st->pc->vm, st->pc->bench) : config_cwd(st->vm, NULL);
			eo.cwd = rs->cwd;
			pexec_user_opts(rs->have_user ? &rs->user : NULL, &eo);
			if (cwd)
				eo.cwd = cwd;
			if (st->label) /* a pexec's prepare and conclude: on its machine, bounded as it is */
				run_isolate_opts(rs, &eo);
		}
		eo.survives = st->survives;
		struct exec_result r;
		memset(&r, 0, sizeof(r));
		int rc = exec_run(&eo, &r, e);
		if (rc == 0 && exec_interrupted > eo.survives && !(r.exited && !r.status))
			rc = kerr_setc(e, KEXIT_INTERRUPTED, "interrupted in the %s command `%s`", st->what,
				       esc(ESC_TERM, argv.v[0]));
		else if (rc == 0 && (!r.exited || r.status))
			rc = kerr_set(e, "%s command `%s` failed (%s %d): %s", st->what, esc(ESC_TERM, argv.v[0]),
				      r.timed_out ? "timed out after 600 s," : r.exited ? "exit status" : "signal",
				      r.exited ? r.status : r.signal, esc(ESC_TERM, sb_str(&r.err)));
		else if (rc < 0)
			kerr_wrap(e, "%s command", st->what);
		exec_result_release(&r);
		sv_clear(&argv);
		sv_clear(&env);
		if (theirs && rs->have_user)
			platform_user_kill_all(&rs->user, NULL); /* nothing of a step outlives it */
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* how long the machine has been suspended since boot (CLOCK_BOOTTIME runs on, MONOTONIC does not) */
static int64_t suspended_ns(void)
{
	struct timespec b, m;
	clock_gettime(CLOCK_BOOTTIME, &b);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((int64_t)b.tv_sec - m.tv_sec) * 1000000000LL + (b.tv_nsec - m.tv_nsec);
}

static int result_stream_cb(void *ctx, const char *data, size_t n)
{
	return stream_feed(ctx, data, n) < 0 ? 1 : 0;
}

static int gauge_output_cb(void *ctx, const char *data, size_t n)
{
	return gauge_feed(ctx, data, n) < 0 ? 1 : 0;
}

/* a gauge VM: its program's stdout or stderr read line by line as kiln drains it */
static int one_gauge_prepare(struct one *p, struct kerr *e)
{
	const struct pexec_key *k = p->k;
	if (!k->gauge)
		return 0;
	if (gauge_init(&p->g, k->gauge, k->counted ? k->pc.iterations : 0, p->rs->sc->warmup_iterations, e) < 0)
		return kerr_wrap(e, "%s: vms.%s", k->key, k->pc.vm->name);
	p->have_gauge = 1;
	p->eo.output_fd = k->gauge->from_stderr ? 2 : 1;
	p->eo.on_output = gauge_output_cb;
	p->eo.output_ctx = &p->g;
	return 0;
}

static void on_runner_start(void *ctx, pid_t pid)
{
	struct one *p = ctx;
	session_runner(&p->rs->sess, pid, p->eo.set_user ? p->eo.uid : geteuid());
}

/* ---- the steps ---- */

/*
 * A pexec's step that the interrupt ended (before its runner, or after it
 * but before anything of it was stored) is said as the pexec discarded.
 */
static void step_discarded(const struct one *p, struct kerr *e)
{
	if (e->code == KEXIT_INTERRUPTED)
		run_discarded_error(e, p->label, p->k->key);
}

/* marked running, pre_execution, the user's slate cleaned, folders, argv and env */
static int one_prepare(struct one *p, int marked, struct kerr *e)
{
	struct run_state *rs = p->rs;
	struct step pre = { "pre_execution", &p->k->pc, NULL, p->label, 1, 0 };
	struct step prep = { "prepare", &p->k->pc, NULL, p->label, 0, 0 };
	if ((!marked && p->it->id && store_mark_running(rs->st, p->it->id, e) < 0) ||
	    run_step(rs, &rs->ex->pre_exec, &pre, e) < 0 ||
	    (rs->mach.kind != MACHINE_NONE && !p->fresh_done && run_isolate_fresh(rs, e) < 0) ||
	    run_step(rs, &p->k->pc.vm->prepare, &prep, e) < 0 || run_step(rs, &p->k->pc.bench->prepare, &prep, e) < 0) {
		step_discarded(p, e);
		return -1;
	}
	if (pexec_prepare(rs->ex, p->k, p->label, rs->sess.tag, rs->have_user ? &rs->user : NULL, &rs->mach, &p->instr,
			  &p->env, e) < 0)
		return -1;
	if (p->slot && p->instr && rs->mach.kind != MACHINE_NONE) {
		char *own = machine_instr_slot(&rs->mach, p->slot, e);
		if (!own)
			return -1;
		free(p->instr);
		p->instr = own;
		sv_setenv(&p->env, "KILN_INSTR_DIR", own);
	}
	p->k->pc.instr_dir = p->instr;
	if (plugin_build(&p->k->pc, p->label, &p->argv, &p->env, e) < 0)
		return kerr_wrap(e, "%s", p->k->key);
	stream_init(&p->s, p->k->pc.iterations);
	p->have_stream = 1;
	pexec_opts(rs->ex, p->k->whole, &p->cpus, &p->eo);
	p->eo.argv = sv_array(&p->argv);
	p->eo.envp = sv_array(&p->env);
	p->eo.on_stream = result_stream_cb;
	p->eo.stream_ctx = &p->s;
	p->eo.on_start = on_runner_start;
	p->eo.start_ctx = p;
	p->eo.cwd = rs->cwd;
	pexec_user_opts(rs->have_user ? &rs->user : NULL, &p->eo);
	if (config_cwd(p->k->pc.vm, p->k->pc.bench))
		p->eo.cwd = config_cwd(p->k->pc.vm, p->k->pc.bench);
	run_isolate_opts(rs, &p->eo);
	run_isolate_watch(rs, &p->eo);
	const struct run_hooks *h = rs->o->hooks;
	if (h && h->spawn && h->spawn(h->ctx, p->k->key, &p->eo, e) < 0)
		return -1;
	return one_gauge_prepare(p, e);
}

/* the machine: wait for it to be ready, note what could change */
static int one_machine(struct one *p, struct kerr *e)
{
	struct run_state *rs = p->rs;
	if (!rs->plat_open)
		return 0;
	struct strbuf plog = STRBUF_INIT;
	int r = platform_before_pexec(&rs->plat, &plog, e);
	if (r < 0)
		kerr_wrap(e, "platform check before %s pexec %s", p->k->key, p->label);
	else if (r > 0 && !rs->o->quiet) {
		progress_end(&rs->prog);
		kiln_warn("%s", sb_str(&plog));
	}
	sb_release(&plog);
	return r < 0 ? -1 : 0;
}

static void one_spawn(struct one *p)
{
	struct run_state *rs = p->rs;
	progress_show(&rs->prog, p->k->key, p->label, "running", 0);
	p->wall0 = wall_ns();
	p->suspend0 = suspended_ns();
	session_arm(&rs->sess);
	p->xr = exec_run(&p->eo, &p->res, &p->xe);
	session_runner(&rs->sess, 0, 0);
}

/*
 * A gauge's iterations: what the output gave, kept whatever the pexec came
 * to; output that gave no iterations, too many, a bad number or another
 * count than asked fails the pexec with the gauge's reason.
 */
static void one_gauge_outcome(struct one *p)
{
	struct pexec_result *pr = &p->pr;
	struct gauge *g = &p->g;
	int gr = gauge_finish(g);
	if (gr < 0 && pr->status == PX_OK) {
		pr->status = PX_FAILED;
		sb_addf(&p->err, "%s", g->error.buf);
	} else if (gr < 0 && !p->res.timed_out && p->xr == 0) {
		sb_addf(&p->err, "; %s", g->error.buf);
	}
	pr->wall_ns = g->wall;
	pr->n = g->n;
}

/* exit, timeout and result stream: the status and the error of the pexec */
static void one_outcome(struct one *p)
{
	struct pexec_result *pr = &p->pr;
	const struct exec_result *res = &p->res;
	pr->wall_start_ns = p->wall0;
	pr->duration_s = (double)(res->end_ns - res->start_ns) / 1e9;
	pr->exit_status = res->status;
	pr->signal = res->signal;
	pr->user_s = res->user_s;
	pr->sys_s = res->sys_s;
	pr->maxrss_kb = res->maxrss_kb;
	pr->personality = res->personality;
	pr->out = res->out.buf;
	pr->out_len = res->out.len;
	pr->err = res->err.buf;
	pr->err_len = res->err.len;
	pr->status = PX_OK;
	if (p->xr < 0) {
		pr->status = PX_FAILED;
		sb_addf(&p->err, "%s", sb_str(&p->xe.msg));
	} else if (res->timed_out) {
		pr->status = PX_TIMEOUT;
		sb_addf(&p->err, "timed out after %g s; the process group was killed", p->rs->ex->limits.timeout_s);
	} else if (!res->exited || (res->status && !p->k->pc.vm->ignore_exit)) {
		pr->status = PX_FAILED;
		if (res->exited)
			sb_addf(&p->err, "exit status %d", res->status);
		else
			sb_addf(&p->err, "killed by signal %d (%s)", res->signal, strsignal(res->signal));
	}
	int hit = 0;
	run_isolate_after(p->rs, res, &hit, &p->err);
	if (hit)
		pr->status = PX_FAILED;
	if (p->have_gauge) {
		one_gauge_outcome(p);
		return;
	}
	if (p->k->whole) {
		p->one_wall = res->end_ns - res->start_ns;
		if (p->xr == 0 && !res->timed_out) {
			pr->wall_ns = &p->one_wall;
			pr->n = 1;
		}
		return;
	}
	struct stream *s = &p->s;
	int sr = stream_finish(s);
	if (sr < 0 && pr->status == PX_OK) {
		pr->status = PX_FAILED;
		sb_addf(&p->err, "%s", s->error.buf);
	} else if (sr < 0 && !res->timed_out) {
		sb_addf(&p->err, "; %s", s->error.buf);
	}
	pr->wall_ns = s->wall;
	pr->n = s->n;
	pr->counter_names = s->counter_names;
	pr->ncounters = s->ncounters;
	pr->counters = s->counters;
	pr->clock = s->clock;
	for (size_t u = 0; u < s->unavailable.n; u++)
		sb_addf(&p->unavail, "%s%s", u ? "," : "", s->unavailable.v[u]);
	pr->unavailable = p->unavail.buf;
}

/* does the folder hold anything? (names only: kiln reads nothing in it) */
static int dir_has_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int any = 0;
	while (d && !any && (de = readdir(d)))
		any = strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return any;
}

/* keep_log: <results>.logs/KEY/PEXEC/, made by kiln below the results' folder */
static int logs_dir(const struct one *p)
{
	const char *results = p->rs->results;
	char *dir = path_dirname(results);
	const char *base = strrchr(results, '/') ? strrchr(results, '/') + 1 : results;
	struct strbuf rel = STRBUF_INIT;
	sb_addf(&rel, "%s.logs/", base);
	for (const char *c = p->k->key; *c; c++)
		sb_addc(&rel, *c == '/' ? '_' : *c);
	sb_addf(&rel, "/%s", p->label);
	struct kerr e = KERR_INIT;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = dfd < 0 ? -1 : sfs_own_dirs_at(dfd, dir, rel.buf, 0755, &e);
	if (fd < 0)
		kiln_warn("keep_log: cannot keep the logs of %s pexec %s: %s", p->k->key, p->label,
			  e.msg.len ? e.msg.buf : strerror(errno));
	if (dfd >= 0)
		close(dfd);
	kerr_release(&e);
	sb_release(&rel);
	free(dir);
	return fd;
}

/* the external parser command, its placeholders filled */
static void parser_argv(const struct one *p, struct strvec *argv)
{
	const struct vm_conf *vm = p->k->pc.vm;
	struct plugin_ctx pc = p->k->pc;
	pc.instr_dir = p->instr;
	for (size_t i = 0; i < vm->parser.n; i++) {
		struct strbuf sb = STRBUF_INIT;
		plugin_subst(&pc, p->label, vm->parser.v[i], &sb);
		sv_push(argv, sb.buf);
		sb_release(&sb);
	}
}

/*
 * What the pexec left behind, read by the collector as the benchmark user
 * (privsep.h), after every process of that user has ended.  Nothing to read
 * costs nothing: no collector starts.
 */
static void one_collect(struct one *p)
{
	struct run_state *rs = p->rs;
	const struct experiment *ex = rs->ex;
	const struct vm_conf *vm = p->k->pc.vm;
	int stderr_stats = vm->stats_from && !strcmp(vm->stats_from, "stderr") && p->res.err.len;
	char *seen = p->instr ? machine_view(&rs->mach, p->instr) : NULL;
	int files = seen && dir_has_files(seen);
	free(seen);
	if (!files && !stderr_stats && !vm->parser.n)
		return;
	struct kerr e = KERR_INIT;
	if (rs->have_user && platform_user_kill_all(&rs->user, &e) < 0) {
		sb_addf(&p->coll.error, "instrumentation not read: %s", sb_str(&e.msg));
		kerr_release(&e);
		return;
	}
	struct strvec pargv = STRVEC_INIT;
	struct ps_request rq;
	memset(&rq, 0, sizeof(rq));
	rq.dir = p->instr;
	rq.pl = vm->pl;
	rq.stats_files = vm->stats_from && !strcmp(vm->stats_from, "file");
	rq.stats_text = stderr_stats ? p->res.err.buf : NULL;
	rq.stats_len = stderr_stats ? p->res.err.len : 0;
	if (vm->parser.n) {
		parser_argv(p, &pargv);
		rq.parser_argv = sv_array(&pargv);
		rq.parser_envp = sv_array(&p->env);
	}
	rq.keep_log = vm->keep_log && files;
	rq.set_user = rs->have_user;
	rq.uid = rs->user.uid;
	rq.gid = rs->user.gid;
	rq.join_ns = rs->mach.kind != MACHINE_NONE ? rs->mach.join : NULL;
	ps_bounds_of(&rq.b, &ex->limits, p->k->pc.iterations);
	int logs = rq.keep_log ? logs_dir(p) : -1;
	if (rq.keep_log && logs < 0)
		rq.keep_log = 0;
	if (ps_collect(&rq, logs, &p->coll, &e) < 0)
		sb_addf(&p->coll.error, "%s", sb_str(&e.msg));
	if (p->coll.log_error.len && !rs->o->quiet) {
		progress_end(&rs->prog);
		kiln_warn("%s pexec %s: %s", p->k->key, p->label, p->coll.log_error.buf);
	}
	if (logs >= 0)
		close(logs);
	sv_clear(&pargv);
	kerr_release(&e);
}

/*
 * The runner's cpu_ns (the process's CPU time during each iteration, JIT
 * and GC threads included) becomes the per-iteration series cpu.time (s),
 * beside the wall time: an iteration that waited shows less CPU than wall.
 */
static void one_cpu_series(struct one *p)
{
	const struct stream *s = &p->s;
	if (p->k->whole || !s->cpu)
		return;
	struct rec_sink sink = rec_list_sink(&p->coll.recs);
	for (size_t i = 0; i < s->n; i++) {
		if (s->cpu[i] == INT64_MIN)
			continue;
		struct kiln_rec r = { .kind = REC_ITER, .iter = (long)i, .name = "cpu.time", .unit = "s" };
		r.value = (double)s->cpu[i] / 1e9;
		sink.emit(sink.ctx, &r);
	}
}

/*
 * A gauge's criteria (RebenchLog's, time's user and sys) become
 * per-iteration series of the iterations it ended; the process's own wall
 * time stays a per-pexec scalar beside exit status, user and system time.
 */
static void one_gauge_records(struct one *p)
{
	if (!p->have_gauge)
		return;
	struct rec_sink sink = rec_list_sink(&p->coll.recs);
	for (size_t i = 0; i < p->g.recs.n; i++)
		if (p->g.recs.v[i].iter < (long)p->g.n)
			sink.emit(sink.ctx, &p->g.recs.v[i]);
	if (p->xr == 0) {
		struct kiln_rec r = { .kind = REC_PEXEC, .name = "wall_time", .unit = "s" };
		r.value = (double)(p->res.end_ns - p->res.start_ns) / 1e9;
		sink.emit(sink.ctx, &r);
	}
}

static void add_taint(struct one *p, const char *why)
{
	sb_addf(&p->taint, "%s%s", p->taint.len ? "; " : "", why);
	if (p->pr.status == PX_OK)
		p->pr.status = PX_TAINTED;
}

/* what the machine's checks after the pexec say (once for a duet's two) */
static void one_taint_machine(struct one *p)
{
	struct run_state *rs = p->rs;
	if (rs->plat_open && platform_after_pexec(&rs->plat, &p->taint) > 0 && p->pr.status == PX_OK)
		p->pr.status = PX_TAINTED;
}

/*
 * What may have disturbed the measurement: the machine, kiln itself.  (What
 * the pexec ran is its provenance, checked once per session: run-prov.c.)
 */
static void one_taint(struct one *p, int machine)
{
	struct run_state *rs = p->rs;
	if (machine)
		one_taint_machine(p);
	/* a whole-process time is kiln's clock: a stopped kiln reaps late */
	if (p->k->whole && exec_continued)
		add_taint(p, "kiln was stopped (SIGSTOP/SIGTSTP) while the process ran: its time includes the pause");
	if (suspended_ns() - p->suspend0 > 1000000)
		add_taint(p, "the machine was suspended while the pexec ran");
	if (rs->ex->platform.aslr == ASLR_OFF && p->pr.status == PX_OK &&
	    (p->res.personality < 0 || !(p->res.personality & ADDR_NO_RANDOMIZE))) {
		p->pr.status = PX_FAILED;
		sb_addf(&p->err, "ASLR off was asked for but the child's personality is %#x", p->res.personality);
	}
}

static int one_commit(struct one *p, long next_id, int rerun, struct kerr *e)
{
	struct pexec_result *pr = &p->pr;
	pr->taint = p->taint.len ? p->taint.buf : NULL;
	pr->env_hash = p->rs->program[p->it->key][0] ? p->rs->program[p->it->key] : NULL;
	pr->error = p->err.len ? p->err.buf : NULL;
	/* the store adds up the records of a name and iteration: in one unit (a runner's ms and another file's s) */
	rec_list_same_units(&p->coll.recs, &p->coll.error);
	pr->instr_error = p->coll.error.len ? p->coll.error.buf : NULL;
	pr->records = &p->coll.recs;
	pr->next_id = next_id;
	pr->rerun = rerun;
	struct step post = { "post_execution", &p->k->pc, NULL, p->label, 1, 0 };
	if (run_step(p->rs, &p->rs->ex->post_exec, &post, e) < 0) {
		step_discarded(p, e);
		return ONE_FATAL;
	}
	if (store_commit_pexec(p->rs->st, p->it->id, pr, e) < 0)
		return ONE_FATAL;
	return pr->status == PX_OK ? ONE_OK : pr->status == PX_TAINTED ? ONE_TAINTED : ONE_FAILED;
}

/* did the runner count the counter asked for as name, or say it is unavailable? */
static int counter_answered(const struct one *p, const char *name)
{
	size_t l = strlen(name);
	for (size_t i = 0; i < p->pr.ncounters; i++) {
		const char *c = p->pr.counter_names[i];
		if (!strcmp(c, name) || (!strncmp(c, name, l) && !strcmp(c + l, ":u")))
			return 1;
	}
	for (size_t i = 0; p->have_stream && i < p->s.unavailable.n; i++)
		if (!strcmp(p->s.unavailable.v[i], name))
			return 1;
	return 0;
}

/*
 * platform.counters that a key's runner neither counted nor called
 * unavailable (runners of VMs without libkiln's counters ignore
 * KILN_COUNTERS): said once per key, not dropped without a word.
 */
static void one_counters_said(struct one *p)
{
	struct run_state *rs = p->rs;
	size_t k = (size_t)(p->k - rs->kc);
	const struct strvec *want = &rs->ex->platform.counters;
	if (!want->n || rs->counters_said[k] || p->pr.status != PX_OK)
		return;
	rs->counters_said[k] = 1;
	struct strbuf miss = STRBUF_INIT;
	for (size_t i = 0; i < want->n; i++)
		if (!counter_answered(p, want->v[i]))
			sb_addf(&miss, "%s%s", miss.len ? ", " : "", want->v[i]);
	if (miss.len && !rs->o->quiet) {
		progress_end(&rs->prog);
		kiln_warn("%s: platform.counters %s: %s (see docs/counters.md for the runners that count)", p->k->key,
			  p->k->whole ? "are not recorded for a whole-process plugin" : "not recorded: its runner neither "
			  "counted them nor said they are unavailable", miss.buf);
	}
	sb_release(&miss);
}

/* the stored pexec: counted, said (failure, taint, instrumentation error), notified */
static void one_report(struct one *p, int outcome)
{
	struct run_state *rs = p->rs;
	const struct pexec_result *pr = &p->pr;
	const char *key = p->k->key, *st = pexec_status_name(pr->status);
	int quiet = rs->o->quiet;
	progress_count(&rs->prog, pr->duration_s, (long)pr->n);
	if (!quiet && (outcome != ONE_OK || pr->instr_error))
		progress_end(&rs->prog);
	if (outcome == ONE_FAILED) {
		rs->failed++;
		if (!quiet)
			kiln_warn("%s pexec %s %s: %s", key, p->label, st, pr->error);
		run_notify(rs->ex, "failure", "%s pexec %s %s: %s", key, p->label, st, pr->error);
	} else if (outcome == ONE_TAINTED) {
		rs->tainted++;
		if (!quiet)
			kiln_warn("%s pexec %s tainted: %s", key, p->label, pr->taint);
		run_notify(rs->ex, "taint", "%s pexec %s tainted: %s", key, p->label, pr->taint);
	} else if (pr->instr_error && !quiet) {
		kiln_warn("%s pexec %s: instrumentation: %s", key, p->label, pr->instr_error);
	}
	if (!quiet) {
		char what[64];
		snprintf(what, sizeof(what), "%s %zu it %.2fs", st, pr->n, pr->duration_s);
		progress_show(&rs->prog, key, p->label, what, outcome == ONE_FAILED);
	}
}

/* the key's conclude steps (kiln bench --conclude): after each of its runs, untimed, as prepare before */
static int one_conclude(struct one *p, struct kerr *e)
{
	struct step st = { "conclude", &p->k->pc, NULL, p->label, 0, 0 };
	return run_step(p->rs, &p->k->pc.bench->conclude, &st, e);
}

static void one_release(struct one *p)
{
	if (p->rs->mach.kind != MACHINE_NONE)
		run_isolate_clear(p->rs); /* the instrumentation folder is the machine's */
	else if (p->instr)
		rm_rf(p->instr);
	free(p->instr);
	sv_clear(&p->argv);
	sv_clear(&p->env);
	sb_release(&p->cpus);
	if (p->have_stream)
		stream_release(&p->s);
	if (p->have_gauge)
		gauge_release(&p->g);
	exec_result_release(&p->res);
	kerr_release(&p->xe);
	ps_result_release(&p->coll);
	sb_release(&p->err);
	sb_release(&p->taint);
	sb_release(&p->unavail);
}

#define DISCARDED "interrupted: pexec "

int run_discarded_error(struct kerr *e, const char *label, const char *key)
{
	return kerr_setc(e, KEXIT_INTERRUPTED, DISCARDED "%s of %s discarded, it stays pending", label, key);
}

int run_is_discarded_error(const struct kerr *e)
{
	return e->code == KEXIT_INTERRUPTED && !strncmp(sb_str(&e->msg), DISCARDED, strlen(DISCARDED));
}

/* the pexec measured and its taints known: stored, said, concluded */
static int one_finish(struct one *p, long next_id, int rerun, struct kerr *e)
{
	int outcome = one_commit(p, next_id, rerun, e);
	if (outcome != ONE_FATAL) {
		one_counters_said(p);
		one_report(p, outcome);
		if (one_conclude(p, e) < 0)
			outcome = ONE_FATAL; /* the run is stored; hyperfine stops at a failed conclusion too */
	}
	return outcome;
}

static void one_init(struct one *p, struct run_state *rs, const struct sched_item *it, struct pexec_key *k)
{
	memset(p, 0, sizeof(*p));
	p->rs = rs;
	p->it = it;
	p->k = k;
	p->xe = (struct kerr)KERR_INIT;
	if (it->id)
		schedule_pexec_label(it->num, rs->sc->pexecs, p->label, sizeof(p->label));
	else
		snprintf(p->label, sizeof(p->label), "warmup-%ld", it->num);
}

int run_pexec(struct run_state *rs, const struct sched_item *it, struct pexec_key *k, int marked, long next_id,
	      int rerun, struct kerr *e)
{
	struct one p;
	one_init(&p, rs, it, k);
	int outcome = ONE_FATAL;
	if (one_prepare(&p, marked, e) < 0 || one_machine(&p, e) < 0)
		goto out;
	if (exec_interrupted) {
		/* it never started: pending again, and the run stops as between two pexecs */
		store_reset_running(rs->st, NULL);
		outcome = ONE_UNSTARTED;
		goto out;
	}
	one_spawn(&p);
	if (exec_interrupted) {
		/* discarded: the pexec goes back to pending */
		store_reset_running(rs->st, NULL);
		run_discarded_error(e, p.label, k->key);
		outcome = ONE_INTERRUPTED;
		goto out;
	}
	one_outcome(&p);
	if (!it->id) {
		/* a warmup run: what it came to, and nothing kept */
		outcome = p.pr.status == PX_OK ? ONE_OK : ONE_FAILED;
		if (outcome == ONE_FAILED)
			kerr_set(e, "%s", p.err.len ? p.err.buf : "failed");
		else if (one_conclude(&p, e) < 0)
			outcome = ONE_FATAL;
		progress_show(&rs->prog, k->key, p.label, "warmup", 0);
		goto out;
	}
	one_collect(&p);
	one_cpu_series(&p);
	one_gauge_records(&p);
	one_taint(&p, 1);
	outcome = one_finish(&p, next_id, rerun, e);
out:
	one_release(&p);
	return outcome;
}

/*
 * ---- a duet: two pexecs at the same time (kiln compare --duet) ----
 *
 * Both are prepared as any pexec is, the machine checked once, then
 * started together (exec_run_pair), each pinned to a CPU of its own
 * (cpus[i]), watched to their end; the machine's checks after them taint
 * both alike; each is then stored, said and concluded as a pexec is.  The
 * session record names the second runner's group (session.h keeps one); the
 * first dies with kiln all the same (its parent-death signal).
 */
static void duet_spawn(struct one *p)
{
	struct run_state *rs = p[0].rs;
	char what[64];
	snprintf(what, sizeof(what), "duet with #%s", p[1].label);
	progress_show(&rs->prog, p[0].k->key, p[0].label, what, 0);
	for (int i = 0; i < 2; i++) {
		p[i].wall0 = wall_ns();
		p[i].suspend0 = suspended_ns();
	}
	session_arm(&rs->sess);
	const struct exec_opts *o[2] = { &p[0].eo, &p[1].eo };
	struct exec_result *const r[2] = { &p[0].res, &p[1].res };
	p[0].xr = p[1].xr = exec_run_pair(o, r, &p[0].xe);
	if (p[0].xr < 0)
		sb_adds(&p[1].xe.msg, sb_str(&p[0].xe.msg));
	session_runner(&rs->sess, 0, 0);
}

/* both measured: what each came to, its instrumentation, the taints (the machine's once, for both) */
static void duet_outcome(struct one *p)
{
	for (int i = 0; i < 2; i++) {
		one_outcome(&p[i]);
		one_collect(&p[i]);
		one_cpu_series(&p[i]);
		one_gauge_records(&p[i]);
	}
	one_taint_machine(&p[0]);
	if (p[0].taint.len)
		add_taint(&p[1], p[0].taint.buf);
	for (int i = 0; i < 2; i++)
		one_taint(&p[i], 0);
}

int run_duet(struct run_state *rs, const struct sched_item *const it[2], struct pexec_key *const k[2],
	     const char *const cpus[2], int out[2], struct kerr *e)
{
	struct one p[2];
	out[0] = out[1] = ONE_FATAL;
	for (int i = 0; i < 2; i++)
		one_init(&p[i], rs, it[i], k[i]);
	/*
	 * one machine, renewed once for both (a second renewal would empty what
	 * the first's prepare steps left), and an instrumentation folder each:
	 * before, both had the machine's one, and each pexec's records were
	 * read from both pexecs' files (a file of the same name, the other's)
	 */
	p[0].slot = "duet-a";
	p[1].slot = "duet-b";
	p[1].fresh_done = 1;
	if (one_prepare(&p[0], 0, e) < 0 || one_prepare(&p[1], 0, e) < 0 || one_machine(&p[0], e) < 0)
		goto out;
	for (int i = 0; i < 2; i++)
		p[i].eo.cpus = cpus[i];
	if (exec_interrupted) {
		store_reset_running(rs->st, NULL);
		out[0] = out[1] = ONE_UNSTARTED;
		goto out;
	}
	duet_spawn(p);
	if (exec_interrupted) {
		store_reset_running(rs->st, NULL);
		run_discarded_error(e, p[0].label, k[0]->key);
		out[0] = out[1] = ONE_INTERRUPTED;
		goto out;
	}
	duet_outcome(p);
	for (int i = 0; i < 2; i++) {
		out[i] = one_finish(&p[i], 0, 0, e);
		if (out[i] == ONE_FATAL)
			break;
	}
out:
	for (int i = 0; i < 2; i++)
		one_release(&p[i]);
	return out[0] == ONE_FATAL || out[1] == ONE_FATAL ? -1 : 0;
}
