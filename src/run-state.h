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
	char (*env_hash)[65];     /* per key: the first pexec's env hash */
	char (*session_hash)[65]; /* per key: this session's env hash (computed once) */
	char *cwd;                /* runners start in the config's folder */
	const char *results;      /* the results file */
	struct session sess;      /* what a crash of this kiln leaves findable */
};

/* what one pexec came to */
enum { ONE_OK, ONE_FAILED, ONE_TAINTED, ONE_INTERRUPTED, ONE_FATAL };

/*
 * One pexec (run-pexec.c).  `marked`: it is already marked running (by the
 * previous pexec's commit); `next_id`: the pexec after it, which this commit
 * marks running, so that each pexec costs one transaction; `rerun`: an
 * earlier attempt in this session stored rows that the commit replaces.
 */
int run_pexec(struct run_state *rs, const struct sched_item *it, struct pexec_key *k, int marked, long next_id,
	      int rerun, struct kerr *e);

/* platform.notify; a notify command that fails only warns */
void run_notify(const struct experiment *ex, const char *event, const char *fmt, ...) KILN_PRINTF(3, 4);

#endif
