/*
 * session-record.h - the sessions kiln has measured on this machine, kept
 * so that `kiln diff` can learn how much a program's mean moves from one
 * session to the next (stats-session.h) instead of assuming it.
 *
 * <state>/session-record.db (safefs.h's state folder; SQLite, mode 0600,
 * kiln's own): one row per key of every finished `kiln bench` session: the
 * key's program (its provenance hash: argv, environment, the binary's
 * SHA-256, never only a path), the machine (a hash of
 * track_machine_identity()), a fingerprint of the session's own data (so
 * that A's and B's sessions are left out of their own diff), the session's
 * log-mean, its within-session variance and n.  Bounded: the newest
 * SREC_KEEP sessions a program and machine, SREC_MAX_ROWS rows in all.
 * docs/kiln-diff.md, docs/statistics.md.
 */
#ifndef KILN_SESSION_RECORD_H
#define KILN_SESSION_RECORD_H

#include <stddef.h>
#include "stats-session.h"
#include "util.h"

#define SREC_KEEP 64
#define SREC_MAX_ROWS 20000

struct dataset;
struct an_result;
struct an_key;

/* record each key of the finished session in `results` (r: its analysis) */
int srec_add_session(const char *results, const struct an_result *r, struct kerr *e);

/* where a key's session sd comes from */
enum srec_source { SREC_OPTION, SREC_MEASURED, SREC_ASSUMED, SREC_NONE };

struct srec_sd {
	double sd;              /* the session sd to add (an upper bound when measured) */
	enum srec_source source;
	int looked_up;          /* the record was searched: sessions is a count */
	size_t sessions;        /* other recorded sessions of the key's program(s) on this machine */
	struct ss_estimate est; /* the estimate when sessions > 0 */
	const char *why;        /* when assumed: why not measured (static text) */
};

/* what `kiln diff A B` needs of the record: opened once (NULL is a usable context: nothing recorded) */
struct srec_diff;
struct srec_diff *srec_diff_open(const char *a, const struct dataset *da, const char *b, const struct dataset *db);
/* the session sd of one key, A's ka and B's kb; dflt when nothing better is known */
void srec_diff_key(struct srec_diff *d, const struct an_key *ka, const struct an_key *kb, double dflt,
		   struct srec_sd *out);
void srec_diff_close(struct srec_diff *d);
const char *srec_source_name(enum srec_source s);

#endif
