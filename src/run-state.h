/*
 * run-state.h - what run.c (the session: results, schedule, machine) and
 * run-pexec.c (one pexec of it) share.  Not used outside `kiln run`.
 */
#ifndef KILN_RUN_STATE_H
#define KILN_RUN_STATE_H

#include "config.h"
#include "isolate.h"
#include "pexec.h"
#include "platform.h"
#include "progress.h"
#include "run.h"
#include "schedule.h"
#include "session.h"
#include "store.h"

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
	struct pexec_key *kc;     /* per key of the schedule */
	json_t *vmids;            /* per VM of the config: its identity (run_identify_vms) */
	char (*program)[65];      /* per key: its program's provenance hash this session (run_programs) */
	unsigned char *counters_said; /* per key: the counters its runner does not collect were said */
	char *cwd;                /* runners start in the config's folder */
	/*
	 * Per key: why it cannot run this session (its build, preparation or
	 * probe failed: its pexecs stay pending), NULL when it can
	 */
	char **broken;
	const char *results;      /* the results file */
	struct session sess;      /* what a crash of this kiln leaves findable */
	struct machine mach;      /* the pexecs' machine (isolate.h), MACHINE_NONE: none */
	struct cgbound cg;        /* the session's cgroup bounds, CG_NONE: none */
	char duet_cpu[2][16];     /* the CPUs of the duets (run.o->duet_cpus), "" until chosen */
};

/*
 * run-isolate.c: the session's machine and bounds (isolate.h), made after
 * the benchmark user and before the VMs are probed, said once when they
 * cannot be had; every process of a pexec joins the machine and gets the
 * bounds.  run_isolate_fresh before each pexec and probe (the user's
 * processes ended, the machine emptied: a renewed home), run_isolate_after
 * after the runner (a bound it hit fails the pexec), run_isolate_clear
 * once the pexec is collected.
 */
int run_isolate_open(struct run_state *rs, struct kerr *e);
void run_isolate_close(struct run_state *rs);
int run_isolate_fresh(struct run_state *rs, struct kerr *e);
void run_isolate_opts(const struct run_state *rs, struct exec_opts *eo);
/* the runner's end watched: what run_isolate_after needs to know of it (the user's tasks left, without a pids cgroup) */
void run_isolate_watch(struct run_state *rs, struct exec_opts *eo);
void run_isolate_after(struct run_state *rs, const struct exec_result *res, int *failed, struct strbuf *why);
void run_isolate_clear(struct run_state *rs);
/*
 * Before the results are opened (and a pexec log folded into them): what a
 * killed session left of the benchmark user (its processes, its home) goes,
 * so that a disk the benchmark filled frees itself.  Nothing when the user
 * is in use by another kiln.
 */
int run_free_leftovers(const struct experiment *ex);

/* what one pexec came to (ONE_UNSTARTED: an interrupt came before it started, as between two pexecs) */
enum { ONE_OK, ONE_FAILED, ONE_TAINTED, ONE_INTERRUPTED, ONE_UNSTARTED, ONE_FATAL };

/*
 * One pexec (run-pexec.c).  An item with id 0 is a warmup run (--warmup):
 * run as any pexec is, but neither marked, stored, checked nor counted.
 * `marked`: it is already marked running (by the previous pexec's commit); `next_id`: the pexec after it, which this commit
 * marks running, so that each pexec costs one transaction; `rerun`: an
 * earlier attempt in this session stored rows that the commit replaces.
 */
int run_pexec(struct run_state *rs, const struct sched_item *it, struct pexec_key *k, int marked, long next_id,
	      int rerun, struct kerr *e);

/*
 * A duet (run-pexec.c): the pexecs it[0] and it[1] at the same time, each
 * pinned to cpus[i]; what each came to in out[i] (ONE_*).  -1 when one is
 * ONE_FATAL.
 */
int run_duet(struct run_state *rs, const struct sched_item *const it[2], struct pexec_key *const k[2],
	     const char *const cpus[2], int out[2], struct kerr *e);

/*
 * run-prov.c: the VMs' identities, probed as the benchmark user with the
 * benchmark's environment (an array in the order of the config's VMs, for
 * the audit); and every pending key's program, after a probe of its runner,
 * compared with what its earlier pexecs ran: refused when it changed unless
 * --force, recorded, its hash in rs->program.
 */
json_t *run_identify_vms(struct run_state *rs);
int run_programs(struct run_state *rs, struct kerr *e);

/*
 * A step around the pexecs: pre_execution and post_execution (kiln's user
 * and environment), or a VM's or benchmark's build, setup, prepare and
 * cleanup (the benchmark user, the VM's environment, in the runners'
 * folder, the key's placeholders substituted).  Every step gets the KILN_*
 * variables of docs/config.md#steps: KILN_STEP, KILN_RESULTS, KILN_CONFIG,
 * KILN_PENDING and those of its key and pexec.
 */
struct step {
	const char *what;              /* "setup", "pre_execution", ... */
	const struct plugin_ctx *pc;   /* the key (NULL: none); its VM's env and placeholders */
	const struct vm_conf *vm;      /* a VM's own step (pc NULL): its env, {vm} {variant} {vm_path} */
	const char *label;             /* KILN_PEXEC, or NULL */
	int kiln_side;                 /* pre/post_execution: kiln's user and environment, no placeholders */
	int survives;                  /* interrupts it runs on through (exec_opts.survives): cleanup's */
};
/* argv lists flattened with "" after each, each run to success, no shell */
int run_step(struct run_state *rs, const struct strvec *cmds, const struct step *st, struct kerr *e);

/*
 * Key k cannot run this session; the failure is in e.  With --strict: -1,
 * the run stops.  Else it is said, e is emptied, its pexecs stay pending
 * and the run ends with exit 1: 0.
 */
int run_skip_key(struct run_state *rs, size_t k, struct kerr *e);

/* platform.notify; a notify command that fails only warns */
void run_notify(const struct experiment *ex, const char *event, const char *fmt, ...) KILN_PRINTF(3, 4);

#endif
