/*
 * run-isolate.c - a `kiln run` session's machine and bounds (isolate.h):
 * made once, said once when they cannot be had, joined by every process of
 * every pexec, renewed before each pexec and probe, cleared after.
 */
#include "run-state.h"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"
#include "paths.h"
#include "safefs.h"

/* the host folder the machine's KILN_INSTR_DIR is seen at: <state>/instr/TAG.XXXXXX, once a session */
static char *instr_mountpoint(const struct run_state *rs, struct kerr *e)
{
	char *base = sfs_state_path("instr", 0711, e);
	if (!base)
		return NULL;
	char *tmpl = xasprintf("%s/%s.XXXXXX", base, rs->sess.tag);
	free(base);
	if (!mkdtemp(tmpl)) {
		kerr_set(e, "%s: %s", tmpl, strerror(errno));
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

/* an absolute path in a word of the config ("/tmp/x", "--jar=/tmp/x.jar"): its folder, kept */
static void keep_word(struct strvec *keep, const char *w)
{
	const char *eq = strchr(w, '=');
	if (*w != '/' && eq && eq[1] == '/')
		w = eq + 1;
	if (*w != '/' || strchr(w, '{'))
		return;
	/* lstat: root follows no link of the config's words (a link is not a folder: its folder is kept) */
	struct stat st;
	char *d = lstat(w, &st) == 0 && S_ISDIR(st.st_mode) ? xstrdup(w) : path_dirname(w);
	/* a word naming /tmp itself (TMPDIR=/tmp) keeps nothing: the pexec's /tmp is its own */
	static const char *const tops[] = { "/", "/tmp", "/var/tmp", "/dev/shm" };
	int top = 0;
	for (size_t i = 0; i < ARRAY_SIZE(tops); i++)
		top |= !strcmp(d, tops[i]);
	if (!top)
		sv_push(keep, d);
	free(d);
}

static void keep_words(struct strvec *keep, const struct strvec *words)
{
	for (size_t i = 0; i < words->n; i++)
		keep_word(keep, words->v[i]);
}

/*
 * Folders a pexec must see as they are, wherever they are (those in /tmp,
 * /var/tmp or /dev/shm are bound back into the machine's): kiln's own, the
 * experiment's, and those the config's words name.
 */
static void keep_list(const struct run_state *rs, struct strvec *keep)
{
	const struct experiment *ex = rs->ex;
	char self[4096];
	if (kiln_self_path(self, sizeof(self)))
		keep_word(keep, self);
	keep_word(keep, kiln_libexecdir());
	keep_word(keep, kiln_datadir());
	if (pexec_libkiln())
		keep_word(keep, pexec_libkiln());
	sv_push(keep, rs->cwd);
	if (ex->benchmarks_dir)
		sv_push(keep, ex->benchmarks_dir);
	char *d = path_dirname(rs->results);
	sv_push(keep, d);
	free(d);
	struct kerr e = KERR_INIT;
	char *state = sfs_state_path(NULL, 0755, &e);
	kerr_release(&e);
	if (state)
		sv_push(keep, state);
	free(state);
	if (rs->have_user) {
		d = path_dirname(rs->user.home);
		sv_push(keep, d);
		free(d);
	}
	for (size_t i = 0; i < ex->nvms; i++) {
		const struct vm_conf *vm = &ex->vms[i];
		if (vm->resolved)
			keep_word(keep, vm->resolved);
		keep_words(keep, &vm->args);
		keep_words(keep, &vm->env);
		keep_words(keep, &vm->runner);
		keep_words(keep, &vm->parser);
		keep_words(keep, &vm->prepare);
		if (config_cwd(vm, NULL)) /* where its processes start (ReBench's location) */
			sv_push(keep, config_cwd(vm, NULL));
	}
	for (size_t i = 0; i < ex->nbenchs; i++) {
		keep_words(keep, &ex->benchs[i].args);
		keep_words(keep, &ex->benchs[i].prepare);
		keep_words(keep, &ex->benchs[i].conclude);
		if (config_cwd(NULL, &ex->benchs[i]))
			sv_push(keep, config_cwd(NULL, &ex->benchs[i]));
	}
}

/* what the session got, for the audit */
static void audit_isolation(struct run_state *rs)
{
	const struct limits_conf *l = &rs->ex->limits;
	const struct machine *m = &rs->mach;
	json_t *sh = json_array(), *ref = json_array(), *cov = json_array();
	for (size_t i = 0; i < m->shared.n; i++)
		json_array_append_new(sh, json_string(m->shared.v[i]));
	for (size_t i = 0; i < m->covered.n; i++)
		json_array_append_new(cov, json_string(m->covered.v[i]));
	for (size_t i = 0; i < m->refused.n; i++)
		json_array_append_new(ref, json_string(m->refused.v[i]));
	static const char *const kinds[] = { "none", "root", "user namespace" };
	static const char *const cgk[] = { "none", "v1", "v2" };
	json_t *o = json_pack("{s:s, s:s?, s:I, s:o, s:o, s:o, s:s, s:s?, s:I, s:I, s:I}", "machine", kinds[m->kind],
			      "machine_why", m->why, "disk_mb", (json_int_t)m->disk_mb, "shared", sh, "refused", ref,
			      "covered", cov,
			      "cgroup", cgk[rs->cg.kind],
			      "cgroup_why", rs->cg.why, "processes", (json_int_t)l->processes, "memory_mb",
			      (json_int_t)rs->cg.memory_mb, "file_mb", (json_int_t)l->file_mb);
	char *txt = json_dumps(o, JSON_COMPACT);
	store_audit_set(rs->st, "isolation", txt, NULL);
	free(txt);
	json_decref(o);
}

static int open_bounds(struct run_state *rs, struct kerr *e)
{
	const struct limits_conf *l = &rs->ex->limits;
	long mem = l->memory_mb < 0 ? isolate_default_memory_mb() : l->memory_mb;
	struct kerr ce = KERR_INIT;
	int r = cg_open(&rs->cg, rs->sess.tag, l->processes, mem, &ce);
	if (r != 0 && !rs->o->quiet && (l->processes > 0 || mem > 0))
		kiln_note("no cgroup bounds this session's processes and memory (%s): %s", rs->cg.why ? rs->cg.why : "?",
			  rs->have_user && l->processes > 0 ?
			  "RLIMIT_NPROC bounds the benchmark user's processes; its memory is bounded only by "
			  "limits.address_space_mb" : "limits.processes and limits.memory_mb are not applied");
	if (r != 0) {
		char *why = rs->cg.why ? xstrdup(rs->cg.why) : NULL;
		cg_close(&rs->cg);
		rs->cg.why = why;
	}
	kerr_release(&ce);
	(void)e;
	return 0;
}

/*
 * Kept folders not bound into the pexecs' /tmp, /var/tmp or /dev/shm: a
 * symbolic link on their way (root would have bound what it points to,
 * past the permissions above it).  Said once; the audit lists them all.
 */
static void note_refused(const struct machine *m)
{
	char more[64] = "";
	if (m->refused.n > 1)
		snprintf(more, sizeof(more), " (and %zu more kept folders)", m->refused.n - 1);
	kiln_note("%s%s is not seen by the pexecs: a symbolic link is on its way, and kiln binds no folder through one "
		  "(docs/security.md#the-machine-a-pexec-runs-on)", m->refused.v[0], more);
}

int run_isolate_open(struct run_state *rs, struct kerr *e)
{
	const struct limits_conf *l = &rs->ex->limits;
	open_bounds(rs, e);
	if (l->isolate == ISOLATE_OFF) {
		rs->mach.why = xstrdup("limits.isolate is false");
		audit_isolation(rs);
		return 0;
	}
	char *instr = instr_mountpoint(rs, e);
	if (!instr)
		return -1;
	struct strvec keep = STRVEC_INIT;
	keep_list(rs, &keep);
	struct machine_spec s = { l->disk_mb > 0 ? l->disk_mb : isolate_default_disk_mb(),
				  rs->have_user ? &rs->user : NULL, instr, (const char *const *)sv_array(&keep) };
	struct kerr me = KERR_INIT;
	int r = machine_open(&rs->mach, &s, &me);
	sv_clear(&keep);
	free(instr);
	if (r < 0) {
		char *why = xstrdup(sb_str(&me.msg));
		machine_close(&rs->mach);
		rs->mach.why = why;
	}
	kerr_release(&me);
	if (r != 0 && l->isolate == ISOLATE_ON)
		return kerr_setc(e, KEXIT_CONFIG, "%s: limits.isolate is true, but kiln cannot make the pexecs' machine: %s",
				 rs->ex->path, rs->mach.why);
	if (r != 0 && !rs->o->quiet)
		kiln_note("each pexec sees what the ones before it left in /tmp, /var/tmp, /dev/shm and SysV IPC: %s "
			  "(docs/security.md#the-machine-a-pexec-runs-on; limits.isolate: false says it is meant)",
			  rs->mach.why);
	else if (r == 0 && rs->mach.shared.n && !rs->o->quiet)
		kiln_note("%s stays shared between pexecs: a folder kiln keeps (the experiment's own, or one its config "
			  "names) is there", rs->mach.shared.v[0]);
	if (r == 0 && rs->mach.refused.n && !rs->o->quiet)
		note_refused(&rs->mach);
	audit_isolation(rs);
	return 0;
}

void run_isolate_close(struct run_state *rs)
{
	char *instr = rs->mach.instr ? xstrdup(rs->mach.instr) : NULL;
	machine_close(&rs->mach);
	if (instr)
		rmdir(instr);
	free(instr);
	cg_close(&rs->cg);
}

int run_isolate_fresh(struct run_state *rs, struct kerr *e)
{
	/* nothing of the user may run while kiln renews what it sees */
	if (rs->have_user && platform_user_renew(&rs->user, e) < 0)
		return -1;
	if (rs->mach.kind != MACHINE_NONE) {
		if (machine_fresh(&rs->mach, e) < 0)
			return -1;
	} else if (rs->have_user && platform_user_fresh_home(&rs->user, e) < 0) {
		return -1;
	}
	return 0;
}

void run_isolate_opts(const struct run_state *rs, struct exec_opts *eo)
{
	machine_opts(&rs->mach, eo);
	isolate_bound_opts(&rs->ex->limits, rs->have_user, &rs->cg, eo);
}

/* the runner ended: the benchmark user's tasks still there, before exec_run ends them (a duet's: the most of both) */
static void count_left(void *ctx, pid_t pid)
{
	struct run_state *rs = ctx;
	long n = platform_user_tasks(rs->user.uid);
	if (n > rs->cg.left)
		rs->cg.left = n;
}

/*
 * Without a pids cgroup, RLIMIT_NPROC of the benchmark user is the only
 * process bound, and the kernel counts none of its refusals: what is left
 * of the user when the runner ends is counted instead (one /proc walk).
 */
void run_isolate_watch(struct run_state *rs, struct exec_opts *eo)
{
	rs->cg.left = 0;
	if (rs->have_user && rs->cg.kind == CG_NONE && rs->ex->limits.processes > 0) {
		eo->on_end = count_left;
		eo->end_ctx = rs;
	}
}

/*
 * The user's RLIMIT_NPROC was full if what was left of it fills
 * limits.processes but the runner's own place, freed when it ended.  A bomb
 * whose processes ended before the runner did is not seen.
 */
static int nproc_hit(const struct run_state *rs, struct strbuf *b)
{
	long max = rs->ex->limits.processes;
	if (rs->cg.kind != CG_NONE || !rs->have_user || max <= 0 || rs->cg.left < (max > 1 ? max - 1 : 1))
		return 0;
	sb_addf(b, "%slimits.processes (%ld) reached: %ld processes or threads of the benchmark user were left at the "
		"pexec's end (RLIMIT_NPROC; no pids cgroup counts what it refuses)", b->len ? "; " : "", max, rs->cg.left);
	return 1;
}

void run_isolate_after(struct run_state *rs, const struct exec_result *res, int *failed, struct strbuf *why)
{
	const struct limits_conf *l = &rs->ex->limits;
	struct strbuf b = STRBUF_INIT;
	int hit = cg_hits(&rs->cg, &b) | nproc_hit(rs, &b), dirty, full;
	machine_usage(&rs->mach, &dirty, &full);
	if (full) {
		sb_addf(&b, "%slimits.disk_mb (%ld MiB) is full: /tmp, /var/tmp, /dev/shm%s share it", b.len ? "; " : "",
			rs->mach.disk_mb, rs->mach.home ? ", the home and the instrumentation folder" :
			rs->mach.instr ? " and the instrumentation folder" : "");
		hit = 1;
	}
	if (l->file_mb > 0 && (res->signal == SIGXFSZ ||
				(dirty && machine_file_reached(&rs->mach, (unsigned long long)l->file_mb << 20)))) {
		sb_addf(&b, "%sa file reached limits.file_mb (%ld MiB)", b.len ? "; " : "", l->file_mb);
		hit = 1;
	}
	if (hit) {
		*failed = 1;
		sb_addf(why, "%s%s", why->len ? "; " : "", b.buf);
	}
	sb_release(&b);
}

int run_free_leftovers(const struct experiment *ex)
{
	const char *name = ex->platform.user;
	struct puser u;
	struct kerr e = KERR_INIT;
	if (name && geteuid() == 0 && getpwnam(name) && platform_user_ensure(name, &u, &e) == 0) {
		platform_user_renew(&u, NULL);
		rm_rf(u.home);
		platform_user_release(&u);
	}
	kerr_release(&e);
	return 0;
}

void run_isolate_clear(struct run_state *rs)
{
	if (rs->mach.kind == MACHINE_NONE)
		return;
	/* what is left goes with none of the user's processes still writing */
	int dirty = machine_dirty(&rs->mach);
	if (dirty && rs->have_user)
		platform_user_kill_all(&rs->user, NULL);
	machine_clear(&rs->mach, dirty);
}
