/*
 * profile-run.c - the `kiln profile` command: each pexec under perf, its
 * samples read back, one report.
 *
 *   for each pexec:  pexec_build ──perf record -k mono -g -- ARGV──▶ DIR[/pexec-K]/perf.data
 *                    result stream (stream.c) + clock pairs ──▶ iteration windows
 *                    perf script -G, perf script (chains) ──▶ samples of that pexec
 *                    its perf map and jitdump copied beside
 *   all pexecs ──prof_report──▶ profile.json, text, results DB, gnuplot
 *
 * The results file's lock is held from before the first pexec (store_hold):
 * a profile never runs beside a kiln run of the experiment.
 * perf records in CLOCK_MONOTONIC (`-k mono`: the clock of V8's jitdump);
 * the runner's windows are mapped onto it (profile.c).  The runner works
 * in DIR/jit, where V8 writes its jitdump and the PyPy and LuaJIT runners
 * their markers; profile-jit.c turns the JIT logs into jitdumps there and
 * runs perf inject --jit, so that DIR is self-contained.  Files the VM left
 * in /tmp or in the benchmark user's home are opened without following a
 * link, only when they are regular files of the benchmark's user; with
 * platform.user, perf script and perf inject read them as that user (on a
 * perf.data in a stage folder of kiln's the user can read).
 */
#include "profile.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "cmd.h"
#include "config.h"
#include "dataset.h"
#include "flame.h"
#include "exec.h"
#include "pexec.h"
#include "platform.h"
#include "profile-jit.h"
#include "safefs.h"
#include "schedule.h"
#include "store.h"
#include "stream.h"

extern char **environ;

/* the result stream as kiln profile reads it */
struct prof_stream {
	struct stream st;        /* the protocol's reader: iterations, windows, CPU times */
	struct prof_clockmap map;/* the runner's clock against CLOCK_MONOTONIC */
	int64_t *arrival;        /* CLOCK_MONOTONIC when each iteration's line arrived */
	size_t narrival, aalloc;
};

/* one pexec of the profile */
struct prof_px {
	char *dir;               /* its perf.data and files: DIR, or DIR/pexec-K with several */
	char *jitdir;            /* dir/jit: the runner's working folder (jitdumps, jitted-*.so) */
	char *perfdata;          /* where perf record writes: dir/perf.data, or in stage */
	char *stage;             /* with a benchmark user: kiln's folder it may read (perf.data, jitdumps), else NULL */
	const struct puser *user;/* the benchmark user while the pexec is handled, else NULL */
	struct prof_clockmap map;/* the runner's clock against perf's */
	struct jitcode jc;       /* JIT'd code from the VM's logs (PyPy, LuaJIT) */
	size_t jit_named, jit_unnamed, jitted;
	struct prof_iter *it;
	size_t nit;
	const char *windows;     /* "runner" or "arrival" */
	size_t moved;            /* arrival windows pulled apart */
	int pid, personality;
	long split;
	struct strbuf how;
	json_t *files;
	size_t from, to;         /* its samples in the session's pscript */
};

struct prof_session {
	const struct profile_opts *o;
	struct experiment ex;
	int have_ex;
	const struct vm_conf *vm;
	const struct bench_conf *b;
	char *dir, *perf, *key;
	struct store *st;        /* the results file, held from the first pexec on (store_hold) */
	const char *event;
	struct pscript ps;
	struct prof_px *px;
	size_t npx;
};

static int prof_stream_cb(void *ctx, const char *data, size_t n)
{
	struct prof_stream *s = ctx;
	int64_t now = mono_ns();
	if (stream_feed(&s->st, data, n) < 0)
		return 1; /* a protocol violation ends the pexec, as under kiln run */
	if (s->map.clk < 0 && s->st.have_header)
		s->map.clk = stream_clock_id(s->st.clock);
	prof_clockmap_read(&s->map);
	for (; s->narrival < s->st.n; s->narrival++) {
		if (s->narrival == s->aalloc) {
			s->aalloc = s->aalloc ? s->aalloc * 2 : 256;
			s->arrival = xrealloc(s->arrival, s->aalloc * sizeof(*s->arrival));
		}
		s->arrival[s->narrival] = now;
	}
	return 0;
}

static void prof_stream_release(struct prof_stream *s)
{
	stream_release(&s->st);
	prof_clockmap_release(&s->map);
	free(s->arrival);
}

/*
 * What an earlier profile left in DIR that this one would mix with its
 * own: jitdumps and jitted-*.so, kept instrumentation, build ids, the
 * folders of its pexecs.
 */
static void prof_clean(const char *dir)
{
	static const char *const mine[] = { "jit", "instr", ".debug" };
	for (size_t i = 0; i < ARRAY_SIZE(mine); i++) {
		char *p = path_join(dir, mine[i]);
		rm_rf(p);
		free(p);
	}
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (star_match("pexec-*", de->d_name)) {
			char *p = path_join(dir, de->d_name);
			rm_rf(p);
			free(p);
		}
	if (d)
		closedir(d);
}

/* the config, the key, perf, the output folder, the event */
static int prof_open(struct prof_session *s, const struct profile_opts *o, struct kerr *e)
{
	memset(s, 0, sizeof(*s));
	s->o = o;
	pscript_init(&s->ps);
	if (config_load(o->config, kiln_datadir(), 1, &s->ex, e) < 0)
		return -1;
	s->have_ex = 1;
	if (pexec_find_key(&s->ex, o->key, &s->vm, &s->b, e) < 0)
		return -1;
	s->key = xasprintf("%s:%s:%s", s->b->name, s->vm->name, s->vm->variant);
	s->perf = find_in_path("perf");
	if (!s->perf)
		return kerr_set(e, "perf is not installed (Debian: linux-perf)");
	if (store_hold(s->ex.results, "profile", &s->st, e) < 0)
		return -1;
	if (mkdir_p(o->dir, 0755) < 0 || !(s->dir = realpath(o->dir, NULL)))
		return kerr_set(e, "%s: %s", o->dir, strerror(errno));
	prof_clean(s->dir);
	s->event = o->event ? o->event : plat_have_cycles(NULL) ? "cycles" : "cpu-clock";
	s->npx = o->pexecs > 0 ? (size_t)o->pexecs : 1;
	s->px = xcalloc(s->npx, sizeof(*s->px));
	for (size_t k = 0; k < s->npx; k++) {
		struct prof_px *p = &s->px[k];
		p->how = (struct strbuf)STRBUF_INIT;
		p->files = json_array();
		if (s->npx == 1) {
			p->dir = xstrdup(s->dir);
		} else {
			char sub[32];
			snprintf(sub, sizeof(sub), "pexec-%zu", k);
			p->dir = path_join(s->dir, sub);
		}
		p->jitdir = path_join(p->dir, "jit");
		p->perfdata = path_join(p->dir, "perf.data");
		prof_clockmap_init(&p->map);
		jitcode_init(&p->jc);
		if (mkdir_p(p->jitdir, 0755) < 0)
			return kerr_set(e, "%s: %s", p->jitdir, strerror(errno));
	}
	return 0;
}

/* perf record -k mono --call-graph fp|dwarf|lbr -e EVENT [-F HZ] -o PERFDATA */
static void prof_perf_argv(const struct prof_session *s, const char *perfdata, struct strvec *argv)
{
	sv_push(argv, s->perf);
	sv_push(argv, "record");
	sv_push(argv, "-k");
	sv_push(argv, "mono");
	sv_push(argv, "--call-graph");
	sv_push(argv, s->o->call_graph ? s->o->call_graph : "fp");
	sv_push(argv, "-N");
	sv_push(argv, "-q");
	sv_push(argv, "-e");
	sv_push(argv, s->event);
	if (s->o->freq > 0)
		sv_pushf(argv, "-F%d", s->o->freq);
	sv_push(argv, "-o");
	sv_push(argv, perfdata);
}

/* the pexec ran: its exit, its personality, its windows */
static int prof_check_exit(const struct pexec_spec *px, const struct exec_result *res, struct prof_stream *in,
			   struct kerr *e)
{
	if (in->st.error.len)
		return kerr_set(e, "%s under perf: %s", px->k.key, in->st.error.buf);
	if (!res->exited || res->status)
		return kerr_set(e, "%s under perf %s %d:\n%s%s", px->k.key,
				res->exited ? "exited with status" : "killed by signal", res->exited ? res->status : res->signal,
				sb_str(&res->err), sb_str(&res->out));
	if (!px->k.whole && stream_finish(&in->st) < 0)
		return kerr_set(e, "%s under perf: %s", px->k.key, in->st.error.buf);
	if (!(res->personality >= 0 && (res->personality & 0x0040000)))
		kiln_warn("the child's personality (%#x) does not show ADDR_NO_RANDOMIZE", res->personality);
	return 0;
}

/* the windows of the pexec's iterations (one for a whole-process pexec: the process) */
static void prof_set_windows(struct prof_px *p, const struct pexec_spec *px, const struct exec_result *res,
			     struct prof_stream *in)
{
	if (px->k.whole) {
		p->it = xmalloc(sizeof(*p->it));
		p->it[0] = (struct prof_iter){ res->start_ns, res->end_ns, res->end_ns - res->start_ns,
					       (int64_t)((res->user_s + res->sys_s) * 1e9) };
		p->nit = 1;
		p->windows = "runner";
		return;
	}
	prof_clockmap_read(&in->map); /* one more pair after the last line */
	p->nit = in->st.n;
	p->it = xcalloc(p->nit ? p->nit : 1, sizeof(*p->it));
	int runner = prof_windows(&in->st, in->arrival, &in->map, 1, p->it, &p->moved);
	/* the runner's windows lie within its process's life, or its header named the wrong clock */
	const int64_t slack = 1000000;
	if (runner && p->nit && (p->it[0].start_ns < res->start_ns - slack || p->it[p->nit - 1].end_ns > res->end_ns + slack)) {
		kiln_warn("%s: the runner's iteration windows do not fall within its run in its header's clock '%s': "
			  "placing iterations by when their lines arrived", px->k.key, in->st.clock);
		runner = prof_windows(&in->st, in->arrival, &in->map, 0, p->it, &p->moved);
	}
	p->windows = runner ? "runner" : "arrival";
}

/*
 * With a benchmark user, perf's steps that read its files (perf script:
 * /tmp/perf-PID.map; perf inject: its jitdumps) run as that user, on a
 * perf.data it can read: perf record writes into a folder of kiln's state
 * (<state>/profile/stage-PID.XXXXXX), root's, readable by the user's group
 * only.  Stages of a kiln that is gone are removed first.
 */
static int prof_stage(struct prof_px *p, const struct puser *u, struct kerr *e)
{
	char *base = sfs_state_path("profile", 0711, e);
	if (!base)
		return -1;
	DIR *d = opendir(base);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		long pid = strtol(de->d_name + (strncmp(de->d_name, "stage-", 6) ? 0 : 6), NULL, 10);
		if (!strncmp(de->d_name, "stage-", 6) && pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			char *old = path_join(base, de->d_name);
			rm_rf(old);
			free(old);
		}
	}
	if (d)
		closedir(d);
	char *tmpl = xasprintf("%s/stage-%ld.XXXXXX", base, (long)getpid());
	free(base);
	if (!mkdtemp(tmpl) || chown(tmpl, geteuid(), u->gid) < 0 || chmod(tmpl, 0750) < 0) {
		kerr_set(e, "%s: %s", tmpl, strerror(errno));
		free(tmpl);
		return -1;
	}
	p->stage = tmpl;
	free(p->perfdata);
	p->perfdata = path_join(tmpl, "perf.data");
	return 0;
}

/* pexec k under perf record: its perf.data and iteration windows */
static int prof_record(struct prof_session *s, size_t k, struct pexec_spec *px, struct kerr *e)
{
	struct prof_px *p = &s->px[k];
	char label[32];
	schedule_pexec_label((long)k, s->o->pexecs > 1 ? s->o->pexecs : 1, label, sizeof(label));
	if (pexec_build(px, &s->ex, s->vm, s->b, s->o->iterations, 1, label, e) < 0)
		return -1;
	p->user = px->have_user ? &px->user : NULL;
	if (p->user && prof_stage(p, p->user, e) < 0)
		return -1;
	struct strvec argv = STRVEC_INIT;
	prof_perf_argv(s, p->perfdata, &argv);
	if (pexec_under(px, &argv, e) < 0)
		return -1;
	px->eo.aslr = 0; /* correlatable addresses across runs, perf maps included */
	/* V8 writes its jitdump (jit-PID.dump) into the working directory: DIR/jit, or the user's home */
	if (!px->have_user)
		px->eo.cwd = p->jitdir;
	struct prof_stream in;
	memset(&in, 0, sizeof(in));
	stream_init(&in.st, px->k.pc.iterations);
	prof_clockmap_init(&in.map);
	px->eo.on_stream = prof_stream_cb;
	px->eo.stream_ctx = &in;
	if (!s->o->json)
		kiln_note("profiling %s (%s%ld iterations, %s) into %s", px->k.key, s->npx > 1 ? "pexec " : "",
			  px->k.pc.iterations, s->event, p->dir);
	struct exec_result res;
	int r = exec_run(&px->eo, &res, e);
	if (r == 0) {
		r = prof_check_exit(px, &res, &in, e);
		if (r == 0) {
			prof_set_windows(p, px, &res, &in);
			p->personality = res.personality;
			p->map = in.map; /* for the JIT logs' times */
			prof_clockmap_init(&in.map);
			if (p->user && (chown(p->perfdata, (uid_t)-1, p->user->gid) < 0 || chmod(p->perfdata, 0640) < 0))
				r = kerr_set(e, "%s: %s", p->perfdata, strerror(errno));
		}
		exec_result_release(&res);
	}
	prof_stream_release(&in);
	return r;
}

/*
 * perf script on perf.data, into buf and DIR/NAME; -G for one line per
 * sample.  As the benchmark user when there is one: perf reads its perf
 * map in /tmp.
 */
static int prof_script(const struct prof_session *s, const struct prof_px *p, int leaf_only, const char *name,
		       struct strbuf *buf, struct kerr *e)
{
	char *bid = p->user ? xstrdup("/dev/null") : xasprintf("%s/.debug", p->dir);
	char *argv[] = { s->perf, "--buildid-dir", bid, "script", "-i", p->perfdata, "-F", "comm,pid,tid,time,period,event,ip,sym,dso",
			 "--ns", "--no-inline", leaf_only ? "-G" : NULL, NULL };
	struct exec_opts so;
	memset(&so, 0, sizeof(so));
	so.argv = argv;
	so.capture_bytes = (size_t)1 << 30;
	so.envp = environ;
	so.cwd = p->dir;
	so.timeout_s = 3600;
	struct strvec env = STRVEC_INIT;
	if (p->user)
		profjit_as_user(&so, p->user, &env);
	struct exec_result sr;
	int r = exec_run(&so, &sr, e);
	if (r == 0) {
		if (!sr.exited || sr.status)
			r = kerr_set(e, "perf script -i %s failed: %s", p->perfdata, sb_str(&sr.err));
		else if (sr.out_bytes != sr.out.len)
			r = kerr_set(e, "perf script -i %s: more than %zu bytes of samples", p->perfdata, so.capture_bytes);
		if (r == 0) {
			char *path = path_join(p->dir, name);
			r = write_file(path, sb_str(&sr.out), sr.out.len, e);
			free(path);
			sb_add(buf, sb_str(&sr.out), sr.out.len);
		}
		exec_result_release(&sr);
	}
	sv_clear(&env);
	free(bid);
	return r;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

/*
 * The benchmark's process: the pid with most samples in [from, to), the
 * first seen of those with as many.  Counted on the pids sorted: counting
 * each pid over all samples cost samples x pids (two processes sharing
 * the CPU half and half: 10^11 steps for an hour of samples).
 */
int prof_main_pid(const struct pscript *ps, size_t from, size_t to)
{
	size_t n = 0;
	int *pids = xmalloc((to > from ? to - from : 1) * sizeof(*pids));
	for (size_t i = from; i < to; i++)
		if (ps->s[i].pid > 0)
			pids[n++] = ps->s[i].pid;
	if (n)
		qsort(pids, n, sizeof(*pids), cmp_int);
	size_t best = 0, nt = 0;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && pids[j] == pids[i]; j++)
			;
		if (j - i > best)
			best = j - i, nt = 0;
		if (j - i == best)
			pids[nt++] = pids[i]; /* the pids with that many, still sorted, over what was read */
	}
	int pid = 0;
	for (size_t i = from; i < to && nt && !pid; i++)
		if (ps->s[i].pid > 0 && bsearch(&ps->s[i].pid, pids, nt, sizeof(*pids), cmp_int))
			pid = ps->s[i].pid;
	free(pids);
	return pid;
}

/* pexec k's samples: where each one hit (-G), then the call chains */
static int prof_samples(struct prof_session *s, size_t k, struct kerr *e)
{
	struct prof_px *p = &s->px[k];
	struct strbuf leaf = STRBUF_INIT, chains = STRBUF_INIT;
	int r = prof_script(s, p, 1, "perf-script-leaf.txt", &leaf, e);
	if (r == 0)
		r = prof_script(s, p, 0, "perf-script.txt", &chains, e);
	if (r == 0) {
		p->from = s->ps.n;
		pscript_parse(&s->ps, sb_str(&leaf), leaf.len);
		p->to = s->ps.n;
		size_t missing = pscript_attach_chains(&s->ps, p->from, sb_str(&chains), chains.len);
		if (missing)
			kiln_warn("%s: %zu samples without their call chain", p->dir, missing);
		for (size_t i = p->from; i < p->to; i++)
			s->ps.s[i].pexec = (uint32_t)k;
		p->pid = prof_main_pid(&s->ps, p->from, p->to);
	}
	sb_release(&leaf);
	sb_release(&chains);
	return r;
}

/* DIR/NAME (a file the VM wrote, in /tmp or the user's home) to TO: 0 copied, else absent or refused (warned) */
static int keep_vm_file(const char *dir, const char *name, uid_t owner, const char *to)
{
	struct kerr e = KERR_INIT;
	int r = sfs_copy_file(dir, name, owner, (off_t)1 << 30, to, 0644, &e);
	if (r < 0)
		kiln_warn("%s", sb_str(&e.msg));
	kerr_release(&e);
	return r;
}

/*
 * The VM's perf map (/tmp/perf-PID.map, HotSpot and V8) into DIR/jit; with
 * a benchmark user, V8's jitdump from its home (without one, V8 wrote it
 * in DIR/jit).  Opened without following links, only regular files of the
 * benchmark's user (safefs.h).
 */
static void prof_keep_files(struct prof_px *p, const struct pexec_spec *px)
{
	if (p->pid <= 0)
		return;
	uid_t owner = px->have_user ? px->user.uid : geteuid();
	char name[64];
	snprintf(name, sizeof(name), "perf-%d.map", p->pid);
	char *dst = path_join(p->jitdir, name);
	if (!file_exists(dst) && keep_vm_file("/tmp", name, owner, dst) == 0)
		json_array_append_new(p->files, json_sprintf("jit/%s", name));
	free(dst);
	snprintf(name, sizeof(name), "jit-%d.dump", p->pid);
	dst = path_join(p->jitdir, name);
	if (px->have_user && !file_exists(dst) && keep_vm_file(px->user.home, name, owner, dst) == 0)
		json_array_append_new(p->files, json_sprintf("jit/%s", name));
	free(dst);
}

/* the steady state of this one pexec, by the analysis (front-end defaults) */
static long steady_split(const struct prof_iter *it, size_t n, struct strbuf *how)
{
	if (n < 4)
		return -1;
	struct dataset ds;
	memset(&ds, 0, sizeof(ds));
	struct ds_key *k = ds_add_key(&ds, "b", "v", "x");
	struct ds_pexec *p = ds_add_pexec(k, 0);
	p->wall = xmalloc(n * sizeof(double));
	p->n = n;
	for (size_t i = 0; i < n; i++)
		p->wall[i] = (double)it[i].wall_ns / 1e9;
	k->iterations = (long)n;
	k->planned_pexecs = 1;
	struct an_opts o;
	an_opts_default(&o);
	o.window_pct = 10;
	o.steady_pct = 25;
	o.resamples = 10;
	o.threads = 1;
	struct an_key ak;
	memset(&ak, 0, sizeof(ak));
	an_analyse_key(k, &o, &ak);
	long split = -1;
	if (ak.np == 1 && ak.p[0].cls != AN_NO_STEADY) {
		split = (long)ak.p[0].steady_start;
		sb_addf(how, "steady state from iteration %ld (%s)", split + 1, an_class_name(ak.p[0].cls));
	} else if (ak.np == 1) {
		sb_addf(how, "%s: ", an_class_name(ak.p[0].cls));
	}
	an_key_free(&ak);
	ds_free(&ds);
	return split;
}

/* phases of one pexec: --split, else its steady state, else the first quarter */
static void prof_split(const struct prof_session *s, struct prof_px *p)
{
	if (s->o->split > 0) {
		p->split = s->o->split;
		sb_addf(&p->how, "--split %ld", p->split);
		return;
	}
	p->split = steady_split(p->it, p->nit, &p->how);
	if (p->split < 0) {
		p->split = p->nit >= 4 ? (long)(p->nit + 3) / 4 : p->nit > 1 ? 1 : 0;
		sb_addf(&p->how, "no steady state found; first quarter (%ld) vs the rest", p->split);
	}
}

static json_t *prof_build_report(struct prof_session *s)
{
	struct prof_pexec_in *pin = xcalloc(s->npx, sizeof(*pin));
	for (size_t k = 0; k < s->npx; k++) {
		const struct prof_px *p = &s->px[k];
		pin[k] = (struct prof_pexec_in){ .pid = p->pid, .iters = p->it, .niters = p->nit, .split = p->split,
						 .split_how = p->how.buf, .windows = p->windows };
	}
	/* samples name the real file: /usr/bin/php is a link to php8.2 */
	char *vm_real = realpath(s->vm->resolved, NULL);
	struct prof_input in = { .key = s->key, .event = s->event, .ps = &s->ps, .px = pin, .npx = s->npx,
				 .vm = { s->vm->pl ? s->vm->pl->name : s->vm->plugin, vm_real ? vm_real : s->vm->resolved },
				 .top = s->o->top };
	json_t *rep = prof_report(&in);
	json_object_set_new(rep, "flame", flame_data(&in));
	free(vm_real);
	free(pin);
	json_object_set_new(rep, "dir", json_string(esc(ESC_JSON, s->dir)));
	json_t *pxs = json_object_get(rep, "pexecs");
	for (size_t k = 0; k < s->npx; k++) {
		json_t *o = json_array_get(pxs, k);
		json_object_set_new(o, "dir", json_string(esc(ESC_JSON, s->px[k].dir)));
		json_object_set(o, "files", s->px[k].files);
		json_object_set_new(o, "personality", json_integer(s->px[k].personality));
		json_object_set_new(o, "windows_moved", json_integer((json_int_t)s->px[k].moved));
		json_object_set_new(o, "jit", json_pack("{s:I,s:I,s:I,s:I}", "regions", (json_int_t)s->px[k].jc.n,
							"named_by_kiln", (json_int_t)s->px[k].jit_named, "unnamed",
							(json_int_t)s->px[k].jit_unnamed, "jitted_so", (json_int_t)s->px[k].jitted));
	}
	json_object_set(rep, "files", s->px[0].files);
	json_object_set_new(rep, "personality", json_integer(s->px[0].personality));
	char ts[32];
	iso_time(wall_ns(), ts, sizeof(ts));
	char *id = xasprintf("%s@%s#%d", s->key, ts, s->px[0].pid);
	json_object_set_new(rep, "id", json_string(esc(ESC_JSON, id)));
	json_object_set_new(rep, "time", json_string(ts));
	free(id);
	return rep;
}

/* the flame graph page and the files speedscope and the Firefox Profiler open */
static int prof_views(const char *dir, const json_t *flame, struct kerr *e)
{
	struct flame_sel all;
	flame_sel_all(&all);
	char *html = path_join(dir, "flame.html"), *ss = path_join(dir, "profile.speedscope.json"),
	     *gk = path_join(dir, "profile.firefox.json");
	int r = flame_write_html(html, flame, NULL, &all, e);
	if (r == 0)
		r = flame_write_speedscope(ss, flame, &all, e);
	if (r == 0)
		r = flame_write_gecko(gk, flame, &all, e);
	free(html);
	free(ss);
	free(gk);
	return r;
}

/* profile.json, the plot, the results DB, the report on stdout */
static int prof_output(struct prof_session *s, json_t *rep, struct kerr *e)
{
	char *txt = json_dumps(rep, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	char *rj = path_join(s->dir, "profile.json");
	int r = write_file(rj, txt, strlen(txt), e);
	free(rj);
	struct kerr pe = KERR_INIT;
	if (r == 0 && prof_plot(rep, s->dir, &pe) < 0)
		kiln_warn("plot: %s", sb_str(&pe.msg));
	kerr_release(&pe);
	if (r == 0)
		r = prof_views(s->dir, json_object_get(rep, "flame"), e);
	const char *id = json_string_value(json_object_get(rep, "id"));
	struct kerr se = KERR_INIT;
	if (r == 0 && s->st && store_cache_put(s->st, "profile", id, txt, &se) < 0)
		kiln_warn("%s", sb_str(&se.msg));
	else if (r == 0 && s->st && !s->o->json)
		kiln_note("stored as profile '%s' in %s", id, s->ex.results);
	kerr_release(&se);
	if (r == 0 && s->o->json)
		printf("%s\n", txt);
	else if (r == 0)
		prof_print(stdout, rep);
	free(txt);
	return r;
}

static void prof_close(struct prof_session *s)
{
	for (size_t k = 0; s->px && k < s->npx; k++) {
		free(s->px[k].dir);
		free(s->px[k].jitdir);
		free(s->px[k].perfdata);
		if (s->px[k].stage)
			rm_rf(s->px[k].stage);
		free(s->px[k].stage);
		prof_clockmap_release(&s->px[k].map);
		jitcode_free(&s->px[k].jc);
		free(s->px[k].it);
		sb_release(&s->px[k].how);
		json_decref(s->px[k].files);
	}
	free(s->px);
	pscript_release(&s->ps);
	if (s->st)
		store_close(s->st);
	free(s->dir);
	free(s->perf);
	free(s->key);
	if (s->have_ex)
		config_free(&s->ex);
}

/* the JIT'd code of pexec k before its samples are read: its logs into a code table */
static int prof_jit_before(struct prof_session *s, size_t k, const struct pexec_spec *px, struct kerr *e)
{
	struct prof_px *p = &s->px[k];
	if (profjit_collect(&s->ex, px, p->dir, e) < 0)
		return -1;
	return profjit_load(&s->ex, p->dir, &p->map, &p->jc, e);
}

/* the staged perf.data into DIR when perf inject made none there; the stage removed */
static int prof_unstage(struct prof_px *p, struct kerr *e)
{
	if (!p->stage)
		return 0;
	char *pd = path_join(p->dir, "perf.data");
	int r = file_exists(pd) ? 0 : sfs_copy_file(p->stage, "perf.data", geteuid(), (off_t)1 << 40, pd, 0600, e);
	free(pd);
	rm_rf(p->stage);
	free(p->stage);
	p->stage = NULL;
	return r ? -1 : 0;
}

/*
 * After: samples perf left unnamed in JIT'd code named from the table; the
 * jitdumps written or cut to the sampled code; perf inject --jit (not with
 * a benchmark user: perf recorded dumps in the user's home, which kiln does
 * not touch); the VM's maps kept.
 */
static int prof_jit_after(struct prof_session *s, size_t k, const struct pexec_spec *px, struct kerr *e)
{
	struct prof_px *p = &s->px[k];
	p->jit_named = profjit_name_samples(&s->ps, p->from, p->to, &p->jc, &p->jit_unnamed);
	prof_keep_files(p, px);
	struct profjit_ips ips;
	profjit_sampled(&s->ps, p->from, p->to, &ips);
	int n = 0;
	if (px->have_user && p->jc.n && p->pid > 0) { /* for kiln annotate: the runner's marker is in the home */
		char *path = xasprintf("%s/jit-%d.dump", p->jitdir, p->pid);
		n = profjit_write_table(p->jitdir, p->pid, path, &p->jc, &ips, p->files, e);
		free(path);
	}
	if (n == 0)
		n = profjit_dumps(p->jitdir, &p->jc, &ips, p->files, e);
	free(ips.ip);
	if (n < 0)
		return -1;
	if (n) {
		struct kerr ie = KERR_INIT;
		if (profjit_inject(s->perf, p->dir, p->perfdata, p->user, p->stage, &p->jitted, &ie) < 0)
			kiln_warn("%s", sb_str(&ie.msg));
		kerr_release(&ie);
	}
	return prof_unstage(p, e);
}

int profile_run(const struct profile_opts *o, struct kerr *e)
{
	struct prof_session s;
	int r = prof_open(&s, o, e);
	for (size_t k = 0; r == 0 && k < s.npx; k++) {
		struct pexec_spec px;
		memset(&px, 0, sizeof(px));
		r = prof_record(&s, k, &px, e);
		if (r == 0)
			r = prof_jit_before(&s, k, &px, e);
		if (r == 0)
			r = prof_samples(&s, k, e);
		if (r == 0)
			r = prof_jit_after(&s, k, &px, e);
		if (r == 0)
			prof_split(&s, &s.px[k]);
		s.px[k].user = NULL;
		pexec_release(&px);
	}
	if (r == 0) {
		json_t *rep = prof_build_report(&s);
		r = prof_output(&s, rep, e);
		json_decref(rep);
	}
	prof_close(&s);
	return r;
}
