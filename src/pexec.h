/*
 * pexec.h - one pexec of a key built exactly as `kiln run` builds it, for
 * the commands that run a single pexec outside a schedule (`kiln profile`,
 * `kiln stat`): the key looked up in the config, the plugin's preparation,
 * its argv and environment (the KILN_* protocol variables, the VM's env, the
 * plugin's own variables) and the exec_opts (limits, ASLR, pinning, nice).
 *
 * The caller may wrap argv (perf record ... -- ARGV) before exec_run().
 */
#ifndef KILN_PEXEC_H
#define KILN_PEXEC_H

#include "config.h"
#include "exec.h"
#include "plugin.h"
#include "util.h"

struct pexec_spec {
	const struct vm_conf *vm;
	const struct bench_conf *bench;
	char *key;               /* bench:vm:variant */
	int whole;               /* whole-process plugin: no result stream */
	struct plugin_ctx pc;
	char *bench_dir, *entry_path, *plugin_dir, *libkiln;
	char *instr_dir;         /* a fresh KILN_INSTR_DIR (removed by pexec_release) */
	struct strvec argv, env;
	struct strbuf cpus;
	struct exec_opts eo;     /* argv/envp point into argv/env; result_fd 3 unless whole */
};

/*
 * Find BENCH:VM[:VARIANT] in ex; a variant, when given, must be the VM's.
 * Errors name the config and list what exists.
 */
int pexec_find_key(const struct experiment *ex, const char *spec, const struct vm_conf **vm,
		   const struct bench_conf **b, struct kerr *e);
/*
 * Build one pexec (label "0") of vm x b with `iterations` (0: the config's),
 * `profile` passed to the plugin.  Runs the plugin's prepare() first.
 */
int pexec_build(struct pexec_spec *p, const struct experiment *ex, const struct vm_conf *vm,
		const struct bench_conf *b, long iterations, int profile, struct kerr *e);
/* rebuild eo.argv/eo.envp after argv/env changed */
void pexec_refresh(struct pexec_spec *p);
void pexec_release(struct pexec_spec *p);

#endif
