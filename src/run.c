/*
 * run.c - a `kiln run` session, in DESIGN.md's flow:
 *
 *   config ─▶ schedule (stored before the first pexec) ─▶ the results file
 *   opened, locked, resumed or refused ─▶ every key's plugin prepared ─▶
 *   the machine (audit, --tune, benchmark user, sanity child, watch) ─▶ for
 *   each pending pexec: run-pexec.c ─▶ the end (audit, notices, --reboot).
 *
 * Resuming is the same loop: the stored schedule is loaded, pexecs left
 * `running` by a crash go back to pending, whatever a killed session left
 * running is ended (session.c), and the loop takes the first pending one.
 * SIGINT/SIGTERM stop the pexec in flight, which stays pending, and kiln
 * exits 130.
 */
#include "run-state.h"

#include <malloc.h>
#include <sched.h>
#include <sys/mman.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "cmd.h"
#include "convert.h"
#include "exec.h"
#include "idcache.h"
#include "paths.h"
#include "plugin.h"
#include "secret.h"

extern char **environ;

/* counted: the cleanup after a stop runs on through that stop's signal, not through a further one */
/* the start of a run's error when pexecs failed and nothing else went wrong (run_failed_pexecs reads it) */
#define RUN_FAILED_PEXECS "%zu pexec(s) failed"

static void on_signal(int sig)
{
	(void)sig;
	if (exec_interrupted < 1000)
		exec_interrupted++;
}

void run_catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	exec_watch_stops();
	exec_signals_changed();
}

/* --quick results go beside the experiment's own: <stem>.quick.kiln.db */
static char *quick_results(const char *results)
{
	if (str_ends_with(results, ".kiln.db"))
		return store_sibling(results, ".quick.kiln.db");
	return xasprintf("%s.quick", results);
}

static const struct vm_conf *find_vm(const struct experiment *ex, const char *name)
{
	for (size_t i = 0; i < ex->nvms; i++)
		if (!strcmp(ex->vms[i].name, name))
			return &ex->vms[i];
	return NULL;
}


/* ---- the whole run ---- */

/* text in a fresh temporary file (its name in path, a mkstemp template); -1 when it cannot be written */
static int temp_text(char *path, const char *text)
{
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	size_t n = strlen(text);
	ssize_t w = write(fd, text, n);
	close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

/* the refusal of a changed config, with a diff (credentials hidden on both sides, as the stored one is) */
static int config_diff(const struct experiment *ex, const char *old_text, struct kerr *e)
{
	char a[] = "/tmp/kiln-old-config.XXXXXX", b[] = "/tmp/kiln-new-config.XXXXXX";
	struct strbuf msg = STRBUF_INIT, now = STRBUF_INIT;
	secret_mask(&now, ex->text);
	if (temp_text(a, old_text) == 0 && temp_text(b, now.buf) == 0) {
		char *argv[] = { "diff", "-u", "--label", "stored config", "--label", ex->path, a, b, NULL };
		struct exec_result r;
		struct kerr ie = KERR_INIT;
		if (exec_simple(argv, 10, &r, &ie) == 0) {
			sb_add(&msg, r.out.buf ? r.out.buf : "", r.out.len);
			exec_result_release(&r);
		}
		kerr_release(&ie);
	}
	unlink(a);
	unlink(b);
	kerr_setc(e, KEXIT_CONFIG,
		  "%s: the config changed since these results were started; run with --force to continue "
		  "anyway, or use another results file\n%s", ex->path, sb_str(&msg));
	sb_release(&msg);
	sb_release(&now);
	return -1;
}

static void print_dry_run(const struct experiment *ex, const struct schedule *sc, const char *results)
{
	/* the experiment's name and path come from a config (or a file name) kiln did not write: escaped */
	printf("# experiment %s: %zu keys x %ld pexecs = %zu pexecs, results %s\n", esc(ESC_TERM, ex->name), sc->nkeys,
	       sc->pexecs, sc->n, esc(ESC_TERM, results));
	for (size_t i = 0; i < sc->n; i++) {
		char label[32];
		schedule_pexec_label(sc->items[i].num, sc->pexecs, label, sizeof(label));
		char *k = schedule_key_name(&sc->keys[sc->items[i].key]);
		printf("%zu\t%s\t%s\t%ld iterations%s", i, esc(ESC_TERM, k), label, sc->keys[sc->items[i].key].iterations,
		       sc->items[i].num < sc->warmup_pexecs ? "\twarm-up (kept, not analysed)" : "");
		if (sc->items[i].round)
			printf("\tround %ld", sc->items[i].round);
		if (sc->items[i].pair)
			printf("\tduet pair %d slot %d", sc->items[i].pair, sc->items[i].slot);
		putchar('\n');
		free(k);
	}
}


/*
 * A private file mapping's pages that are still the file's own (pagemap's
 * bit 61: a file page, not kiln's copy) unmapped from kiln: they come back
 * unchanged from the page cache, which keeps them, when kiln touches them
 * again.  Pages kiln wrote or the loader relocated (RELRO) are private
 * copies, anonymous to pagemap, and stay.
 */
static void shed_file_pages(int pm, unsigned long lo, unsigned long hi)
{
	enum { BATCH = 512 };
	const unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE);
	uint64_t e[BATCH];
	unsigned long run = 0; /* start of the file pages not yet given back, 0: none */
	for (unsigned long at = lo; at < hi;) {
		size_t n = (hi - at) / page < BATCH ? (hi - at) / page : BATCH;
		ssize_t got = pread(pm, e, n * sizeof(e[0]), (off_t)(at / page * sizeof(e[0])));
		if (got <= 0)
			break;
		n = (size_t)got / sizeof(e[0]);
		for (size_t i = 0; i < n; i++, at += page) {
			int drop = (e[i] >> 63 & 1) && (e[i] >> 61 & 1); /* present, and the file's */
			if (drop && !run)
				run = at;
			else if (!drop && run) {
				madvise((void *)run, at - run, MADV_DONTNEED);
				run = 0;
			}
		}
	}
	if (run)
		madvise((void *)run, hi - run, MADV_DONTNEED);
}

/*
 * kiln shares the machine with the benchmark: once set up (config, audit,
 * sanity checks, plugins prepared), give back what only the start needed.
 * Freed heap goes back to the system, and what kiln's (and its libraries')
 * files brought in, code, read-only data and the data only read, is
 * unmapped (shed_file_pages), libc's pages shared with other processes
 * included; the pexec loop faults back in the little it uses.
 */
static void run_shed_memory(void)
{
	/* the identity cache (its SQLite connection and page cache, and the
	 * entries read) is not used by the loop: written now and closed,
	 * opened again by whatever needs it after the loop */
	idc_save();
	idc_release();
	malloc_trim(0);
	FILE *f = fopen("/proc/self/maps", "re");
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	char line[512];
	while (f && pm >= 0 && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off, inode = 0;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s %lx %*s %lu", &lo, &hi, perms, &off, &inode) != 5 || !inode)
			continue;
		if (perms[3] == 'p') /* never a shared mapping: SQLite's WAL index is one */
			shed_file_pages(pm, lo, hi);
	}
	if (pm >= 0)
		close(pm);
	if (f)
		fclose(f);
}

static json_t *env_choice(const struct experiment *ex);

/*
 * The audit of the machine now, with the VMs' identities `vms` (taken),
 * stored under `name` (and the host name; `ended`, when not NULL, as the
 * experiment's end time, in the same transaction).  Busy processes are sampled
 * (0.2 s) only when the load check is on: otherwise those running now are
 * named, and nothing waits.
 */
static int record_audit(struct store *st, const struct experiment *ex, const char *name, json_t *vms, const char *ended,
			struct kerr *e)
{
	struct doctor_opts dopt = { .busy_sample_s = 0.2, .busy_now = ex->platform.load == CHECK_OFF };
	json_t *a = platform_audit(ex, &dopt, vms);
	json_object_set_new(a, "runner_env", env_choice(ex));
	char *txt = json_dumps(a, JSON_COMPACT);
	json_t *u = json_object_get(a, "uname");
	json_t *h = u ? json_object_get(u, "nodename") : NULL;
	/* one flush for both */
	int r = store_begin(st, e);
	if (r == 0)
		r = store_audit_set(st, name, txt, e);
	if (r == 0 && json_is_string(h))
		r = store_audit_set(st, "hostname", json_string_value(h), e);
	if (r == 0 && ended)
		r = store_meta_set(st, "ended", ended, e);
	if (r == 0)
		r = store_commit(st, e);
	else
		store_commit(st, NULL);
	free(txt);
	json_decref(a);
	return r;
}

/*
 * Which of kiln's environment variables the runners get (pass_env) and
 * which they do not: names only, per VM, with the patterns that matched
 * nothing here.  {"vms": {VM: {"passed": [..], "not_set": [..]}}, "not_passed": [..]}
 */
#define ENV_NAMES_MAX 1000
static json_t *env_choice(const struct experiment *ex)
{
	json_t *o = json_object(), *vms = json_object(), *out = json_array();
	for (size_t i = 0; i < ex->nvms; i++) {
		const struct vm_conf *vm = &ex->vms[i];
		json_t *passed = json_array(), *unset = json_array();
		for (char **p = environ; p && *p; p++)
			if (pexec_passes(vm, *p) && json_array_size(passed) < ENV_NAMES_MAX)
				json_array_append_new(passed, json_stringn(*p, strcspn(*p, "=")));
		for (size_t j = 0; j < vm->pass_env.n; j++) {
			int hit = 0;
			for (char **p = environ; p && *p && !hit; p++) {
				char *name = xstrndup(*p, strcspn(*p, "="));
				hit = star_match(vm->pass_env.v[j], name);
				free(name);
			}
			if (!hit)
				json_array_append_new(unset, json_string(vm->pass_env.v[j]));
		}
		json_object_set_new(vms, vm->name, json_pack("{s:o, s:o}", "passed", passed, "not_set", unset));
	}
	for (char **p = environ; p && *p && json_array_size(out) < ENV_NAMES_MAX; p++) {
		int any = !strncmp(*p, "PATH=", 5);
		for (size_t i = 0; i < ex->nvms && !any; i++)
			any = pexec_passes(&ex->vms[i], *p);
		if (!any)
			json_array_append_new(out, json_stringn(*p, strcspn(*p, "=")));
	}
	json_object_set_new(o, "vms", vms);
	json_object_set_new(o, "not_passed", out);
	return o;
}

/* a JSON array of names, comma-separated and visible */
static void names_line(struct strbuf *sb, const json_t *a)
{
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x)
		sb_addf(sb, "%s%s", i ? ", " : "", esc(ESC_TERM, json_string_value(x)));
}

/*
 * Said at the start of `kiln run`: the runners' environment is not kiln's.
 * One line for all VMs when they pass the same, else one per VM.
 */
static void note_env(const struct experiment *ex, const json_t *choice)
{
	const json_t *vms = json_object_get(choice, "vms");
	size_t nout = json_array_size(json_object_get(choice, "not_passed"));
	int same = 1;
	for (size_t i = 1; i < ex->nvms && same; i++) {
		const struct strvec *a = &ex->vms[0].pass_env, *b = &ex->vms[i].pass_env;
		same = a->n == b->n;
		for (size_t j = 0; same && j < a->n; j++)
			same = !strcmp(a->v[j], b->v[j]);
	}
	for (size_t i = 0; i < (same ? 1 : ex->nvms); i++) {
		const json_t *v = json_object_get(vms, ex->vms[i].name);
		const json_t *passed = json_object_get(v, "passed"), *unset = json_object_get(v, "not_set");
		struct strbuf sb = STRBUF_INIT;
		if (same)
			sb_adds(&sb, "the runners get PATH, the config's env and the KILN_* variables");
		else
			sb_addf(&sb, "VM '%s' gets PATH, its env and the KILN_* variables", esc(ESC_TERM, ex->vms[i].name));
		if (json_array_size(passed)) {
			sb_adds(&sb, "; from kiln's environment (pass_env): ");
			names_line(&sb, passed);
		}
		if (json_array_size(unset)) {
			sb_adds(&sb, "; not set here: ");
			names_line(&sb, unset);
		}
		sb_addf(&sb, "; %zu of kiln's variables are not passed%s", nout,
			ex->vms[i].pass_env.n ? "" : " (pass_env in the config passes them)");
		kiln_note("%s", sb.buf);
		sb_release(&sb);
	}
}

/*
 * The sanity child is kiln itself: in a sanitizer build (make test-asan) it
 * gets kiln's own ASAN/LSAN/UBSAN options, as kiln got them.  A test that
 * runs kiln under strace says detect_leaks=0 because LeakSanitizer cannot
 * stop a traced process's threads; without this the child, started with a
 * clean environment, died at exit under strace.  Release builds pass nothing.
 */
static void sanitizer_env(struct strvec *env)
{
#ifdef KILN_SANITIZE
	static const char *const names[] = { "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (getenv(names[i]))
			sv_setenv(env, names[i], getenv(names[i]));
#else
	(void)env;
#endif
}

/* does the config ask for anything a pexec must be checked to get? */
static int needs_sanity(const struct experiment *ex)
{
	return ex->platform.user || ex->platform.pin_cpus.n || ex->platform.has_nice || ex->limits.address_space_mb ||
	       ex->limits.stack_mb;
}

/*
 * Krun's dummy-benchmark check: what a pexec gets (user, CPUs, nice,
 * limits, nothing inherited), verified inside a child started exactly as a
 * pexec is, and stored in the audit.
 */
static int run_sanity(struct run_state *rs, const char *results, struct kerr *e)
{
	const struct experiment *ex = rs->ex;
	struct store *st = rs->st;
	struct exec_opts eo;
	memset(&eo, 0, sizeof(eo));
	struct strvec env = STRVEC_INIT;
	sv_setenv(&env, "PATH", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	if (rs->have_user)
		sv_setenv(&env, "HOME", rs->user.home);
	sanitizer_env(&env);
	struct strbuf cpus = STRBUF_INIT;
	pexec_opts(ex, 1, &cpus, &eo);
	eo.timeout_s = 60;
	eo.envp = sv_array(&env);
	struct sanity_expect x;
	memset(&x, 0, sizeof(x));
	pexec_user_opts(rs->have_user ? &rs->user : NULL, &eo);
	if (rs->have_user) {
		x.check_uid = 1;
		x.uid = rs->user.uid;
		x.gid = rs->user.gid;
		x.probe = results;
		x.home = rs->user.home;
	}
	x.cpus = eo.cpus;
	x.check_nice = eo.set_nice;
	x.nice = eo.nice;
	x.as_mb = ex->limits.address_space_mb;
	x.stack_mb = ex->limits.stack_mb;
	/* on a machine made fresh, bounded as a pexec is */
	run_isolate_opts(rs, &eo);
	if (machine_private(&rs->mach, "/tmp"))
		sv_setenv(&env, "TMPDIR", "/tmp");
	eo.envp = sv_array(&env);
	x.mach = &rs->mach;
	x.nproc = eo.rlimit_nproc;
	x.fsize_mb = eo.rlimit_fsize_mb;
	x.check_oom = eo.set_oom;
	x.oom = eo.oom_score_adj;
	x.check_cgroup = rs->cg.kind != CG_NONE;
	json_t *rep = NULL;
	int r = run_isolate_fresh(rs, e) < 0 ? -1 : platform_sanity(&eo, &x, &rep, e);
	run_isolate_clear(rs);
	if (rep) {
		char *txt = json_dumps(rep, JSON_COMPACT);
		store_audit_set(st, "sanity", txt, NULL);
		free(txt);
		json_decref(rep);
	}
	sb_release(&cpus);
	sv_clear(&env);
	if (r < 0 && exec_interrupted) /* its child was stopped by the interrupt, not found wrong */
		return kerr_setc(e, KEXIT_INTERRUPTED, "interrupted during the sanity check of the pexec environment");
	if (r < 0 && e)
		e->code = KEXIT_CONFIG; /* the machine cannot give a pexec what the config asks: no session here can run */
	return r < 0 ? kerr_wrap(e, "sanity check of the pexec environment") : 0;
}

/* platform.user: the benchmark user, made or found, nothing of it running, a fresh home */
static int run_prepare_user(struct run_state *rs, const char *config, struct kerr *e)
{
	const struct experiment *ex = rs->ex;
	if (!ex->platform.user)
		return 0;
	if (geteuid() != 0)
		return kerr_setc(e, KEXIT_CONFIG, "%s: platform.user needs kiln to run as root", config);
	if (platform_user_ensure(ex->platform.user, &rs->user, e) < 0)
		return -1;
	rs->have_user = 1;
	return platform_user_renew(&rs->user, e) < 0 || platform_user_fresh_home(&rs->user, e) < 0 ? -1 : 0;
}

static int run_tune(struct run_state *rs, json_t **tuned, struct kerr *e)
{
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
	store_audit_set(rs->st, "tune_saved", txt, NULL);
	free(txt);
	sb_release(&log);
	return 0;
}

/*
 * Before the first pexec of this session: the benchmark user, the VMs'
 * identities and every pending key's program (refused when it changed,
 * run-prov.c), the machine's state into the audit (first session only),
 * --tune, the sanity child (the limits a pexec gets, checked inside a
 * child), then the watch.
 */
static int run_builds(struct run_state *rs, struct kerr *e);

static int run_prepare_machine(struct run_state *rs, const char *config, const char *results,
			       json_t **tuned, struct kerr *e)
{
	const struct experiment *ex = rs->ex;
	struct store *st = rs->st;
	if (run_prepare_user(rs, config, e) < 0)
		return -1;
	/* a build that fails (or does not make its VM) skips its keys (run_skip_key); kiln track counts it failed */
	if (run_builds(rs, e) < 0) {
		if (rs->o->build_failed)
			*rs->o->build_failed = 1;
		return -1;
	}
	if (run_isolate_open(rs, e) < 0)
		return -1;
	rs->vmids = run_identify_vms(rs);
	/* the programs and the first audit: one flush */
	char *have = NULL;
	store_audit_get(st, "start", &have);
	int r = store_begin(st, e) < 0 || run_programs(rs, e) < 0 ||
		(!have && record_audit(st, ex, "start", json_incref(rs->vmids), NULL, e) < 0) ? -1 : 0;
	free(have);
	if (store_commit(st, r < 0 ? NULL : e) < 0 || r < 0)
		return -1;
	idc_save();
	if (rs->o->tune && run_tune(rs, tuned, e) < 0)
		return -1;
	if ((needs_sanity(ex) || rs->mach.kind != MACHINE_NONE || rs->cg.kind != CG_NONE) &&
	    run_sanity(rs, results, e) < 0)
		return -1;
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
	run_isolate_close(rs);
	if (rs->have_user) {
		/* nothing of the benchmark stays in kiln's state: a disk it filled frees itself */
		platform_user_renew(&rs->user, NULL);
		rm_rf(rs->user.home);
		platform_user_release(&rs->user);
	}
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
	/* the kiln at this path boots: a kiln replaced while it ran names the new one, not "X (deleted)" */
	char exe[4096];
	if (!kiln_self_path(exe, sizeof(exe))) {
		free(counter);
		return kerr_set(e, "--reboot: cannot find kiln's own path (/proc/self/exe) for the boot unit");
	}
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


/* what run_experiment holds from the config to the end */
struct run_job {
	struct experiment ex;
	struct schedule sc;
	struct store *st;
	struct pexec_key *kc;     /* per key of the schedule */
	char **broken;            /* per key: why it cannot run this session, NULL: it can (run_state.broken) */
	char *results;
	int forced;               /* --force over a changed config */
	int retry;                /* --retry-*: pexecs to put back to pending once the session is ready to run them */
	const struct run_opts *o;
};

/* the scratch pad of --quick or kiln bench */
static const char *scratch_of(const struct run_opts *o)
{
	return o->scratch ? o->scratch : o->quick ? "quick" : NULL;
}

/* the stored config kept under NAME_N (the first N free), the new one stored */
static int keep_config(struct run_job *j, const char *name, struct kerr *e);

/*
 * more[k] pexecs for key k of the stored schedule sc, ordered as a fresh
 * schedule would be: with `like_schedule` and a stored random order,
 * shuffled with the config's seed; in a stored order of rounds, more
 * rounds; else interleaved
 */
static int add_pexecs(struct run_job *j, const long *more, struct schedule *sc, int like_schedule, struct kerr *e)
{
	char *order = NULL;
	store_meta_get(j->st, "order", &order);
	enum sched_order o = ORDER_INTERLEAVED;
	if (sched_order_parse(order, &o) < 0 || (!like_schedule && !sched_order_rounds(o)))
		o = ORDER_INTERLEAVED;
	free(order);
	size_t n;
	struct sched_item *items = schedule_more(sc, more, o, o == ORDER_INTERLEAVED ? NULL : &j->ex.seed, &n);
	int r = store_add_pexecs(j->st, items, n, sc, e);
	free(items);
	return r;
}

/* every key of the stored schedule `have` up to the config's pexecs, added as a fresh schedule orders them; how many, -1 */
static long fill_pexecs(struct run_job *j, struct schedule *have, struct kerr *e)
{
	long *more = xcalloc(have->nkeys + 1, sizeof(long)), added = 0;
	for (size_t k = 0; k < have->nkeys; k++) {
		long n = 0;
		for (size_t i = 0; i < have->n; i++)
			n += have->items[i].key == (long)k;
		long want = j->ex.pexecs + j->ex.warmup_pexecs;
		more[k] = want > n ? want - n : 0;
		added += more[k];
	}
	int r = added ? add_pexecs(j, more, have, 1, e) : 0;
	free(more);
	return r < 0 ? -1 : added;
}

/*
 * A config that only grew (more pexecs, more benchmarks: config_grows):
 * the new keys and the pexecs every key lacks are added to the stored
 * schedule, after what is there, round by round; nothing stored changes.
 * A stored key the new config does not plan is not growth.
 */
static int grow_results(struct run_job *j, const struct run_opts *o, struct kerr *e)
{
	struct schedule plan, have;
	schedule_plan(&j->ex, o->order, 0, 0, &plan);
	int r = store_load_schedule(j->st, &have, e);
	struct sched_key *add = xcalloc(plan.nkeys + 1, sizeof(*add));
	size_t nadd = 0;
	for (size_t k = 0; r == 0 && k < have.nkeys; k++) {
		int found = 0;
		for (size_t i = 0; i < plan.nkeys && !found; i++)
			found = !strcmp(plan.keys[i].bench, have.keys[k].bench) && !strcmp(plan.keys[i].vm, have.keys[k].vm) &&
				!strcmp(plan.keys[i].variant, have.keys[k].variant);
		if (!found) {
			char *name = schedule_key_name(&have.keys[k]);
			r = kerr_setc(e, KEXIT_CONFIG, "%s: the config no longer plans key %s, which these results hold; "
				      "run with --force to continue anyway, or use another results file", j->ex.path, name);
			free(name);
		}
	}
	for (size_t i = 0; r == 0 && i < plan.nkeys; i++) {
		int found = 0;
		for (size_t k = 0; k < have.nkeys && !found; k++)
			found = !strcmp(plan.keys[i].bench, have.keys[k].bench) && !strcmp(plan.keys[i].vm, have.keys[k].vm) &&
				!strcmp(plan.keys[i].variant, have.keys[k].variant);
		if (!found)
			add[nadd++] = plan.keys[i];
	}
	long added = 0;
	if (r == 0 && nadd)
		r = store_add_keys(j->st, add, nadd, &have, e);
	if (r == 0)
		r = (added = fill_pexecs(j, &have, e)) < 0 ? -1 : 0;
	if (r == 0)
		r = keep_config(j, "config_text_before_growth", e);
	if (r == 0 && !o->quiet)
		kiln_note("the config grew (more pexecs or benchmarks, nothing else changed): %zu key(s) and %ld pexec(s) "
			  "added to the stored schedule", nadd, added);
	free(add);
	schedule_free(&plan);
	schedule_free(&have);
	return r;
}

static int pending(const struct sched_item *it);

/* is stored key k (of `have`) among the keys of `plan`? */
static int key_in(const struct sched_key *k, const struct schedule *plan)
{
	for (size_t i = 0; i < plan->nkeys; i++)
		if (!strcmp(plan->keys[i].bench, k->bench) && !strcmp(plan->keys[i].vm, k->vm) &&
		    !strcmp(plan->keys[i].variant, k->variant))
			return 1;
	return 0;
}

/* the stored keys some pexec of which ran ("bench:vm:variant") */
static void keys_that_ran(const struct schedule *have, struct strvec *ran, unsigned char *did)
{
	for (size_t i = 0; i < have->n; i++)
		if (!pending(&have->items[i]))
			did[have->items[i].key] = 1;
	for (size_t k = 0; k < have->nkeys; k++)
		if (did[k])
			sv_pushf(ran, "%s:%s:%s", have->keys[k].bench, have->keys[k].vm, have->keys[k].variant);
}

/*
 * A config that changed only in keys none of whose pexecs ran
 * (config_keeps_keys): those keys are dropped from the stored schedule and
 * planned again from the new config, with the keys it adds; the keys that
 * ran keep everything, and get the pexecs they lack.  1 done, 0 not such
 * a change (why says what kept it), -1 error.
 */
static int replan_results(struct run_job *j, const struct run_opts *o, const char *old_text, struct strbuf *why,
			  struct kerr *e)
{
	struct schedule have, plan;
	if (store_load_schedule(j->st, &have, e) < 0)
		return -1;
	unsigned char *did = xcalloc(have.nkeys + 1, 1);
	struct strvec ran = STRVEC_INIT;
	keys_that_ran(&have, &ran, did);
	int r = config_keeps_keys(&j->ex, old_text, kiln_datadir(), &ran, why);
	long *drop = xcalloc(have.nkeys + 1, sizeof(long));
	size_t ndrop = 0, nadd = 0;
	schedule_plan(&j->ex, o->order, 0, 0, &plan);
	struct sched_key *add = xcalloc(plan.nkeys + 1, sizeof(*add));
	for (size_t k = 0; r == 1 && k < have.nkeys; k++)
		if (!did[k])
			drop[ndrop++] = have.keys[k].id;
	if (r == 1 && ndrop && store_drop_keys(j->st, drop, ndrop, e) < 0)
		r = -1;
	schedule_free(&have);
	if (r == 1 && store_load_schedule(j->st, &have, e) < 0)
		r = -1;
	for (size_t i = 0; r == 1 && i < plan.nkeys; i++)
		if (!key_in(&plan.keys[i], &have))
			add[nadd++] = plan.keys[i];
	if (r == 1 && nadd && store_add_keys(j->st, add, nadd, &have, e) < 0)
		r = -1;
	if (r == 1 && fill_pexecs(j, &have, e) < 0)
		r = -1;
	if (r == 1 && keep_config(j, "config_text_before_change", e) < 0)
		r = -1;
	if (r == 1 && !o->quiet)
		kiln_note("the config changed only in keys none of whose pexecs ran: %zu such key(s) planned again, "
			  "%zu key(s) now in the schedule, %zu kept with their pexecs", ndrop, nadd, ran.n);
	schedule_free(&have);
	schedule_free(&plan);
	sv_clear(&ran);
	free(did);
	free(drop);
	free(add);
	return r;
}

/* a stored experiment: refuse a changed config (unless it only grew, or --force), retry, reset, load its schedule */
static int resume_results(struct run_job *j, const struct run_opts *o, struct kerr *e)
{
	char *hash = NULL;
	store_meta_get(j->st, "config_hash", &hash);
	int changed = hash && strcmp(hash, j->ex.hash);
	free(hash);
	/* a cluster run's shards are of the config stored now: a round out refuses the change, what ended is merged */
	if (changed && cluster_before_config_change(j->st, o->quiet, e) < 0)
		return -1;
	if (changed && !o->force) {
		char *old = NULL;
		store_meta_get(j->st, "config_text", &old);
		struct strbuf why = STRBUF_INIT;
		int grows = old && config_grows(&j->ex, old, kiln_datadir(), &why);
		struct strbuf why2 = STRBUF_INIT;
		int replanned = !grows && old && j->ex.results ? replan_results(j, o, old, &why2, e) : 0;
		if (!grows && !replanned) {
			config_diff(&j->ex, old ? old : "", e);
			/* what kept it from growing, and from being planned again */
			if (why.len || why2.len)
				sb_addf(&e->msg, "(%s%s%s%s%s)", why.len ? "more pexecs and benchmarks are added without --force, but "
					: "", why.buf ? why.buf : "", why.len && why2.len ? "; " : "",
					why2.len ? "keys none of whose pexecs ran may change freely, but " : "",
					why2.buf ? why2.buf : "");
		}
		sb_release(&why2);
		free(old);
		int r = replanned < 0 ? -1 : replanned ? 0 : grows ? grow_results(j, o, e) : -1;
		sb_release(&why);
		if (r < 0)
			return -1;
		changed = 0;
	}
	if (changed) {
		kiln_warn("the config changed; --force continues the stored schedule (its keys, pexecs and "
			  "iterations) with the new config's settings");
		j->forced = 1;
	}
	schedule_free(&j->sc);
	/*
	 * kiln run --slurm gives the pexecs out now; a run that measures them
	 * resets them in the file only once its session is ready to run them
	 * (run_session): a refusal before (a key's changed program, a failed
	 * sanity check) leaves the failures' rows as they were.  Until then
	 * they are pending in the schedule in memory.
	 */
	int retried = o->prepare_only ? store_retry(j->st, o->retry_failed, o->retry_tainted, e) : 0;
	if (retried < 0 || store_load_schedule(j->st, &j->sc, e) < 0)
		return -1;
	for (size_t i = 0; !o->prepare_only && i < j->sc.n; i++) {
		enum pexec_status s = j->sc.items[i].status;
		if ((o->retry_failed && (s == PX_FAILED || s == PX_TIMEOUT)) || (o->retry_tainted && s == PX_TAINTED)) {
			j->sc.items[i].status = PX_PENDING;
			retried++;
		}
	}
	j->retry = !o->prepare_only && retried > 0;
	if (retried > 0 && !o->quiet)
		kiln_note("%d pexec(s) %s will run again", retried,
			  o->retry_failed && o->retry_tainted ? "that failed, timed out or were tainted"
			  : o->retry_failed ? "that failed or timed out" : "that were tainted");
	int reset = store_reset_running(j->st, e);
	if (reset > 0 && !o->quiet)
		kiln_note("%d pexec(s) left running by an interrupted run will be rerun", reset);
	return reset < 0 ? -1 : 0;
}

/* the results file: opened and locked, then resumed, or started with the schedule stored */
static int open_results(struct run_job *j, const struct run_opts *o, struct kerr *e)
{
	/* --quick and kiln bench start afresh, but never over a real experiment's results */
	const char *scratch = scratch_of(o);
	if (scratch && file_exists(j->results) && store_wipe_scratch(j->results, scratch, e) < 0)
		return -1;
	/* (a session's setup is not flushed commit by commit: store_prepare flushes it before the first pexec) */
	if (store_open_locked(j->results, !o->prepare_only, &j->st, e) < 0 ||
	    store_set_durable(j->st, j->ex.durable_power, e) < 0)
		return -1;
	if (store_has_experiment(j->st))
		return resume_results(j, o, e);
	/* keys without a stored config (kiln import's): not an experiment to run into */
	struct schedule had;
	if (store_load_schedule(j->st, &had, e) < 0)
		return -1;
	size_t nkeys = had.nkeys;
	schedule_free(&had);
	if (nkeys) {
		char *from = NULL;
		store_meta_get(j->st, "imported_from", &from);
		kerr_setc(e, KEXIT_STORE, "%s holds the results of %zu key(s) but no experiment's config (%s%s%s): kiln run "
			  "does not add to them; run into another results file (-o)", j->results, nkeys,
			  from ? "imported from " : "not started by kiln run", from ? esc(ESC_TERM, from) : "",
			  from ? " by kiln import" : "");
		free(from);
		return -1;
	}
	/* the stored schedule is the one that runs, fresh or resumed */
	if (store_init(j->st, &j->ex, &j->sc, sched_order_name(o->order), e) < 0 ||
	    (scratch && store_meta_set(j->st, scratch, "1", e) < 0) ||
	    (o->hooks && o->hooks->init && o->hooks->init(o->hooks->ctx, j->st, e) < 0))
		return -1;
	schedule_free(&j->sc);
	return store_load_schedule(j->st, &j->sc, e);
}

/* every key's context, and its plugin's preparation, before anything runs */
/* key k's preparation failed (e): stop (--strict), or say it and skip the key */
static int skip_prepared(struct run_job *j, size_t k, struct kerr *e)
{
	if (j->o->strict || j->o->build_failed)
		return -1;
	j->broken[k] = xstrdup(sb_str(&e->msg));
	kiln_warn("%s is skipped (its pexecs stay pending): %s", j->kc[k].key, j->broken[k]);
	kerr_release(e);
	return 0;
}

static int prepare_keys(struct run_job *j, const char *config, struct kerr *e)
{
	j->kc = xcalloc(j->sc.nkeys, sizeof(*j->kc));
	j->broken = xcalloc(j->sc.nkeys ? j->sc.nkeys : 1, sizeof(*j->broken));
	for (size_t k = 0; k < j->sc.nkeys; k++) {
		const struct vm_conf *vm = find_vm(&j->ex, j->sc.keys[k].vm);
		const struct bench_conf *b = config_bench_named(&j->ex, j->sc.keys[k].bench);
		if (!vm || !b)
			return kerr_setc(e, KEXIT_CONFIG, "%s: key %s:%s is in the stored schedule but not in the config",
					 config, j->sc.keys[k].bench, j->sc.keys[k].vm);
		pexec_key_init(&j->kc[k], &j->ex, vm, b, j->sc.keys[k].iterations, 0);
		if (vm->pl && vm->pl->prepare && vm->pl->prepare(&j->kc[k].pc, e) < 0 &&
		    (kerr_wrap(e, "preparing %s:%s", b->name, vm->name), skip_prepared(j, k, e) < 0))
			return -1;
	}
	return 0;
}

static int keep_config(struct run_job *j, const char *stem, struct kerr *e)
{
	char *old = NULL;
	store_meta_get(j->st, "config_text", &old);
	char name[96];
	for (int n = 1;; n++) {
		char *have = NULL;
		snprintf(name, sizeof(name), "%s_%d", stem, n);
		if (store_meta_get(j->st, name, &have) < 0 || !have)
			break;
		free(have);
	}
	struct strbuf now = STRBUF_INIT;
	secret_mask(&now, j->ex.text);
	int r = store_meta_set(j->st, name, old ? old : "", e) < 0 || store_meta_set(j->st, "config_text", now.buf, e) < 0 ||
		store_meta_set(j->st, "config_hash", j->ex.hash, e) < 0 ? -1 : 0;
	sb_release(&now);
	free(old);
	return r;
}

/* --force: keep the earlier config beside the new one */
static int keep_forced_config(struct run_job *j, struct kerr *e)
{
	return keep_config(j, "config_text_before_force", e);
}

static int pending(const struct sched_item *it)
{
	return it->status == PX_PENDING || it->status == PX_RUNNING;
}

static size_t count_pending(const struct schedule *sc)
{
	size_t n = 0;
	for (size_t i = 0; i < sc->n; i++)
		n += pending(&sc->items[i]);
	return n;
}

/* the pexec after i that this one's commit marks running (a skipped key's are not), 0: none */
static long next_pending(const struct schedule *sc, char *const *broken, size_t i)
{
	for (size_t j = i + 1; j < sc->n; j++)
		if (pending(&sc->items[j]) && !(broken && broken[sc->items[j].key]))
			return sc->items[j].id;
	return 0;
}

static int run_pending(struct run_state *rs, struct run_job *j, const char *config, long *ran, struct kerr *e);

/*
 * Pexecs added to keys that had none pending when the session began (a
 * resumed kiln compare's more rounds): their keys' programs, as the
 * session's start finds those of the keys it runs (run-prov.c), so that
 * every stored pexec names the program it ran.
 */
static int programs_of_new(struct run_state *rs, struct kerr *e)
{
	int need = 0;
	for (size_t i = 0; i < rs->sc->n && !need; i++)
		need = pending(&rs->sc->items[i]) && !rs->program[rs->sc->items[i].key][0];
	if (!need)
		return 0;
	int r = store_begin(rs->st, e) < 0 || run_programs(rs, e) < 0 ? -1 : 0;
	return store_commit(rs->st, r < 0 ? NULL : e) < 0 || r < 0 ? -1 : 0;
}

/* the hooks' more pexecs, stored and scheduled; 1 when there are some, 0 none, -1 error */
static int run_more(struct run_state *rs, struct run_job *j, struct kerr *e)
{
	const struct run_hooks *h = rs->o->hooks;
	if (!h || !h->more || exec_interrupted)
		return 0;
	for (size_t i = 0; i < j->sc.n; i++)
		if (pending(&j->sc.items[i]))
			return 0; /* stopped early (--max-pexecs): the rest first */
	/* the hook reads the results file itself: every pexec of the round in it first */
	if (store_settle(j->st, e) < 0)
		return -1;
	long *more = xcalloc(j->sc.nkeys + 1, sizeof(long)), any = 0;
	h->more(h->ctx, &j->sc, more);
	for (size_t k = 0; k < j->sc.nkeys; k++)
		any += more[k];
	int r = any ? add_pexecs(j, more, &j->sc, 0, e) : 0;
	free(more);
	if (r < 0 || (any && programs_of_new(rs, e) < 0))
		return -1;
	rs->prog.total = j->sc.n;
	return any > 0;
}

/* the pending pexecs in schedule order, and those the hooks add; a KEXIT_* code */
static int run_loop(struct run_state *rs, struct run_job *j, const char *config, long *ran, struct kerr *e)
{
	int code, more = 0;
	if (rs->o->hooks && rs->o->hooks->loop)
		rs->o->hooks->loop(rs->o->hooks->ctx);
	while ((code = run_pending(rs, j, config, ran, e)) == KEXIT_OK && (more = run_more(rs, j, e)) > 0)
		;
	if (code == KEXIT_OK && more < 0)
		code = e->code ? e->code : KEXIT_STORE;
	return code;
}

/* an interrupt between two pexecs (or before one started) */
static int run_stopped(const char *config, struct kerr *e)
{
	kerr_setc(e, KEXIT_INTERRUPTED, "interrupted; `kiln run %s` resumes", config);
	return KEXIT_INTERRUPTED;
}

/*
 * The pexec that runs beside item i in its duet (the next item, of the
 * same round and pair, pending, its key not skipped), or NULL
 */
static struct sched_item *duet_mate(struct schedule *sc, char *const *broken, size_t i)
{
	struct sched_item *it = &sc->items[i], *m = i + 1 < sc->n ? &sc->items[i + 1] : NULL;
	return it->pair && m && m->round == it->round && m->pair == it->pair && pending(m) && !broken[m->key] ? m : NULL;
}

/* a CPU number among those in set, taken from s ("3"); -1: none */
static int cpu_in(const char *s, const cpu_set_t *set)
{
	long c;
	return parse_long(s, &c) == 0 && c >= 0 && c < CPU_SETSIZE && CPU_ISSET((int)c, set) ? (int)c : -1;
}

/*
 * The duets' two CPUs: --duet-cpus, else the first two of pin_cpus or of
 * those kiln may use (exec_allowed_cpus); both must be allowed.
 */
static int choose_duet_cpus(struct run_state *rs, struct kerr *e)
{
	cpu_set_t allowed, from;
	if (exec_allowed_cpus(&allowed) < 0)
		return kerr_setc(e, KEXIT_CONFIG, "a duet needs two CPUs, and the kernel does not say which kiln may use");
	int c[2] = { -1, -1 }, n = 0;
	struct strbuf pins = STRBUF_INIT;
	for (size_t i = 0; i < rs->ex->platform.pin_cpus.n; i++)
		sb_addf(&pins, "%s%s", i ? "," : "", rs->ex->platform.pin_cpus.v[i]);
	if (rs->o->duet_cpus) {
		char *w = xstrdup(rs->o->duet_cpus), *comma = strchr(w, ',');
		if (comma) {
			*comma = '\0';
			c[0] = cpu_in(w, &allowed), c[1] = cpu_in(comma + 1, &allowed);
		}
		free(w);
		n = c[0] >= 0 && c[1] >= 0 && c[0] != c[1] ? 2 : 0;
		if (n < 2)
			kerr_setc(e, KEXIT_CONFIG, "--duet-cpus '%s': two different CPUs kiln may use are needed",
				  esc(ESC_TERM, rs->o->duet_cpus));
	} else {
		if (!pins.len || exec_parse_cpus(pins.buf, &from) < 0)
			from = allowed;
		for (int cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
			if (CPU_ISSET(cpu, &from) && CPU_ISSET(cpu, &allowed))
				c[n++] = cpu;
		if (n < 2)
			kerr_setc(e, KEXIT_CONFIG, "a duet runs two pexecs at once on two CPUs, and kiln may use only %d "
				  "here%s: compare in rounds instead (without --duet)", n, pins.len ? " (pin_cpus)" : "");
	}
	sb_release(&pins);
	if (n < 2)
		return -1;
	for (int i = 0; i < 2; i++)
		snprintf(rs->duet_cpu[i], sizeof(rs->duet_cpu[i]), "%d", c[i]);
	return 0;
}

/*
 * A duet of items a (slot 0) and b: started in turn first every other
 * round, and on the CPUs swapped every round; a KEXIT_* code, each
 * item's status set.
 */
static int run_pair(struct run_state *rs, const char *config, struct sched_item *a, struct sched_item *b, struct kerr *e)
{
	if (!rs->duet_cpu[0][0] && choose_duet_cpus(rs, e) < 0)
		return KEXIT_CONFIG;
	int first = (int)(a->round & 1);
	struct sched_item *both[2] = { first ? b : a, first ? a : b };
	const struct sched_item *const it[2] = { both[0], both[1] };
	struct pexec_key *const k[2] = { &rs->kc[both[0]->key], &rs->kc[both[1]->key] };
	const char *const cpus[2] = { rs->duet_cpu[(both[0]->slot + a->round) & 1],
				      rs->duet_cpu[(both[1]->slot + a->round) & 1] };
	int out[2];
	run_duet(rs, it, k, cpus, out, e);
	if (out[0] == ONE_UNSTARTED || out[1] == ONE_UNSTARTED)
		return run_stopped(config, e);
	for (int i = 0; i < 2; i++) {
		if (out[i] == ONE_INTERRUPTED || out[i] == ONE_FATAL)
			return e->code ? e->code : KEXIT_FAIL;
		both[i]->status = out[i] == ONE_OK ? PX_OK : out[i] == ONE_TAINTED ? PX_TAINTED : PX_FAILED;
	}
	return KEXIT_OK;
}

/* the pending pexecs in schedule order; a KEXIT_* code */
static int run_pending(struct run_state *rs, struct run_job *j, const char *config, long *ran, struct kerr *e)
{
	const struct run_opts *o = rs->o;
	const struct experiment *ex = &j->ex;
	long marked_id = 0;
	for (size_t i = 0; i < j->sc.n; i++) {
		struct sched_item *it = &j->sc.items[i];
		if (!pending(it) || rs->broken[it->key])
			continue;
		if (exec_interrupted)
			return run_stopped(config, e);
		if ((o->max_pexecs && *ran >= o->max_pexecs) || (o->reboot && *ran >= 1))
			break;
		struct sched_item *mate = o->reboot ? NULL : duet_mate(&j->sc, rs->broken, i);
		if (mate) {
			int code = run_pair(rs, config, it, mate, e);
			if (code != KEXIT_OK)
				return code;
			*ran += 2;
			marked_id = 0;
			i++;
			continue;
		}
		long next_id = !o->reboot && !(o->max_pexecs && *ran + 1 >= o->max_pexecs) ? next_pending(&j->sc, rs->broken, i) : 0;
		/* a tainted pexec is rerun at once when the config asks, a bounded number of times */
		int r, tries = 0;
		do
			r = run_pexec(rs, it, &j->kc[it->key], marked_id == it->id,
				      ex->platform.rerun_tainted ? 0 : next_id, tries > 0, e);
		while (r == ONE_TAINTED && ex->platform.rerun_tainted && ++tries < 3 && !exec_interrupted);
		if (r == ONE_UNSTARTED)
			return run_stopped(config, e);
		marked_id = ex->platform.rerun_tainted ? 0 : next_id;
		(*ran)++;
		if (r == ONE_INTERRUPTED || r == ONE_FATAL)
			return e->code ? e->code : KEXIT_FAIL;
		it->status = r == ONE_OK ? PX_OK : r == ONE_TAINTED ? PX_TAINTED : PX_FAILED;
	}
	return KEXIT_OK;
}

/* after a loop that ended well: the end audit (with the VMs' identities end_vms, taken), the summary, notify, --reboot, failures */
static int run_finish(struct run_state *rs, struct run_job *j, const char *config, long ran, json_t *end_vms,
		      struct kerr *e)
{
	const struct run_opts *o = rs->o;
	size_t left = 0;
	for (size_t i = 0; i < j->sc.n; i++)
		left += pending(&j->sc.items[i]);
	if (!left && ran) {
		char ts[32];
		iso_time(wall_ns(), ts, sizeof(ts));
		/* the machine at the end, beside its state at the start */
		record_audit(j->st, &j->ex, "end", end_vms, ts, NULL);
		end_vms = NULL;
	}
	json_decref(end_vms);
	if (!o->quiet)
		kiln_note("%s: %zu pexecs done, %zu failed, %zu tainted, %zu pending", j->results,
			  j->sc.n - left - rs->failed - rs->tainted, rs->failed, rs->tainted, left);
	if (!left && ran)
		run_notify(&j->ex, "complete", "%s complete: %zu pexecs, %zu failed, %zu tainted", j->results, j->sc.n,
			   rs->failed, rs->tainted);
	if (o->reboot && run_reboot_step(&j->ex, config, j->results, left, e) < 0)
		return e->code ? e->code : KEXIT_FAIL;
	size_t skipped = 0;
	struct strbuf which = STRBUF_INIT;
	for (size_t k = 0; k < j->sc.nkeys; k++)
		if (rs->broken[k] && skipped++ < 8)
			sb_addf(&which, "%s%s", skipped > 1 ? ", " : "", j->kc[k].key);
	if (skipped) {
		kerr_setc(e, KEXIT_FAIL, "%zu key(s) were skipped, their pexecs left pending: %s%s (why is said above); "
			  "`kiln run %s` runs them once they can run%s", skipped, which.buf, skipped > 8 ? ", ..." : "",
			  config, rs->failed ? "; some pexecs failed too: `kiln status --failures` lists them" : "");
		sb_release(&which);
		return KEXIT_FAIL;
	}
	sb_release(&which);
	if (!rs->failed)
		return KEXIT_OK;
	kerr_setc(e, KEXIT_FAIL, RUN_FAILED_PEXECS ": `kiln status --failures %s` lists them, "
		  "`kiln run %s --retry-failed` runs them again", rs->failed, j->results, config);
	return KEXIT_FAIL;
}

size_t run_failed_pexecs(int code, const struct kerr *e)
{
	const char *m = sb_str(&e->msg);
	size_t n = 0;
	int end = 0;
	/* the whole format, not only its count: "2 key(s) were skipped", or a key named "2048:...", starts with one too */
	if (code != KEXIT_FAIL || !isdigit((unsigned char)*m) || sscanf(m, RUN_FAILED_PEXECS "%n", &n, &end) != 1 || !end)
		return 0;
	return n;
}

static void state_init(struct run_state *rs, struct run_job *j, const struct run_opts *o)
{
	memset(rs, 0, sizeof(*rs));
	isolate_init(&rs->mach, &rs->cg);
	rs->ex = &j->ex;
	rs->sc = &j->sc;
	rs->st = j->st;
	rs->o = o;
	rs->prog.tty = isatty(2);
	rs->prog.quiet = o->quiet || o->no_progress;
	rs->prog.total = j->sc.n;
	for (size_t i = 0; i < j->sc.n; i++)
		rs->prog.done_before += !pending(&j->sc.items[i]);
	rs->kc = j->kc;
	rs->program = xcalloc(j->sc.nkeys ? j->sc.nkeys : 1, sizeof(*rs->program));
	rs->counters_said = xcalloc(j->sc.nkeys ? j->sc.nkeys : 1, 1);
	rs->cwd = path_dirname(j->ex.path);
	rs->broken = j->broken;
	rs->results = j->results;
	rs->sess.fd = -1;
}

int run_skip_key(struct run_state *rs, size_t k, struct kerr *e)
{
	/* kiln track (build_failed) measures one commit's build: what fails stops it, as --strict */
	if (rs->o->strict || rs->o->build_failed)
		return -1;
	if (!rs->broken[k]) {
		rs->broken[k] = xstrdup(sb_str(&e->msg));
		kiln_warn("%s is skipped (its pexecs stay pending): %s", rs->kc[k].key, rs->broken[k]);
	}
	kerr_release(e);
	return 0;
}

/* a key's bench_conf (setup, cleanup) */
static const struct bench_conf *key_bench(const struct run_job *j, size_t k)
{
	return j->kc[k].pc.bench;
}

/* is key k the first of the schedule with its VM? (a VM's steps run once) */
static int first_of_vm(const struct pexec_key *kc, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (kc[i].pc.vm == kc[k].pc.vm)
			return 0;
	return 1;
}

/* is key k the first with its benchmark folder and build commands? (a benchmark's build runs once per folder) */
static int first_build(const struct pexec_key *kc, size_t k)
{
	const struct strvec *b = &kc[k].pc.bench->build;
	for (size_t i = 0; i < k; i++) {
		const struct strvec *o = &kc[i].pc.bench->build;
		int same = !strcmp(kc[i].pc.bench_dir, kc[k].pc.bench_dir) && o->n == b->n;
		for (size_t w = 0; same && w < b->n; w++)
			same = !strcmp(o->v[w], b->v[w]);
		if (same)
			return 0;
	}
	return 1;
}

/*
 * Before the VMs are probed (a build may make what they run): each VM's
 * build once, then each benchmark folder's build once.
 */
/* are keys a and b built by the same benchmark build (its folder and commands)? */
static int same_build(const struct pexec_key *a, const struct pexec_key *b)
{
	const struct strvec *x = &a->pc.bench->build, *y = &b->pc.bench->build;
	int same = !strcmp(a->pc.bench_dir, b->pc.bench_dir) && x->n == y->n;
	for (size_t w = 0; same && w < x->n; w++)
		same = !strcmp(x->v[w], y->v[w]);
	return same;
}

/* every key for which same(k, key) holds cannot run: the failure in e (a copy for each) */
static int skip_keys_like(struct run_state *rs, size_t k, int (*same)(const struct pexec_key *, const struct pexec_key *),
			  struct kerr *e)
{
	char *why = xstrdup(sb_str(&e->msg));
	int r = 0;
	for (size_t i = 0; i < rs->sc->nkeys && r == 0; i++)
		if (same(&rs->kc[i], &rs->kc[k])) {
			struct kerr one = KERR_INIT;
			kerr_setc(&one, e->code, "%s", why);
			r = run_skip_key(rs, i, &one);
			if (r < 0)
				kerr_setc(e, one.code, "%s", sb_str(&one.msg));
			kerr_release(&one);
		}
	free(why);
	if (r == 0)
		kerr_release(e);
	return r;
}

static int same_vm(const struct pexec_key *a, const struct pexec_key *b)
{
	return a->pc.vm == b->pc.vm;
}

/*
 * Before the VMs are probed (a build may make what they run): each VM's
 * build once, then each benchmark folder's build once, then the VMs a
 * build was to make are checked.  What fails skips the keys that need it
 * (all of them stop the run with --strict).
 */
static int run_builds(struct run_state *rs, struct kerr *e)
{
	struct pexec_key *kc = rs->kc;
	for (size_t k = 0; k < rs->sc->nkeys; k++) {
		const struct vm_conf *vm = kc[k].pc.vm;
		struct step st = { "build", NULL, vm, NULL, 0, 0 };
		if (first_of_vm(kc, k) && run_step(rs, &vm->build, &st, e) < 0 &&
		    (kerr_wrap(e, "VM %s", vm->name), e->code == KEXIT_INTERRUPTED || skip_keys_like(rs, k, same_vm, e) < 0))
			return -1;
	}
	for (size_t k = 0; k < rs->sc->nkeys; k++) {
		struct step st = { "build", &kc[k].pc, NULL, NULL, 0, 0 };
		if (!rs->broken[k] && first_build(kc, k) && run_step(rs, &kc[k].pc.bench->build, &st, e) < 0 &&
		    (kerr_wrap(e, "%s", kc[k].key), e->code == KEXIT_INTERRUPTED || skip_keys_like(rs, k, same_build, e) < 0))
			return -1;
	}
	for (size_t k = 0; k < rs->sc->nkeys; k++)
		if (!rs->broken[k] && first_of_vm(kc, k) && config_check_built_vm(kc[k].pc.vm, e) < 0 &&
		    skip_keys_like(rs, k, same_vm, e) < 0)
			return -1;
	return 0;
}

/*
 * Before the first pexec: each VM's setup (once), each key's setup (once),
 * then --warmup runs of every key, interleaved, run as pexecs are but not
 * stored.  *set_up counts the keys whose setup ran, so that exactly those
 * (and their VMs) are cleaned up.
 */
static int run_setup(struct run_state *rs, struct run_job *j, int *set_up, struct kerr *e)
{
	for (size_t k = 0; k < j->sc.nkeys; k++, (*set_up)++) {
		const struct vm_conf *vm = j->kc[k].pc.vm;
		struct step vs = { "setup", NULL, vm, NULL, 0, 0 }, bs = { "setup", &j->kc[k].pc, NULL, NULL, 0, 0 };
		if ((first_of_vm(j->kc, k) && run_step(rs, &vm->setup, &vs, e) < 0) ||
		    run_step(rs, &key_bench(j, k)->setup, &bs, e) < 0)
			return kerr_wrap(e, "%s", j->kc[k].key), e->code ? e->code : KEXIT_FAIL;
	}
	for (long w = 0; w < rs->o->warmup; w++)
		for (size_t k = 0; k < j->sc.nkeys; k++) {
			if (rs->broken[k])
				continue;
			struct sched_item it = { .id = 0, .key = (long)k, .num = w, .status = PX_PENDING };
			int r = run_pexec(rs, &it, &j->kc[k], 1, 0, 0, e);
			if (r == ONE_UNSTARTED)
				return kerr_setc(e, KEXIT_INTERRUPTED, "interrupted before the warmup runs ended"),
				       KEXIT_INTERRUPTED;
			if (r == ONE_INTERRUPTED || r == ONE_FATAL)
				return e->code ? e->code : KEXIT_FAIL;
			if (r == ONE_FAILED)
				return kerr_setc(e, KEXIT_FAIL, "%s: warmup run %ld failed: %s", j->kc[k].key, w + 1,
						 sb_str(&e->msg)), KEXIT_FAIL;
		}
	return KEXIT_OK;
}

/* one cleanup step; a failure fails the run (e: NULL, warn) */
static void cleanup_step(struct run_state *rs, const struct strvec *cmds, const struct step *st, const char *who,
			 struct kerr *e, int *code)
{
	struct kerr ce = KERR_INIT;
	if (run_step(rs, cmds, st, &ce) < 0) {
		if (e && *code == KEXIT_OK) {
			kerr_setc(e, KEXIT_FAIL, "%s: %s", who, sb_str(&ce.msg));
			*code = KEXIT_FAIL;
		} else {
			kiln_warn("%s: %s", who, sb_str(&ce.msg));
		}
	}
	kerr_release(&ce);
}

/* after the last pexec: the cleanup of the keys set up, then of their VMs */
static void run_cleanup(struct run_state *rs, struct run_job *j, int set_up, struct kerr *e, int *code)
{
	/* a cleanup runs on through the interrupt that stopped the run (to its timeout), not through another */
	for (int k = 0; k < set_up; k++) {
		struct step st = { "cleanup", &j->kc[k].pc, NULL, NULL, 0, exec_interrupted };
		cleanup_step(rs, &key_bench(j, (size_t)k)->cleanup, &st, j->kc[k].key, e, code);
	}
	for (int k = 0; k < set_up; k++) {
		const struct vm_conf *vm = j->kc[k].pc.vm;
		struct step st = { "cleanup", NULL, vm, NULL, 0, exec_interrupted };
		if (first_of_vm(j->kc, (size_t)k))
			cleanup_step(rs, &vm->cleanup, &st, vm->name, e, code);
	}
}

/* the pexecs of this session, from the machine's preparation to its release */
static int run_session(struct run_job *j, const char *config, const struct run_opts *o, struct kerr *e)
{
	struct run_state rs;
	state_init(&rs, j, o);
	char *died = xasprintf("kiln run of %s (pid %d) ended without finishing its session: killed (kill -9, the OOM "
			       "killer) or crashed; `kiln status %s` shows what is stored, `kiln run %s` resumes",
			       j->results, (int)getpid(), j->results, config);
	int watch = platform_notify_watch(&j->ex.platform, died);
	free(died);
	exec_become_subreaper();
	run_catch_signals();
	json_t *tuned = NULL;
	long ran = 0;
	int code = KEXIT_OK;
	int ended = session_begin(&rs.sess, j->results, e);
	if (ended < 0 || run_prepare_machine(&rs, config, j->results, &tuned, e) < 0)
		code = e->code ? e->code : KEXIT_FAIL;
	else if (store_prepare(j->st, count_pending(&j->sc), e) < 0 ||
		 (j->retry && !o->build_only && store_retry(j->st, o->retry_failed, o->retry_tainted, e) < 0))
		code = e->code ? e->code : KEXIT_STORE;
	if (ended > 0 && !o->quiet)
		kiln_note("ended %d process(es) a killed kiln had left running", ended);
	int set_up = 0;
	if (code == KEXIT_OK && !o->build_only && (code = run_setup(&rs, j, &set_up, e)) == KEXIT_OK) {
		run_shed_memory();
		code = run_loop(&rs, j, config, &ran, e);
	}
	run_cleanup(&rs, j, set_up, code == KEXIT_OK ? e : NULL, &code);
	/*
	 * The pexecs the log holds go into the results file now, their error
	 * said: a fold that fails here (the disk is full) was not noticed by
	 * anything after, and the run said every pexec was done and exited 0
	 * with them only in RESULTS-log.
	 */
	if (code == KEXIT_OK && store_settle(j->st, e) < 0)
		code = e->code ? e->code : KEXIT_STORE;
	/* nothing runs once the loop is left: the pexec marked next is pending again */
	store_reset_running(j->st, NULL);
	if (o->pending_left)
		*o->pending_left = (long)count_pending(&j->sc);
	/* the VMs at the end, probed while the benchmark user is still there (cached: nothing runs) */
	json_t *end_vms = code == KEXIT_OK && ran && !count_pending(&j->sc) ? run_identify_vms(&rs) : NULL;
	run_release_machine(&rs, tuned);
	progress_end(&rs.prog);
	if (code != KEXIT_OK)
		run_notify(&j->ex, "stopped", "%s stopped (exit %d) with %zu of %zu pexecs pending: %s", j->results, code,
			   count_pending(&j->sc), j->sc.n, sb_str(&e->msg));
	platform_notify_unwatch(watch);
	if (code == KEXIT_OK)
		code = run_finish(&rs, j, config, ran, end_vms, e);
	else
		json_decref(end_vms);
	idc_save();
	idc_release();
	session_end(&rs.sess);
	json_decref(rs.vmids);
	free(rs.program);
	free(rs.counters_said);
	free(rs.cwd);
	return code;
}

static void note_missing_vms(const struct experiment *ex)
{
	for (size_t i = 0; i < ex->nvms; i++) {
		const struct vm_conf *vm = &ex->vms[i];
		if (vm->missing && vm->missing_why)
			kiln_note("VM '%s' is optional and %s: its keys are skipped", vm->name, vm->missing_why);
		else if (vm->missing)
			kiln_note("VM '%s' is optional and '%s' was not found: its keys are skipped", vm->name,
				  vm->path ? vm->path : vm->pl && vm->pl->vm_default ? vm->pl->vm_default : "?");
	}
}

static int job_run(struct run_job *j, const char *config, const struct run_opts *o, struct kerr *e);

/*
 * What the platform settings require of the machine (the CPUs of pin_cpus,
 * a temperature sensor, a cpufreq governor, a readable kernel log, the
 * privilege for user and nice), checked before the results file is made:
 * a setting the machine cannot meet leaves no results file behind.  The
 * session opens the platform again for real.  Not for kiln run --slurm:
 * the nodes are other machines (each checks its own, here, before its task
 * runs a pexec).
 */
static int platform_fits(const struct experiment *ex, const char *config, const struct run_opts *o, struct kerr *e)
{
	return o->prepare_only ? 0 : platform_preflight(&ex->platform, config, e);
}

/*
 * The config: kiln's own, or another tool's (a ReBench rebench.conf, a
 * Krun .krun file) read through its converter (convert.h), what it does not
 * take over said.
 */
static int load_config(const char *config, const struct run_opts *o, struct experiment *ex, struct kerr *e)
{
	struct strbuf text = STRBUF_INIT;
	struct convert_out out = CONVERT_OUT_INIT;
	int r = read_file(config, &text, e);
	int conv = r < 0 ? -1 : convert_any(config, text.buf, text.len, o->experiment, &out, e);
	if (conv == 0) {
		for (size_t i = 0; !o->quiet && i < out.unmapped.n; i++)
			kiln_note("not taken over: %s", esc(ESC_TERM, out.unmapped.v[i]));
		r = config_parse(config, out.yaml.buf, out.yaml.len, kiln_datadir(), CONFIG_CHECK_AFTER_BUILD, ex, e);
		if (r < 0)
			sb_addf(&e->msg, "\n(the line is of kiln's reading of %s: `kiln convert %s` prints it)", config, config);
	} else if (conv == 1) {
		r = config_parse(config, text.buf, text.len, kiln_datadir(), CONFIG_CHECK_AFTER_BUILD, ex, e);
	} else {
		r = -1;
	}
	if (r < 0)
		memset(ex, 0, sizeof(*ex));
	sb_release(&text);
	convert_out_release(&out);
	return r;
}

int run_experiment(const char *config, const struct run_opts *o, struct kerr *e)
{
	struct run_job j;
	memset(&j, 0, sizeof(j));
	if (load_config(config, o, &j.ex, e) < 0)
		return e->code ? e->code : KEXIT_CONFIG;
	int code = job_run(&j, config, o, e);
	config_free(&j.ex);
	return code;
}

int run_experiment_ex(struct experiment *ex, const char *name, const struct run_opts *o, struct kerr *e)
{
	struct run_job j;
	memset(&j, 0, sizeof(j));
	j.ex = *ex; /* the caller's: run_job frees nothing of it */
	return job_run(&j, name, o, e);
}

/* from a loaded experiment to the end of its session */
static int job_run(struct run_job *jp, const char *config, const struct run_opts *o, struct kerr *e)
{
	struct run_job j = *jp;
	int code = KEXIT_OK;
	j.o = o;
	/* absolute: the sanity child and the runners start in other folders */
	j.results = o->results ? abspath(o->results) : o->quick ? quick_results(j.ex.results) : xstrdup(j.ex.results);
	for (size_t i = 0; i < j.ex.warnings.n; i++)
		kiln_warn("%s", j.ex.warnings.v[i]);
	if (!o->quiet) {
		note_missing_vms(&j.ex);
		json_t *choice = env_choice(&j.ex);
		note_env(&j.ex, choice);
		json_decref(choice);
	}
	schedule_plan(&j.ex, o->order, o->quick ? 1 : 0, o->quick ? 3 : 0, &j.sc);
	if (!j.sc.n) {
		kerr_setc(e, KEXIT_CONFIG, "%s: nothing to run (every key is skipped)", config);
		code = KEXIT_CONFIG;
	} else if (o->dry_run)
		print_dry_run(&j.ex, &j.sc, j.results);
	else if (platform_fits(&j.ex, config, o, e) < 0 || (!o->prepare_only && run_free_leftovers(&j.ex) < 0) ||
		 open_results(&j, o, e) < 0 || prepare_keys(&j, config, e) < 0 ||
		 (j.forced && keep_forced_config(&j, e) < 0))
		code = e->code ? e->code : KEXIT_FAIL;
	else if (!o->prepare_only) /* kiln run --slurm goes on from here: the schedule stored, every key prepared */
		code = run_session(&j, config, o, e);
	if (j.kc)
		for (size_t k = 0; k < j.sc.nkeys; k++)
			pexec_key_release(&j.kc[k]);
	for (size_t k = 0; j.broken && k < j.sc.nkeys; k++)
		free(j.broken[k]);
	free(j.broken);
	free(j.kc);
	schedule_free(&j.sc);
	store_close(j.st);
	free(j.results);
	return code;
}
