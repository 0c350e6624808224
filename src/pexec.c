/*
 * pexec.c - how a pexec is built (see pexec.h): the key's paths, the
 * environment of the runner protocol, the exec options from the config;
 * run.c and the single-pexec commands (profile, stat) share all of it.
 */
#include "pexec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "isolate.h"
#include "paths.h"
#include "safefs.h"

int pexec_find_key(const struct experiment *ex, const char *spec, const struct vm_conf **vmp,
		   const struct bench_conf **bp, struct kerr *e)
{
	char *s = xstrdup(spec);
	char *c1 = strchr(s, ':');
	char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c1 || c1 == s || !c1[1] || c1[1] == ':') {
		free(s);
		return kerr_setc(e, KEXIT_USAGE, "--key '%s': expected BENCH:VM[:VARIANT]", spec);
	}
	*c1 = '\0';
	if (c2)
		*c2 = '\0';
	const char *bname = s, *vname = c1 + 1, *variant = c2 ? c2 + 1 : NULL;
	const struct vm_conf *vm = NULL;
	const struct bench_conf *b = NULL;
	for (size_t i = 0; i < ex->nvms; i++)
		if (!strcmp(ex->vms[i].name, vname))
			vm = &ex->vms[i];
	for (size_t i = 0; i < ex->nbenchs; i++)
		if (!strcmp(ex->benchs[i].name, bname))
			b = &ex->benchs[i];
	struct strbuf have = STRBUF_INIT;
	int r = 0;
	if (!b) {
		for (size_t i = 0; i < ex->nbenchs; i++)
			sb_addf(&have, "%s%s", i ? ", " : "", ex->benchs[i].name);
		r = kerr_setc(e, KEXIT_CONFIG, "%s: no benchmark '%s' (benchmarks: %s)", ex->path, bname, sb_str(&have));
	} else if (!vm) {
		for (size_t i = 0; i < ex->nvms; i++)
			sb_addf(&have, "%s%s", i ? ", " : "", ex->vms[i].name);
		r = kerr_setc(e, KEXIT_CONFIG, "%s: no VM '%s' (vms: %s)", ex->path, vname, sb_str(&have));
	} else if (variant && *variant && strcmp(variant, vm->variant)) {
		r = kerr_setc(e, KEXIT_CONFIG, "%s: VM '%s' has variant '%s', not '%s'", ex->path, vname,
			      vm->variant, variant);
	} else if (vm->missing) {
		r = kerr_setc(e, KEXIT_CONFIG, "%s: VM '%s' is not installed (optional and %s)", ex->path, vname,
			      vm->missing_why ? vm->missing_why : "not found");
	}
	sb_release(&have);
	free(s);
	if (r < 0)
		return -1;
	*vmp = vm;
	*bp = b;
	return 0;
}

void pexec_refresh(struct pexec_spec *p)
{
	p->eo.argv = sv_array(&p->argv);
	p->eo.envp = sv_array(&p->env);
}

void pexec_key_init(struct pexec_key *k, const struct experiment *ex, const struct vm_conf *vm,
		    const struct bench_conf *b, long iterations, int profile)
{
	memset(k, 0, sizeof(*k));
	k->key = xasprintf("%s:%s:%s", b->name, vm->name, vm->variant);
	k->whole = vm->pl && vm->pl->whole_process;
	if (iterations <= 0)
		iterations = config_iterations(ex, vm, b);
	if (config_one_iteration(vm, b))
		iterations = 1;
	k->gauge = config_gauge(vm, b);
	k->counted = config_counts_set(ex, vm, b);
	k->bench_dir = config_bench_dir(ex, b, vm);
	k->entry_path = config_entry_path(ex, b, vm);
	k->plugin_dir = xasprintf("%s/plugins/%s", kiln_datadir(), vm->pl ? vm->pl->name : vm->name);
	struct plugin_ctx *pc = &k->pc;
	pc->vm = vm;
	pc->bench = b;
	pc->vm_path = vm->resolved;
	pc->bench_dir = k->bench_dir;
	pc->entry_path = k->entry_path;
	pc->plugin_dir = k->plugin_dir;
	pc->libexec_dir = kiln_libexecdir();
	pc->param = b->param;
	pc->iterations = iterations;
	pc->instrument = vm->instrument;
	pc->profile = profile;
}

void pexec_key_release(struct pexec_key *k)
{
	free(k->key);
	free(k->bench_dir);
	free(k->entry_path);
	free(k->plugin_dir);
	memset(k, 0, sizeof(*k));
}

const char *pexec_libkiln(void)
{
	static int done;
	static char *lk;
	if (done)
		return lk;
	done = 1;
	lk = path_join(kiln_libexecdir(), "libkiln.so"); /* the build tree */
	if (!file_exists(lk)) {
		free(lk);
		lk = xasprintf("%s/../../lib/libkiln.so.1", kiln_libexecdir()); /* installed: PREFIX/libexec/kiln */
	}
	if (!file_exists(lk)) {
		free(lk);
		lk = NULL;
	}
	return lk;
}

int pexec_passes(const struct vm_conf *vm, const char *var)
{
	size_t n = strcspn(var, "=");
	char *name = xstrndup(var, n);
	int yes = 0;
	for (size_t i = 0; i < vm->pass_env.n && !yes; i++)
		yes = star_match(vm->pass_env.v[i], name);
	free(name);
	return yes && n && strncmp(var, "PATH=", 5);
}

/* PATH, what pass_env passes of kiln's environment, and the VM's env: what every process of the VM gets */
static void vm_base_env(const struct vm_conf *vm, struct strvec *env)
{
	const char *path = getenv("PATH");
	sv_setenv(env, "PATH", path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char **p = environ; p && *p && vm->pass_env.n; p++)
		if (pexec_passes(vm, *p)) {
			size_t n = strcspn(*p, "=");
			char *name = xstrndup(*p, n);
			sv_setenv(env, name, (*p)[n] ? *p + n + 1 : "");
			free(name);
		}
	for (size_t i = 0; i < vm->env.n; i++) {
		char *eq = strchr(vm->env.v[i], '=');
		char *name = xstrndup(vm->env.v[i], (size_t)(eq - vm->env.v[i]));
		sv_setenv(env, name, eq + 1);
		free(name);
	}
}

void pexec_user_env(const struct puser *u, struct strvec *env)
{
	if (!u)
		return;
	sv_setenv(env, "HOME", u->home);
	sv_setenv(env, "USER", u->name);
}

void pexec_vm_env(const struct vm_conf *vm, const struct puser *u, struct strvec *env)
{
	vm_base_env(vm, env);
	pexec_user_env(u, env);
}

void pexec_user_opts(const struct puser *u, struct exec_opts *eo)
{
	if (!u)
		return;
	eo->set_user = 1;
	eo->uid = u->uid;
	eo->gid = u->gid;
	eo->cwd = u->home;
}

void pexec_env(const struct experiment *ex, const struct pexec_key *k, const char *label,
	       const char *instr_dir, struct strvec *env)
{
	const struct vm_conf *vm = k->pc.vm;
	vm_base_env(vm, env);
	char buf[64];
	sv_setenv(env, "KILN_BENCHMARK", k->pc.bench->name);
	sv_setenv(env, "KILN_VM", vm->name);
	sv_setenv(env, "KILN_VARIANT", vm->variant);
	sv_setenv(env, "KILN_KEY", k->key);
	sv_setenv(env, "KILN_PEXEC", label);
	snprintf(buf, sizeof(buf), "%ld", k->pc.iterations);
	sv_setenv(env, "KILN_ITERATIONS", buf);
	sv_setenv(env, "KILN_PARAM", k->pc.param);
	if (config_krun_layout(ex, k->pc.bench))
		sv_setenv(env, "KILN_LAYOUT", "krun");
	if (instr_dir)
		sv_setenv(env, "KILN_INSTR_DIR", instr_dir);
	if (!k->whole)
		sv_setenv(env, "KILN_RESULT_FD", "3");
	if (pexec_libkiln())
		sv_setenv(env, "KILN_LIBKILN", pexec_libkiln());
	if (ex->platform.counters.n) {
		struct strbuf c = STRBUF_INIT;
		for (size_t i = 0; i < ex->platform.counters.n; i++)
			sb_addf(&c, "%s%s", i ? "," : "", ex->platform.counters.v[i]);
		sv_setenv(env, "KILN_COUNTERS", c.buf);
		sb_release(&c);
	}
}

void pexec_opts(const struct experiment *ex, int whole, struct strbuf *cpus, struct exec_opts *eo)
{
	eo->timeout_s = ex->limits.timeout_s;
	eo->capture_bytes = (size_t)ex->limits.output_kb * 1024;
	eo->result_fd = whole ? 0 : 3;
	eo->rlimit_as_mb = ex->limits.address_space_mb;
	eo->rlimit_stack_mb = ex->limits.stack_mb;
	eo->aslr = ex->platform.aslr == ASLR_OFF ? 0 : ex->platform.aslr == ASLR_ON ? 1 : -1;
	sb_reset(cpus);
	for (size_t i = 0; i < ex->platform.pin_cpus.n; i++)
		sb_addf(cpus, "%s%s", i ? "," : "", ex->platform.pin_cpus.v[i]);
	eo->cpus = cpus->len ? cpus->buf : NULL;
	eo->set_nice = ex->platform.has_nice;
	eo->nice = ex->platform.nice;
}

int pexec_prepare(const struct experiment *ex, const struct pexec_key *k, const char *label, const char *tag,
		  const struct puser *u, const struct machine *m, char **instr, struct strvec *env, struct kerr *e)
{
	*instr = NULL;
	if (m && m->kind != MACHINE_NONE) {
		/* the machine's folders, made fresh by the caller after it ended the user's processes */
		if (!k->whole && m->instr)
			*instr = xstrdup(m->instr);
		pexec_env(ex, k, label, *instr, env);
		pexec_user_env(u, env);
		if (machine_private(m, "/tmp"))
			sv_setenv(env, "TMPDIR", "/tmp");
		return 0;
	}
	/* nothing of the user may run while kiln renews its folders */
	if (u && platform_user_renew(u, e) < 0)
		return -1;
	if (!k->whole) {
		char *base = sfs_state_path("instr", 0711, e);
		if (!base)
			return -1;
		char *tmpl = xasprintf("%s/%s.XXXXXX", base, tag);
		free(base);
		if (!mkdtemp(tmpl)) {
			kerr_set(e, "%s: %s", tmpl, strerror(errno));
			free(tmpl);
			return -1;
		}
		*instr = tmpl;
	}
	if (u) {
		/* the benchmark user writes its instrumentation, and only there */
		if (*instr && chown(*instr, u->uid, u->gid) < 0) {
			kerr_set(e, "chown %s: %s", *instr, strerror(errno));
			goto fail;
		}
		if (platform_user_fresh_home(u, e) < 0)
			goto fail;
	}
	pexec_env(ex, k, label, *instr, env);
	pexec_user_env(u, env);
	return 0;
fail:
	if (*instr)
		rm_rf(*instr);
	free(*instr);
	*instr = NULL;
	return -1;
}

void pexec_clean_instr(const char *tag)
{
	struct kerr e = KERR_INIT;
	char *base = sfs_state_path("instr", 0711, &e);
	kerr_release(&e);
	DIR *d = base ? opendir(base) : NULL;
	struct dirent *de;
	size_t tl = strlen(tag);
	while (d && (de = readdir(d))) {
		long pid = 0;
		/* "single-PID.": a kiln profile/stat; only a dead one's folders go */
		int dead = !strcmp(tag, "single-") && sscanf(de->d_name, "single-%ld.", &pid) == 1 && pid > 0 &&
			   kill((pid_t)pid, 0) < 0 && errno == ESRCH;
		if (dead || (!strncmp(de->d_name, tag, tl) && de->d_name[tl] == '.')) {
			char *p = path_join(base, de->d_name);
			rm_rf(p);
			free(p);
		}
	}
	if (d)
		closedir(d);
	free(base);
}

int pexec_is_tag(const char *name, char end)
{
	return strspn(name, "0123456789abcdef") == 16 && name[16] == end;
}

/* TAG.XXXXXX as pexec_prepare makes it, TAG a session's 16 hex digits: its tag copied to tag */
static int session_folder(const char *name, char tag[17])
{
	if (!pexec_is_tag(name, '.') || strlen(name + 17) != 6 || !sfs_name_ok(name + 17, 6))
		return 0;
	memcpy(tag, name, 16);
	tag[16] = '\0';
	return 1;
}

/*
 * Walked from a descriptor of instr/ (kiln's own, checked, mode 0711: only
 * kiln makes entries in it, so an entry that is a folder is one of
 * pexec_prepare's, whoever owns it now: a benchmark user owns its own);
 * what is inside goes by rm_rf_at, which never follows a link.
 */
size_t pexec_sweep_instr(const char *own, int (*gone)(const char *tag, void *arg), void *arg, size_t max)
{
	struct kerr e = KERR_INIT;
	char *base = sfs_state_path("instr", 0711, &e);
	kerr_release(&e);
	int dfd = base ? open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	free(base);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	size_t removed = 0;
	struct dirent *de;
	char tag[17];
	struct stat st;
	while (removed < max && (de = readdir(d)))
		if (session_folder(de->d_name, tag) && strcmp(tag, own) && gone(tag, arg) &&
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
		    rm_rf_at(dirfd(d), de->d_name) == 0)
			removed++;
	closedir(d);
	return removed;
}

int pexec_build(struct pexec_spec *p, const struct experiment *ex, const struct vm_conf *vm,
		const struct bench_conf *b, long iterations, int profile, const char *label, struct kerr *e)
{
	memset(p, 0, sizeof(*p));
	p->vm = vm;
	p->bench = b;
	pexec_key_init(&p->k, ex, vm, b, iterations, profile);
	struct plugin_ctx *pc = &p->k.pc;
	if (vm->pl && vm->pl->prepare && vm->pl->prepare(pc, e) < 0)
		return kerr_wrap(e, "preparing %s", p->k.key);
	if (ex->platform.user) { /* as under `kiln run`: the benchmark runs as that user */
		if (platform_user_ensure(ex->platform.user, &p->user, e) < 0)
			return -1;
		p->have_user = 1;
	}
	/* a tag of its own, single-PID; the folders of killed ones go first */
	char tag[32];
	snprintf(tag, sizeof(tag), "single-%010ld", (long)getpid());
	pexec_clean_instr("single-");
	if (pexec_prepare(ex, &p->k, label, tag, p->have_user ? &p->user : NULL, NULL, &p->instr_dir, &p->env, e) < 0)
		return -1;
	pc->instr_dir = p->instr_dir;
	if (plugin_build(pc, label, &p->argv, &p->env, e) < 0)
		return kerr_wrap(e, "%s", p->k.key);
	pexec_opts(ex, p->k.whole, &p->cpus, &p->eo);
	if (p->have_user)
		p->eo.cwd = p->user.home;  /* the tool (perf) drops to the user itself: pexec_under */
	if (config_cwd(vm, b))
		p->eo.cwd = config_cwd(vm, b);
	pexec_refresh(p);
	return 0;
}

int pexec_under(struct pexec_spec *p, struct strvec *tool, struct kerr *e)
{
	sv_push(tool, "--");
	if (p->have_user) {
		char *setpriv = find_in_path("setpriv");
		if (!setpriv) {
			kerr_set(e, "platform.user needs setpriv (Debian: util-linux) to run %s under %s", p->k.key,
				 tool->v[0]);
			sv_clear(tool);
			return -1;
		}
		sv_push(tool, setpriv);
		sv_pushf(tool, "--reuid=%d", (int)p->user.uid);
		sv_pushf(tool, "--regid=%d", (int)p->user.gid);
		sv_push(tool, "--clear-groups");
		sv_push(tool, "--");
		free(setpriv);
	}
	for (size_t i = 0; i < p->argv.n; i++)
		sv_push(tool, p->argv.v[i]);
	sv_clear(&p->argv);
	p->argv = *tool;
	*tool = (struct strvec)STRVEC_INIT;
	pexec_refresh(p);
	return 0;
}

void pexec_release(struct pexec_spec *p)
{
	if (p->have_user)
		platform_user_release(&p->user);
	if (p->instr_dir)
		rm_rf(p->instr_dir);
	free(p->instr_dir);
	pexec_key_release(&p->k);
	sv_clear(&p->argv);
	sv_clear(&p->env);
	sb_release(&p->cpus);
	memset(p, 0, sizeof(*p));
}
