/*
 * run-prov.c - what a `kiln run` session learns once, before its first
 * pexec: each VM's identity as the benchmark would run it (vmid.h), and
 * each pending key's program (provenance.h), after a probe of its runner
 * (KILN_PROBE=1: the benchmark loaded and checked, nothing measured).
 *
 * A key whose program differs from the one its earlier pexecs ran is
 * refused, every such key listed with what differs, unless --force: then
 * the new program is recorded beside the old one and its pexecs are kept
 * apart in every report (ds_split_programs).  What changed in the setting
 * only (kiln's PATH, the user's uid) is said, not refused.
 */
#include "run-state.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "plugin.h"
#include "provenance.h"
#include "vmid.h"

#define PROBE_OUT_MAX (64 * 1024)
#define PROBE_FIELD_MAX 512

/* the flag that prints a VM's version (lua and luajit know only -v) */
static const char *version_flag(const struct vm_conf *vm)
{
	const char *pl = vm->plugin ? vm->plugin : "";
	if (!strcmp(pl, "lua") || !strcmp(pl, "luajit"))
		return "-v";
	return "--version";
}

/* one VM's identity, probed as its benchmarks run: the user, its home, PATH and the VM's env, on the machine */
static json_t *identify_vm(const struct run_state *rs, const struct vm_conf *vm)
{
	const char *exe = vm->resolved ? vm->resolved : vm->path;
	json_t *o = json_pack("{s:s, s:s?, s:s?}", "name", vm->name, "plugin", vm->plugin, "path", exe);
	if (!exe || vm->missing || !is_executable(exe))
		return o;
	const struct puser *u = rs->have_user ? &rs->user : NULL;
	struct strvec env = STRVEC_INIT;
	pexec_vm_env(vm, u, &env);
	struct exec_opts eo;
	memset(&eo, 0, sizeof(eo));
	pexec_user_opts(u, &eo);
	run_isolate_opts(rs, &eo);
	if (machine_private(&rs->mach, "/tmp"))
		sv_setenv(&env, "TMPDIR", "/tmp");
	struct vmid_probe pr = { sv_array(&env), eo.cwd ? eo.cwd : rs->cwd, eo.set_user, eo.uid, eo.gid, &eo };
	json_t *id = vmid_get(exe, version_flag(vm), &pr);
	json_object_update(o, id);
	json_decref(id);
	sv_clear(&env);
	return o;
}

json_t *run_identify_vms(struct run_state *rs)
{
	/* a renewed home and machine: what a pexec left does not decide what --version says */
	struct kerr e = KERR_INIT;
	if (run_isolate_fresh(rs, &e) < 0)
		kiln_warn("before the VMs' probes: %s", sb_str(&e.msg));
	kerr_release(&e);
	json_t *a = json_array();
	for (size_t i = 0; i < rs->ex->nvms; i++)
		json_array_append_new(a, identify_vm(rs, &rs->ex->vms[i]));
	run_isolate_clear(rs);
	return a;
}

/* ---- the runner's probe ---- */

static int probe_stream(void *ctx, const char *data, size_t n)
{
	struct strbuf *sb = ctx;
	if (sb->len + n > PROBE_OUT_MAX)
		return 1;
	sb_add(sb, data, n);
	return 0;
}

/* the probe line's version and executable, bounded and visible; NULL when there is no probe line */
static json_t *probe_line(const struct strbuf *out)
{
	json_t *line = json_loadb(sb_str(out), strcspn(sb_str(out), "\n"), 0, NULL);
	if (!json_is_object(line) || !json_is_true(json_object_get(line, "probe"))) {
		json_decref(line);
		return NULL;
	}
	json_t *r = json_object();
	static const char *const fields[] = { "version", "executable" };
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		const char *v = json_string_value(json_object_get(line, fields[i]));
		if (!v)
			continue;
		char *cut = xstrndup(v, strnlen(v, PROBE_FIELD_MAX));
		json_object_set_new(r, fields[i], json_string(esc(ESC_TERM, cut)));
		free(cut);
	}
	json_decref(line);
	return r;
}

/* why a probe failed, with what the runner said last */
static int probe_failed(const struct pexec_key *k, const struct exec_result *res, int xr, const struct kerr *xe,
			struct kerr *e)
{
	struct strbuf why = STRBUF_INIT;
	if (xr < 0)
		sb_adds(&why, sb_str(&xe->msg));
	else if (res->timed_out)
		sb_adds(&why, "it timed out");
	else if (!res->exited)
		sb_addf(&why, "killed by signal %d", res->signal);
	else if (res->status)
		sb_addf(&why, "exit status %d", res->status);
	else
		sb_adds(&why, "no probe line in its result stream (docs/protocol.md#the-probe)");
	const char *err = sb_str(&res->err);
	size_t n = strlen(err);
	int r = kerr_setc(e, KEXIT_CONFIG, "%s: the runner's probe before the first pexec failed (%s)%s%s", k->key, why.buf,
			  n ? ":\n" : "", n > 2048 ? err + n - 2048 : err);
	sb_release(&why);
	return r;
}

/*
 * Start the key's runner as a pexec would be started, with KILN_PROBE=1:
 * it loads and checks the benchmark and says what it runs on.  Not stored
 * as a measurement.  *probe gets the line's fields.
 */
static int probe_key(struct run_state *rs, struct pexec_key *k, json_t **probe, struct kerr *e)
{
	const struct puser *u = rs->have_user ? &rs->user : NULL;
	char *instr = NULL;
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	struct strbuf cpus = STRBUF_INIT, out = STRBUF_INIT;
	struct exec_opts eo;
	struct exec_result res = { 0 };
	struct kerr xe = KERR_INIT;
	memset(&eo, 0, sizeof(eo));
	int on = rs->mach.kind != MACHINE_NONE;
	int r = on ? run_isolate_fresh(rs, e) : 0;
	if (r == 0)
		r = pexec_prepare(rs->ex, k, "probe", rs->sess.tag, u, &rs->mach, &instr, &env, e);
	k->pc.instr_dir = instr;
	if (r == 0 && plugin_build(&k->pc, "probe", &argv, &env, e) < 0)
		r = kerr_wrap(e, "%s", k->key);
	if (r == 0) {
		sv_setenv(&env, "KILN_PROBE", "1");
		pexec_opts(rs->ex, k->whole, &cpus, &eo);
		eo.argv = sv_array(&argv);
		eo.envp = sv_array(&env);
		eo.cwd = rs->cwd;
		pexec_user_opts(u, &eo);
		if (config_cwd(k->pc.vm, k->pc.bench))
			eo.cwd = config_cwd(k->pc.vm, k->pc.bench);
		run_isolate_opts(rs, &eo);
		eo.on_stream = probe_stream;
		eo.stream_ctx = &out;
		if (!eo.timeout_s || eo.timeout_s > 300)
			eo.timeout_s = 300;
		int xr = exec_run(&eo, &res, &xe);
		*probe = xr == 0 && res.exited && !res.status ? probe_line(&out) : NULL;
		if (!*probe)
			r = probe_failed(k, &res, xr, &xe, e);
	}
	if (u)
		platform_user_kill_all(u, NULL);
	if (on)
		run_isolate_clear(rs);
	else if (instr)
		rm_rf(instr);
	free(instr);
	k->pc.instr_dir = NULL;
	exec_result_release(&res);
	kerr_release(&xe);
	sv_clear(&argv);
	sv_clear(&env);
	sb_release(&cpus);
	sb_release(&out);
	return r;
}

/* ---- the key's program ---- */

/* the key's program as a pexec would run it, the per-pexec words in their fixed form */
static int describe_key(struct run_state *rs, struct pexec_key *k, const json_t *vm, const json_t *probe,
			struct prov *pv, struct kerr *e)
{
	const struct puser *u = rs->have_user ? &rs->user : NULL;
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	struct strbuf cpus = STRBUF_INIT;
	struct exec_opts eo;
	memset(&eo, 0, sizeof(eo));
	const char *instr = k->whole ? NULL : "$KILN_INSTR_DIR";
	pexec_env(rs->ex, k, "$KILN_PEXEC", instr, &env);
	pexec_user_env(u, &env);
	k->pc.instr_dir = instr;
	int r = plugin_build(&k->pc, "$KILN_PEXEC", &argv, &env, e) < 0 ? kerr_wrap(e, "%s", k->key) : 0;
	k->pc.instr_dir = NULL;
	if (r == 0) {
		pexec_opts(rs->ex, k->whole, &cpus, &eo);
		eo.cwd = rs->cwd;
		pexec_user_opts(u, &eo);
		if (config_cwd(k->pc.vm, k->pc.bench))
			eo.cwd = config_cwd(k->pc.vm, k->pc.bench);
		prov_describe(pv, k, &argv, &env, &eo, vm, probe);
	}
	sv_clear(&argv);
	sv_clear(&env);
	sb_release(&cpus);
	return r;
}

/* the VM identity of the key's VM, from the session's list */
static const json_t *vm_of(const struct run_state *rs, const struct pexec_key *k)
{
	for (size_t i = 0; i < rs->ex->nvms; i++)
		if (&rs->ex->vms[i] == k->pc.vm)
			return json_array_get(rs->vmids, i);
	return NULL;
}

static int has_pending(const struct schedule *sc, size_t key)
{
	for (size_t i = 0; i < sc->n; i++)
		if (sc->items[i].key == (long)key && (sc->items[i].status == PX_PENDING || sc->items[i].status == PX_RUNNING))
			return 1;
	return 0;
}

/* what one key's check came to */
struct key_check {
	struct prov pv;
	int changed;           /* a program its earlier pexecs did not run */
	long next_seq;         /* the seq the program gets when recorded */
	int write;             /* record (new program, or a new setting) */
	struct strvec diff;    /* what changed, one line each */
};

/* compare the key's program with what the results file recorded for it */
static int check_key(struct run_state *rs, size_t ki, struct key_check *kc, struct kerr *e)
{
	struct store_program *pg;
	size_t n;
	long kid = rs->sc->keys[ki].id;
	if (store_programs(rs->st, kid, &pg, &n, e) < 0)
		return -1;
	const struct store_program *same = NULL, *last = n ? &pg[n - 1] : NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(pg[i].hash, kc->pv.hash))
			same = &pg[i];
	long unrecorded = store_unrecorded_pexecs(rs->st, kid);
	const char *key = rs->kc[ki].key;
	if (same) {
		struct strvec d = STRVEC_INIT;
		kc->write = prov_diff(same->setting ? same->setting : "", kc->pv.setting.buf, 4, &d) > 0;
		if (kc->write && !rs->o->quiet)
			for (size_t i = 0; i < d.n; i++)
				kiln_note("%s: not part of its program, changed since it was recorded: %s", key, d.v[i]);
		if (same != last && !rs->o->quiet)
			kiln_note("%s runs its program %ld again (its pexecs join those of program %ld)", key, same->seq,
				  same->seq);
		sv_clear(&d);
	} else if (n || unrecorded) {
		kc->changed = kc->write = 1;
		kc->next_seq = last ? last->seq + 1 : 1;
		if (last)
			prov_diff(last->description, kc->pv.program.buf, 12, &kc->diff);
		else
			sv_pushf(&kc->diff, "its %ld earlier pexec(s) were recorded without a provenance (an older kiln)",
				 unrecorded);
	} else {
		kc->write = 1;
	}
	store_programs_free(pg, n);
	return 0;
}

/* every changed key, what changed in it, and how to go on */
static int refuse_changed(struct run_state *rs, struct key_check *kcs, struct kerr *e)
{
	struct strbuf msg = STRBUF_INIT;
	size_t nk = 0;
	for (size_t k = 0; k < rs->sc->nkeys; k++) {
		if (!kcs[k].changed)
			continue;
		nk++;
		sb_addf(&msg, "\n  %s:", rs->kc[k].key);
		for (size_t i = 0; i < kcs[k].diff.n; i++)
			sb_addf(&msg, "\n    %s", kcs[k].diff.v[i]);
	}
	int r = kerr_setc(e, KEXIT_CONFIG,
			  "%s: the program of %zu key(s) changed since their earlier pexecs (one key is one program):%s\n"
			  "run with --force to go on (the new pexecs are then kept apart, as KEY#N in every report), or "
			  "use another results file", rs->results, nk, msg.buf);
	sb_release(&msg);
	return r;
}

/* record the programs (only what is new, in one transaction), one line for each key that --force keeps apart */
static int record_programs(struct run_state *rs, struct key_check *kcs, struct kerr *e)
{
	if (store_begin(rs->st, e) < 0)
		return -1;
	for (size_t k = 0; k < rs->sc->nkeys; k++) {
		struct key_check *kc = &kcs[k];
		if (!kc->pv.hash[0])
			continue;
		memcpy(rs->program[k], kc->pv.hash, 65);
		if (kc->changed && !rs->o->quiet) {
			struct strbuf d = STRBUF_INIT;
			for (size_t i = 0; i < kc->diff.n && i < 4; i++)
				sb_addf(&d, "%s%s", i ? "; " : "", kc->diff.v[i]);
			kiln_warn("%s: its program changed (%s); --force goes on, and its pexecs from now on are kept apart "
				  "as %s#%ld in every report", rs->kc[k].key, d.buf, rs->kc[k].key, kc->next_seq);
			sb_release(&d);
		}
		if (kc->write && store_program_put(rs->st, rs->sc->keys[k].id, kc->pv.hash, kc->pv.program.buf,
						   kc->pv.setting.buf, e) < 0) {
			store_commit(rs->st, NULL);
			return -1;
		}
	}
	return store_commit(rs->st, e);
}

/* probe, describe and check one key with pending pexecs; a key whose probe fails is skipped (run_skip_key) */
static int program_of_key(struct run_state *rs, size_t k, struct key_check *kc, struct kerr *e)
{
	struct pexec_key *pk = &rs->kc[k];
	json_t *probe = NULL;
	const struct kiln_plugin *pl = pk->pc.vm->pl;
	if (pl && pl->probe && probe_key(rs, pk, &probe, e) < 0)
		return e->code == KEXIT_INTERRUPTED ? -1 : run_skip_key(rs, k, e);
	int r = describe_key(rs, pk, vm_of(rs, pk), probe, &kc->pv, e);
	json_decref(probe);
	return r < 0 ? -1 : check_key(rs, k, kc, e);
}

int run_programs(struct run_state *rs, struct kerr *e)
{
	size_t nk = rs->sc->nkeys, changed = 0;
	struct key_check *kcs = xcalloc(nk ? nk : 1, sizeof(*kcs));
	int r = 0;
	for (size_t k = 0; k < nk && r == 0; k++) {
		kcs[k].pv = (struct prov)PROV_INIT;
		if (has_pending(rs->sc, k) && !rs->broken[k])
			r = program_of_key(rs, k, &kcs[k], e);
		changed += kcs[k].changed;
	}
	if (r == 0 && changed && !rs->o->force)
		r = refuse_changed(rs, kcs, e);
	if (r == 0)
		r = record_programs(rs, kcs, e);
	for (size_t k = 0; k < nk; k++) {
		prov_release(&kcs[k].pv);
		sv_clear(&kcs[k].diff);
	}
	free(kcs);
	return r;
}
