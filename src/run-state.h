/*
 * run-state.h - what run.c (the session: results, schedule, machine) and
 * run-pexec.c (one pexec of it) share.  Not used outside `kiln run`.
 */
#ifndef KILN_RUN_STATE_H
#define KILN_RUN_STATE_H

#include "config.h"
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
	char *cwd;                /* runners start in the config's folder */
	const char *results;      /* the results file */
	struct session sess;      /* what a crash of this kiln leaves findable */
};

/* what one pexec came to */
enum { ONE_OK, ONE_FAILED, ONE_TAINTED, ONE_INTERRUPTED, ONE_FATAL };

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
 * run-prov.c: the VMs' identities, probed as the benchmark user with the
 * benchmark's environment (an array in the order of the config's VMs, for
 * the audit); and every pending key's program, after a probe of its runner,
 * compared with what its earlier pexecs ran: refused when it changed unless
 * --force, recorded, its hash in rs->program.
 */
json_t *run_identify_vms(const struct run_state *rs);
int run_programs(struct run_state *rs, struct kerr *e);

/* argv lists flattened with "" after each (pre_execution, a key's setup...), each run to success, no shell */
int run_commands(const struct strvec *cmds, const char *what, struct kerr *e);

/* platform.notify; a notify command that fails only warns */
void run_notify(const struct experiment *ex, const char *event, const char *fmt, ...) KILN_PRINTF(3, 4);

#endif
