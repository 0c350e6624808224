/*
 * pexec.h - how one pexec of a key is built: the one place that knows it.
 * run.c uses the pieces for every pexec of a schedule (pexec_key_init once
 * per key, pexec_env and pexec_opts per pexec); `kiln profile` and
 * `kiln stat` use pexec_build, which puts them together for a single pexec
 * outside a schedule: the key looked up in the config, the plugin's
 * preparation, argv and environment (the KILN_* protocol variables, the
 * VM's env, the plugin's own variables) and the exec_opts (limits, ASLR,
 * pinning, nice).  The caller may wrap argv (perf record ... -- ARGV).
 */
#ifndef KILN_PEXEC_H
#define KILN_PEXEC_H

#include "config.h"
#include "exec.h"
#include "platform.h"
#include "plugin.h"
#include "util.h"

/* what every pexec of a key shares: its paths and the plugin's context */
struct pexec_key {
	struct plugin_ctx pc;    /* instr_dir is set per pexec */
	char *key;               /* bench:vm:variant */
	char *bench_dir, *entry_path, *plugin_dir;
	int whole;               /* whole-process plugin: no result stream, no instr dir */
	const struct gauge_conf *gauge; /* the iterations are what the program prints (NULL: none) */
	int counted;             /* the config sets the count of iterations (a gauge's is checked) */
};
void pexec_key_init(struct pexec_key *k, const struct experiment *ex, const struct vm_conf *vm,
		    const struct bench_conf *b, long iterations, int profile);
void pexec_key_release(struct pexec_key *k);
/*
 * The environment of one pexec: PATH, the variables of kiln's own that the
 * VM's pass_env names, the VM's env, the KILN_* protocol
 * variables (label is KILN_PEXEC; instr_dir may be NULL), KILN_LIBKILN and
 * KILN_COUNTERS.  The plugin adds its own in plugin_build().
 */
void pexec_env(const struct experiment *ex, const struct pexec_key *k, const char *label,
	       const char *instr_dir, struct strvec *env);
/* does the VM's pass_env pass kiln's variable VAR (NAME=VALUE)?  PATH is always given, never passed */
int pexec_passes(const struct vm_conf *vm, const char *var);
/*
 * What a VM's own probes get (vmid.h: VM --version, ldd): PATH and the
 * VM's env, as in every pexec, and with a benchmark user (u, else NULL)
 * its HOME and USER.
 */
void pexec_vm_env(const struct vm_conf *vm, const struct puser *u, struct strvec *env);
/* HOME and USER of the benchmark user u (NULL: nothing) */
void pexec_user_env(const struct puser *u, struct strvec *env);
/* run as the benchmark user u (NULL: nothing changes), in its home */
void pexec_user_opts(const struct puser *u, struct exec_opts *eo);
/*
 * Limits, ASLR, pinning (the CPU list is kept in cpus), nice, and the result
 * fd unless `whole` (a whole-process plugin: no result stream).
 */
void pexec_opts(const struct experiment *ex, int whole, struct strbuf *cpus, struct exec_opts *eo);
/*
 * What `kiln run` and the single-pexec commands prepare alike for one pexec:
 * with a benchmark user (u, else NULL) every process it still has ended and
 * its fresh home, HOME and USER; a fresh KILN_INSTR_DIR in *instr (malloc'd;
 * NULL for a whole-process pexec), <state>/instr/TAG.XXXXXX, owned by the
 * user; the runner protocol's environment in env.  TAG names the session
 * (a fixed length, so that the environment's size is the same for every
 * pexec).  On failure nothing is left on disk.
 */
struct machine;
/*
 * With a machine (isolate.h; NULL or MACHINE_NONE: none) the caller has
 * ended the user's processes and made the machine fresh: the home and the
 * instrumentation folder are the machine's, and TMPDIR is /tmp.
 */
int pexec_prepare(const struct experiment *ex, const struct pexec_key *k, const char *label, const char *tag,
		  const struct puser *u, const struct machine *m, char **instr, struct strvec *env, struct kerr *e);
/*
 * Remove the instrumentation folders of session TAG left by a kiln that was
 * killed; TAG "single-": those of `kiln profile`/`stat` runs no longer alive.
 */
void pexec_clean_instr(const char *tag);
/* does name start with a session's tag (16 lowercase hex digits) followed by `end`? */
int pexec_is_tag(const char *name, char end);
/*
 * The bounded sweep of session_begin (session.c): remove at most `max`
 * folders TAG.XXXXXX (TAG 16 hex digits, other than `own`) whose session
 * gone(TAG, arg) says is over; a name of another shape or anything but a
 * folder (a link) is left alone.  Returns how many went.
 */
size_t pexec_sweep_instr(const char *own, int (*gone)(const char *tag, void *arg), void *arg, size_t max);
/* libkiln.so for runners' FFI (KILN_LIBKILN), NULL when not installed */
const char *pexec_libkiln(void);

struct pexec_spec {
	const struct vm_conf *vm;
	const struct bench_conf *bench;
	struct pexec_key k;
	char *instr_dir;         /* a fresh KILN_INSTR_DIR (removed by pexec_release) */
	struct strvec argv, env;
	struct strbuf cpus;
	struct exec_opts eo;     /* argv/envp point into argv/env; result_fd 3 unless whole */
	struct puser user;       /* platform.user: the benchmark's user (have_user) */
	int have_user;
};

/*
 * Find BENCH:VM[:VARIANT] in ex; a variant, when given, must be the VM's.
 * Errors name the config and list what exists.
 */
int pexec_find_key(const struct experiment *ex, const char *spec, const struct vm_conf **vm,
		   const struct bench_conf **b, struct kerr *e);
/*
 * Build one pexec (KILN_PEXEC `label`, "0" for a single one) of vm x b with
 * `iterations` (0: the config's), `profile` passed to the plugin.  Runs the
 * plugin's prepare() first.
 */
int pexec_build(struct pexec_spec *p, const struct experiment *ex, const struct vm_conf *vm,
		const struct bench_conf *b, long iterations, int profile, const char *label, struct kerr *e);
/* rebuild eo.argv/eo.envp after argv/env changed */
void pexec_refresh(struct pexec_spec *p);
/*
 * Run the pexec under a tool that starts it (perf record, perf stat): argv
 * becomes TOOL-ARGV -- [setpriv ... --] PEXEC-ARGV.  The tool keeps kiln's
 * privileges; with platform.user the benchmark drops to that user through
 * setpriv (util-linux), as it would under `kiln run`.  Takes tool's strings.
 */
int pexec_under(struct pexec_spec *p, struct strvec *tool, struct kerr *e);
void pexec_release(struct pexec_spec *p);

#endif
